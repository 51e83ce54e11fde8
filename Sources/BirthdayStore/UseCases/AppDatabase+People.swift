import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// Everyone in the store, ordered by name then id.
    public func people() async throws(StoreError) -> [Person] {
        try await read { db in try PersonRecord.people(db) }
    }

    /// The person with `id`, or `nil`.
    public func person(id: String) async throws(StoreError) -> Person? {
        try await read { db in try PersonRecord.person(id: id, db) }
    }

    /// The person `query` names (``PersonLookup``): an id, a public id
    /// (`p-…`), a name or part of one; or a reminder's id in any form
    /// ``DeliveryLedger/resolve(_:)`` reads (`r-3f9c` from `pending`), which
    /// names the reminder's person.
    public func findPerson(_ query: String) async throws(StoreError) -> PersonLookup.Result {
        try await read { db in
            let people = try PersonRecord.people(db)
            if let byID = people.first(where: { $0.id == query }) { return .found(byID) }
            if case .found(let reminder) = try DeliveryLedger.resolve(query, db), let person = people.first(where: { $0.id == reminder.personID }) {
                return .found(person)
            }
            return PersonLookup.find(query, in: people, publicIDs: try SettingRecord.publicIDs(db))
        }
    }

    /// Everyone whose name contains `query` (``PersonLookup/matches(_:in:publicIDs:)``), ordered by name then id.
    public func people(matching query: String) async throws(StoreError) -> [Person] {
        try await read { db in PersonLookup.matches(query, in: try PersonRecord.people(db), publicIDs: try SettingRecord.publicIDs(db)) }
    }

    /// Up to three people whose names are closest to `query`, for "did you mean".
    public func suggestions(for query: String) async throws(StoreError) -> [Person] {
        try await read { db in PersonLookup.suggestions(for: query, in: try PersonRecord.people(db)) }
    }

    /// How many people the store holds.
    public func peopleCount() async throws(StoreError) -> Int {
        try await read { db in try PersonRecord.fetchCount(db) }
    }

    /// The change counter and the time of the last change to people or to
    /// settings that shape reminders and feeds.
    public func revision() async throws(StoreError) -> (value: Int64, changedAt: Date) {
        try await read { db in try RevisionRecord.current(db) }
    }

    /// The upcoming events of everyone not excluded, straight from the rows:
    /// dates are compared as integers first, and an id and a name are read
    /// only for events inside `withinDays`, which keeps `birthdays upcoming`
    /// fast enough for a shell prompt over tens of thousands of people.
    ///
    /// - Parameters:
    ///   - withinDays: keep events at most this many days away (0 = today only).
    ///   - limit: keep at most this many, nearest first.
    public func upcoming(_ upcoming: UpcomingEvents, withinDays: Int? = nil, limit: Int? = nil) async throws(StoreError) -> [Occurrence] {
        try await read { db in
            var selector = NearestSelector(limit: limit)
            try PersonRecord.forEachDatedEvent(db, anniversaries: upcoming.includeAnniversaries) { date, kind, identity in
                let next = date.nextOccurrence(onOrAfter: upcoming.today, leapDay: upcoming.leapDay)
                if let withinDays, upcoming.today.days(to: next) > withinDays { return }
                let (id, name) = identity()
                selector.insert(upcoming.occurrence(of: date, kind: kind, personID: id, name: name))
            }
            // Dates in other calendars, each an event of its own; people who share one share its computation.
            var occurrences = CalendarOccurrences(today: upcoming.today)
            try CalendarDateRecord.forEachDatedEvent(db, anniversaries: upcoming.includeAnniversaries) { alternate, identity in
                guard let next = occurrences.next(alternate.date) else { return }
                if let withinDays, upcoming.today.days(to: next.date) > withinDays { return }
                let (id, name) = identity()
                selector.insert(upcoming.occurrence(of: alternate.date, next: next, kind: alternate.kind, personID: id, name: name))
            }
            return selector.sorted()
        }
    }
}
