import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// Every source, oldest first, with how many people each has (0 unless
    /// `counting`: counting reads every row of `sourcePerson`, which the
    /// daemon's SQLite cache would then keep in memory for nothing).
    package func sources(counting: Bool = true) async throws(StoreError) -> [Source] {
        try await read { db in try SourceRecord.sources(counting: counting, db) }
    }

    /// Adds `source` (its id and status are ignored) and returns it as stored.
    ///
    /// - Throws: ``SourceError/duplicateName(name:)`` when the name is taken;
    ///   ``SourceError/store(_:)`` when the database fails.
    package func addSource(_ source: Source, now: Date) async throws(SourceError) -> Source {
        let result: Source?
        do {
            result = try await write { db -> Source? in
                guard try SourceRecord.named(source.name, db) == nil else { return nil }
                var record = SourceRecord(source, createdAt: now)
                try record.insert(db)
                return record.source(people: 0)
            }
        } catch {
            throw .store(error.description)
        }
        guard let result else { throw .duplicateName(name: source.name) }
        return result
    }

    /// Removes the source named `name`. Its people leave the store with their
    /// pending reminders, unless another source has them or an import brought
    /// them; with `keepPeople` they stay, as if imported (no sync removes
    /// them any more). Reschedules when it had people: those who stay leave
    /// its group cards and its rules (`exclude --source`) all the same.
    ///
    /// - Returns: how many people left the store.
    /// - Throws: ``SourceError/unknownSource(name:)``, ``SourceError/store(_:)``.
    @discardableResult
    package func removeSource(
        named name: String,
        keepPeople: Bool,
        now: Date,
        systemTimeZone: TimeZone,
        systemLocale: String? = nil
    ) async throws(SourceError) -> Int {
        let removed: Int?
        do {
            removed = try await write(at: now) { db -> Int? in
                guard let record = try SourceRecord.named(name, db), let id = record.id else { return nil }
                let people = try SourcePersonRecord.people(sourceId: id, db)
                _ = try record.delete(db)
                let kept = try SourcePersonRecord.owned(among: people, db).union(try PersonRecord.importedAmong(people, db))
                let orphans = people.filter { !kept.contains($0) }
                var count = 0
                if keepPeople, !orphans.isEmpty {
                    try PersonRecord.markImported(orphans, db)
                } else if !orphans.isEmpty {
                    // The choices made on a person shown as a card that goes stay with their other cards.
                    try PersonRecord.handOverChoices(leaving: orphans, db)
                    _ = try DeliveryRecord.dismissOpen(personIDs: orphans, reason: "the contact's source was removed", now: now, db)
                    count = try PersonRecord.delete(ids: orphans, db)
                }
                // Those who stay are the source's no more: out of its group cards, from under its rules
                // (`sourcePerson` has no trigger: ``RevisionRecord/move(_:)``).
                if !people.isEmpty {
                    try RevisionRecord.move(db)
                    try GreetingPlanTriggers.changedHolding(of: people, db)
                    // Who is one person follows the cards that stay (issue 43).
                    try AppDatabase.relink(db)
                    _ = try NotificationScheduler.reschedule(db, now: now, systemTimeZone: systemTimeZone, systemLocale: systemLocale)
                }
                return count
            }
        } catch {
            throw .store(error.description)
        }
        guard let removed else { throw .unknownSource(name: name) }
        return removed
    }

    /// Stores when the running daemon syncs each source next, by source id
    /// (`nil`: when something changes on disk), for `birthdays status`.
    package func setNextSync(_ next: [Int64: Date?]) async throws(StoreError) {
        try await write { db in try SourceRecord.setNextSync(next, db) }
    }

    /// Forgets every next sync (the daemon stopped).
    package func clearNextSync() async throws(StoreError) {
        try await write { db in try SourceRecord.clearNextSync(db) }
    }

    /// The ids of the people the source `id` has, sorted (for tests and checks; never logged).
    package func peopleOfSource(id: Int64) async throws(StoreError) -> [String] {
        try await read { db in try SourcePersonRecord.people(sourceId: id, db).sorted() }
    }
}
