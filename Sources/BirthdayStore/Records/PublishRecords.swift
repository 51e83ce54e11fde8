import BirthdayCore
import Foundation
import GRDB

/// The `publishTarget` table (migrations `v11-publish`, `v12-publish-state`,
/// `v17-publish-left-alone`, `v18-publish-sync-token`): the calendars `birthdays publish` writes into,
/// and how each fares. Its SQL is here and nowhere else.
enum PublishTargetRecord {
    /// Every target, oldest first.
    static func all(_ db: Database) throws -> [PublishTarget] {
        var targets: [PublishTarget] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, url, calendarURL, username, passwordCommand, createdCalendar, lastPublish, lastAttempt, lastError, events,
                eventsHash, failures, nextAttempt, leftAlone, syncToken, syncRefused
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
                    nextAttempt: (row[13] as Double?).map(Date.init(timeIntervalSince1970:)),
                    leftAlone: row[14],
                    syncToken: row[15],
                    syncRefused: row[16]
                )
            )
        }
        return targets
    }

    static func exists(named name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM publishTarget WHERE name = ?", arguments: [name]) ?? false
    }

    /// Inserts `target` (its id and status are ignored); its new id.
    static func insert(_ target: PublishTarget, now: Date, _ db: Database) throws -> Int64 {
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
        return db.lastInsertedRowID
    }

    /// Deletes the target `id` (what it published goes with it: `ON DELETE CASCADE`).
    static func delete(id: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM publishTarget WHERE id = ?", arguments: [id])
    }

    /// Records a success (`error` `nil`: the last publish too, with `eventsHash`) or a failure (one more in a row),
    /// the `events` published, and how many were `leftAlone` (`nil`: as it was).
    static func recordOutcome(id: Int64, now: Date, error: String?, eventsHash: String?, events: Int, leftAlone: Int?, _ db: Database) throws {
        if error == nil {
            try db.execute(
                sql: """
                    UPDATE publishTarget SET lastPublish = ?, lastAttempt = ?, lastError = NULL, events = ?, eventsHash = ?,
                    failures = 0, nextAttempt = NULL, leftAlone = COALESCE(?, leftAlone) WHERE id = ?
                    """,
                arguments: [now.timeIntervalSince1970, now.timeIntervalSince1970, events, eventsHash, leftAlone, id]
            )
        } else {
            try db.execute(
                sql: """
                    UPDATE publishTarget SET lastAttempt = ?, lastError = ?, events = ?, failures = failures + 1,
                    leftAlone = COALESCE(?, leftAlone) WHERE id = ?
                    """,
                arguments: [now.timeIntervalSince1970, error, events, leftAlone, id]
            )
        }
    }

    /// Keeps what a publish learnt of the calendar's listing: whether the
    /// server answers `sync-collection` (`nil`: as it was), and when it does,
    /// the sync-token to start from next time (`nil`: none, the next publish
    /// lists every member).
    static func recordListing(id: Int64, syncToken: String?, syncCollection: Bool?, _ db: Database) throws {
        guard let syncCollection else { return }
        try db.execute(
            sql: "UPDATE publishTarget SET syncToken = ?, syncRefused = ? WHERE id = ?",
            arguments: [syncCollection ? syncToken : nil, !syncCollection, id]
        )
    }

    static func setNextAttempt(id: Int64, _ date: Date?, _ db: Database) throws {
        try db.execute(sql: "UPDATE publishTarget SET nextAttempt = ? WHERE id = ?", arguments: [date?.timeIntervalSince1970, id])
    }

    static func clearNextAttempts(_ db: Database) throws {
        try db.execute(sql: "UPDATE publishTarget SET nextAttempt = NULL WHERE nextAttempt IS NOT NULL")
    }
}

/// The `publishedEvent` table (migration `v11-publish`): every resource a
/// target wrote, with its href, entity tag and the hash of its bytes.
enum PublishedEventRecord {
    /// What the target `targetId` published, by UID.
    static func all(targetId: Int64, _ db: Database) throws -> [String: PublishedEvent] {
        var events: [String: PublishedEvent] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT uid, href, etag, hash FROM publishedEvent WHERE targetId = ?", arguments: [targetId])
        while let row = try rows.next() {
            let event = PublishedEvent(uid: row[0], href: row[1], etag: row[2], hash: row[3])
            events[event.uid] = event
        }
        return events
    }

    static func upsert(targetId: Int64, _ event: PublishedEvent, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO publishedEvent (targetId, uid, href, etag, hash) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (targetId, uid) DO UPDATE SET href = excluded.href, etag = excluded.etag, hash = excluded.hash
                """,
            arguments: [targetId, event.uid, event.href, event.etag, event.hash]
        )
    }

    static func delete(targetId: Int64, uid: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM publishedEvent WHERE targetId = ? AND uid = ?", arguments: [targetId, uid])
    }

    static func count(targetId: Int64, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM publishedEvent WHERE targetId = ?", arguments: [targetId]) ?? 0
    }
}
