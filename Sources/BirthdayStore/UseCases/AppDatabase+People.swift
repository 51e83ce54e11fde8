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

    /// How many people the store holds.
    public func peopleCount() async throws(StoreError) -> Int {
        try await read { db in try PersonRecord.fetchCount(db) }
    }

    /// The change counter and the time of the last change to people or to
    /// settings that shape reminders and feeds.
    public func revision() async throws(StoreError) -> (value: Int64, changedAt: Date) {
        try await read { db in try RevisionRecord.current(db) }
    }

    /// The upcoming events that ``UpcomingEvents`` lists (not excluded, and
    /// deceased people per its policy), straight from the rows:
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
            let rules = upcoming.rules
            try PersonRecord.forEachDatedEvent(db) { date, kind, traits, identity in
                guard let treatment = rules.treatment(of: kind, for: traits) else { return }
                let next = date.nextOccurrence(onOrAfter: upcoming.today, leapDay: upcoming.leapDay)
                if let withinDays, upcoming.today.days(to: next) > withinDays { return }
                let (id, name, _) = identity()
                selector.insert(upcoming.occurrence(of: date, kind: kind, personID: id, name: name, memorial: treatment.memorial))
            }
            // Dates in other calendars, each an event of its own; people who share one share its computation.
            var occurrences = CalendarOccurrences(today: upcoming.today)
            try CalendarDateRecord.forEachDatedEvent(db) { alternate, traits, identity in
                guard let treatment = rules.treatment(of: alternate.kind, for: traits), !treatment.memorial,
                    let next = occurrences.next(alternate.date)
                else { return }
                if let withinDays, upcoming.today.days(to: next.date) > withinDays { return }
                let (id, name, _) = identity()
                selector.insert(upcoming.occurrence(of: alternate.date, next: next, kind: alternate.kind, personID: id, name: name))
            }
            return selector.sorted()
        }
    }
}
