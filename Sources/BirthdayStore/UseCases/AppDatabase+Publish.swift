import BirthdayCore
import Foundation
import GRDB

/// The calendars `birthdays publish` writes into (`publishTarget`) and the
/// resources it wrote there (`publishedEvent`), migration `v11-publish`.
extension AppDatabase {
    /// Every publish target, oldest first.
    package func publishTargets() async throws(StoreError) -> [PublishTarget] {
        try await read { db in try Self.publishTargets(db) }
    }

    /// The target named `name`, if any.
    package func publishTarget(named name: String) async throws(StoreError) -> PublishTarget? {
        try await read { db in try Self.publishTargets(db).first { $0.name == name } }
    }

    /// The target `id`, if any.
    package func publishTarget(id: Int64) async throws(StoreError) -> PublishTarget? {
        try await read { db in try Self.publishTargets(db).first { $0.id == id } }
    }

    /// Adds `target` (its id and status are ignored) and returns it as stored.
    ///
    /// - Throws: ``SourceError/duplicateTarget(name:)``, ``SourceError/store(_:)``.
    package func addPublishTarget(_ target: PublishTarget, now: Date) async throws(SourceError) -> PublishTarget {
        let added: PublishTarget?
        do {
            added = try await write { db -> PublishTarget? in
                let taken = try Bool.fetchOne(db, sql: "SELECT 1 FROM publishTarget WHERE name = ?", arguments: [target.name]) ?? false
                guard !taken else { return nil }
                try db.execute(
                    sql: """
                        INSERT INTO publishTarget (name, url, calendarURL, username, passwordCommand, createdCalendar, createdAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        target.name, target.url, target.calendarURL, target.username, target.passwordCommand, target.createdCalendar,
                        now.timeIntervalSince1970,
                    ]
                )
                var stored = target
                stored.id = db.lastInsertedRowID
                stored.events = 0
                stored.lastPublish = nil
                stored.lastAttempt = nil
                stored.lastError = nil
                stored.eventsHash = nil
                stored.failures = 0
                stored.nextAttempt = nil
                return stored
            }
        } catch {
            throw .store(error.description)
        }
        guard let added else { throw .duplicateTarget(name: target.name) }
        return added
    }

    /// Forgets the target named `name` and what it published (the calendar is not touched).
    ///
    /// - Returns: the target as it was.
    /// - Throws: ``SourceError/unknownTarget(name:)``, ``SourceError/store(_:)``.
    @discardableResult
    package func removePublishTarget(named name: String) async throws(SourceError) -> PublishTarget {
        let removed: PublishTarget?
        do {
            removed = try await write { db -> PublishTarget? in
                guard let target = try Self.publishTargets(db).first(where: { $0.name == name }) else { return nil }
                try db.execute(sql: "DELETE FROM publishTarget WHERE id = ?", arguments: [target.id])
                return target
            }
        } catch {
            throw .store(error.description)
        }
        guard let removed else { throw .unknownTarget(name: name) }
        return removed
    }

    /// What the target `id` published, by UID.
    package func publishedEvents(targetId: Int64) async throws(StoreError) -> [String: PublishedEvent] {
        try await read { db in
            var events: [String: PublishedEvent] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT uid, href, etag, hash FROM publishedEvent WHERE targetId = ?", arguments: [targetId])
            while let row = try rows.next() {
                let event = PublishedEvent(uid: row[0], href: row[1], etag: row[2], hash: row[3])
                events[event.uid] = event
            }
            return events
        }
    }

    /// Records a resource written (or adopted) at once, so a publish that
    /// stops half-way leaves what it did known.
    package func recordPublished(targetId: Int64, _ event: PublishedEvent) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO publishedEvent (targetId, uid, href, etag, hash) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (targetId, uid) DO UPDATE SET href = excluded.href, etag = excluded.etag, hash = excluded.hash
                    """,
                arguments: [targetId, event.uid, event.href, event.etag, event.hash]
            )
        }
    }

    /// Forgets a resource deleted (or found gone).
    package func forgetPublished(targetId: Int64, uid: String) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM publishedEvent WHERE targetId = ? AND uid = ?", arguments: [targetId, uid])
        }
    }

    /// Records how a publish ended: the attempt, the error (`nil`: a success,
    /// which is also the last publish, with the hash of the events it left
    /// published) and how many events are published. A failure counts one
    /// more in a row; a success clears the count and any planned retry.
    package func recordPublishOutcome(targetId: Int64, now: Date, error: String?, eventsHash: String? = nil) async throws(StoreError) {
        try await write { db in
            let events = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM publishedEvent WHERE targetId = ?", arguments: [targetId]) ?? 0
            if error == nil {
                try db.execute(
                    sql: """
                        UPDATE publishTarget SET lastPublish = ?, lastAttempt = ?, lastError = NULL, events = ?, eventsHash = ?,
                        failures = 0, nextAttempt = NULL WHERE id = ?
                        """,
                    arguments: [now.timeIntervalSince1970, now.timeIntervalSince1970, events, eventsHash, targetId]
                )
            } else {
                try db.execute(
                    sql: "UPDATE publishTarget SET lastAttempt = ?, lastError = ?, events = ?, failures = failures + 1 WHERE id = ?",
                    arguments: [now.timeIntervalSince1970, error, events, targetId]
                )
            }
        }
    }

    /// Records when the running daemon publishes to each target again after
    /// a failure (`nil`: no retry planned), for `birthdays status`.
    package func setNextPublish(_ next: [Int64: Date?]) async throws(StoreError) {
        try await write { db in
            for (id, date) in next {
                try db.execute(sql: "UPDATE publishTarget SET nextAttempt = ? WHERE id = ?", arguments: [date?.timeIntervalSince1970, id])
            }
        }
    }

    /// Clears every planned retry (the daemon stops: nothing publishes then).
    package func clearNextPublish() async throws(StoreError) {
        try await write { db in try db.execute(sql: "UPDATE publishTarget SET nextAttempt = NULL WHERE nextAttempt IS NOT NULL") }
    }

    private static func publishTargets(_ db: Database) throws -> [PublishTarget] {
        var targets: [PublishTarget] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, url, calendarURL, username, passwordCommand, createdCalendar, lastPublish, lastAttempt, lastError, events,
                eventsHash, failures, nextAttempt
                FROM publishTarget ORDER BY id
                """
        )
        while let row = try rows.next() {
            targets.append(
                PublishTarget(
                    id: row[0],
                    name: row[1],
                    url: row[2],
                    calendarURL: row[3],
                    username: row[4],
                    passwordCommand: row[5],
                    createdCalendar: row[6],
                    lastPublish: (row[7] as Double?).map(Date.init(timeIntervalSince1970:)),
                    lastAttempt: (row[8] as Double?).map(Date.init(timeIntervalSince1970:)),
                    lastError: row[9],
                    events: row[10],
                    eventsHash: row[11],
                    failures: row[12],
                    nextAttempt: (row[13] as Double?).map(Date.init(timeIntervalSince1970:))
                )
            )
        }
        return targets
    }
}
