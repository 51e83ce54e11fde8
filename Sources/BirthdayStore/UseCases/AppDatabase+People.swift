import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// Everyone in the store, ordered by name then id.
    package func people() async throws(StoreError) -> [Person] {
        try await read { db in try PersonRecord.people(db) }
    }

    /// The person with `id`, or `nil`.
    package func person(id: String) async throws(StoreError) -> Person? {
        try await read { db in try PersonRecord.person(id: id, db) }
    }

    /// The person `query` names (``PersonLookup``): an id, a public id
    /// (`p-…`), a name or part of one; or a reminder's id in any form
    /// ``DeliveryLedger/resolve(_:)`` reads (`r-3f9c` from `pending`), which
    /// names the reminder's person. A card shown as another person (issue 43),
    /// by its id or a name only it has, finds the person it is shown as: what
    /// a command does to it (`remind`, `note`, `zone`, `exclude`, `greet`,
    /// `show`) is done to that person, whose choices the walk reads.
    package func findPerson(_ query: String) async throws(StoreError) -> PersonLookup.Result {
        try await read { db in
            func shown(_ id: String) throws -> Person? { try PersonRecord.person(id: try PersonLinkRecord.shownAs(id, db), db) }
            if let byID = try PersonRecord.person(id: query, db) { return try shown(byID.id).map { .found($0) } ?? .found(byID) }
            if case .found(let reminder) = try DeliveryLedger.resolve(query, db), let person = try shown(reminder.personID) {
                return .found(person)
            }
            // Names are matched on ids and names alone; only the people found are read whole, each card as the person it is shown as, once.
            func whole(_ people: [Person]) throws -> [Person] {
                var seen = Set<String>()
                return try people.compactMap { try shown($0.id) }.filter { seen.insert($0.id).inserted }
            }
            switch PersonLookup.find(query, in: try PersonRecord.identities(db), publicIDs: try SettingRecord.publicIDs(db)) {
            case .found(let person): return try shown(person.id).map { .found($0) } ?? .notFound(suggestions: [])
            case .ambiguous(let people):
                let distinct = try whole(people)
                return distinct.count == 1 ? .found(distinct[0]) : .ambiguous(distinct)
            case .notFound(let suggestions): return .notFound(suggestions: try whole(suggestions))
            }
        }
    }

    /// Everyone whose name contains `query` (``PersonLookup/matches(_:in:publicIDs:)``), ordered by name then id.
    package func people(matching query: String) async throws(StoreError) -> [Person] {
        try await read { db in PersonLookup.matches(query, in: try PersonRecord.people(db), publicIDs: try SettingRecord.publicIDs(db)) }
    }

    /// Up to three people whose names are closest to `query`, for "did you mean".
    package func suggestions(for query: String) async throws(StoreError) -> [Person] {
        try await read { db in
            try PersonLookup.suggestions(for: query, in: try PersonRecord.identities(db)).compactMap { try PersonRecord.person(id: $0.id, db) }
        }
    }

    /// The notes of everyone who has one (``PersonNote``), by id.
    package func notes() async throws(StoreError) -> [String: String] {
        try await read { db in try PersonRecord.notes(db) }
    }

    /// How many people the store holds.
    package func peopleCount() async throws(StoreError) -> Int {
        try await read { db in try PersonRecord.fetchCount(db) }
    }

    /// The change counter and the time of the last change to people or to
    /// settings that shape reminders and feeds.
    package func revision() async throws(StoreError) -> (value: Int64, changedAt: Date) {
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
    package func upcoming(_ upcoming: UpcomingEvents, withinDays: Int? = nil, limit: Int? = nil) async throws(StoreError) -> [Occurrence] {
        try await read { db in try Self.upcoming(db, upcoming, withinDays: withinDays, limit: limit) }
    }

    /// ``upcoming(_:withinDays:limit:)`` inside the caller's transaction, with
    /// each person named as `names` says (the digest follows the `names` setting).
    static func upcoming(
        _ db: Database,
        _ upcoming: UpcomingEvents,
        withinDays: Int? = nil,
        limit: Int? = nil,
        names: NameStyle = .full
    ) throws -> [Occurrence] {
        var fold = UpcomingFold(upcoming, withinDays: withinDays, limit: limit, names: names)
        try PersonRecord.forEachEvent(db, rules: upcoming.rules, nameDays: upcoming.nameDays, nicknames: names == .nickname) { event, _, identity in
            fold.take(event, identity)
        }
        return fold.sorted()
    }
}
