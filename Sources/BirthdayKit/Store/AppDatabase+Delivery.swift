import Foundation
import GRDB

/// Database access for the delivery ledger (table `delivery`), usable inside
/// a caller's transaction. The rules are documented on ``DeliveryEngine``.
extension AppDatabase {
    /// Moves every pending request whose instant is not after `now` into the
    /// ledger as `queued` (INSERT OR IGNORE: a request already in the ledger
    /// for the same occurrence is not queued again) and removes it from pending.
    ///
    /// - Returns: how many rows were added to the ledger.
    @discardableResult
    static func enqueueDuePending(now: Date, db: Database) throws -> Int {
        let due = try PendingNotificationRecord
            .filter(PendingNotificationRecord.Columns.fireAt <= now.timeIntervalSince1970)
            .fetchAll(db)
        var added = 0
        for record in due {
            guard let request = record.request else { continue }
            if try insertIfAbsent(DeliveryEntry(queued: request, at: now), db: db) { added += 1 }
        }
        _ = try PendingNotificationRecord.deleteAll(db, keys: due.map(\.id))
        return added
    }

    /// Inserts `entry` unless a row with its key exists; whether it did.
    static func insertIfAbsent(_ entry: DeliveryEntry, db: Database) throws -> Bool {
        let record = DeliveryRecord(entry)
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO delivery (notificationId, occurrenceDate, personId, kind, whenKind, fireAt, title, body, userInfo,
                    state, late, attempts, nextAttemptAt, channels, lastError, deliveredAt, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                record.notificationId, record.occurrenceDate, record.personId, record.kind, record.whenKind, record.fireAt, record.title,
                record.body, record.userInfo, record.state, record.late, record.attempts, record.nextAttemptAt, record.channels,
                record.lastError, record.deliveredAt, record.updatedAt,
            ]
        )
        return db.changesCount == 1
    }

    /// The ledger keys (`id|YYYY-MM-DD`) of occurrences on or after `since`.
    static func ledgerKeys(since: LocalDate, db: Database) throws -> Set<String> {
        let rows = try Row.fetchAll(db, sql: "SELECT notificationId, occurrenceDate FROM delivery WHERE occurrenceDate >= ?", arguments: [since.description])
        return Set(rows.map { ($0[0] as String) + "|" + ($0[1] as String) })
    }

    /// Rows to work on now: queued ones whose instant has come and retrying
    /// ones whose next attempt has come, oldest first.
    static func workableEntries(now: Date, db: Database) throws -> [DeliveryEntry] {
        let t = now.timeIntervalSince1970
        return try DeliveryRecord.fetchAll(
            db,
            sql: """
                SELECT * FROM delivery
                WHERE (state = 'queued' AND fireAt <= ?) OR (state = 'retrying' AND nextAttemptAt <= ?)
                ORDER BY fireAt, notificationId
                """,
            arguments: [t, t]
        ).compactMap(\.entry)
    }

    /// Claims a row for sending: `queued`/`retrying` → `sending`. Only the
    /// caller that changed the row may send it.
    static func claim(_ entry: DeliveryEntry, now: Date, db: Database) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE delivery SET state = 'sending', updatedAt = ?
                WHERE notificationId = ? AND occurrenceDate = ? AND state IN ('queued', 'retrying')
                """,
            arguments: [now.timeIntervalSince1970, entry.notificationID, entry.occurrenceDate.description]
        )
        return db.changesCount == 1
    }

    /// Writes every column of `entry` (its row exists).
    static func saveEntry(_ entry: DeliveryEntry, db: Database) throws {
        try DeliveryRecord(entry).update(db)
    }

    /// Turns every `sending` row into `interrupted`; how many.
    static func interruptSending(now: Date, db: Database) throws -> Int {
        try db.execute(
            sql: """
                UPDATE delivery SET state = 'interrupted', updatedAt = ?,
                    lastError = 'birthdays stopped while delivering it; not sent again (at most once)'
                WHERE state = 'sending'
                """,
            arguments: [now.timeIntervalSince1970]
        )
        return db.changesCount
    }

    /// The soonest instant a ledger row needs work: a queued (snoozed) row's
    /// instant or a retry.
    static func nextLedgerWork(db: Database) throws -> Date? {
        let value = try Double.fetchOne(
            db,
            sql: """
                SELECT MIN(t) FROM (
                    SELECT MIN(fireAt) AS t FROM delivery WHERE state = 'queued'
                    UNION ALL SELECT MIN(nextAttemptAt) FROM delivery WHERE state = 'retrying')
                """
        )
        return value.map(Date.init(timeIntervalSince1970:))
    }

    static func entries(updatedSince: Date, db: Database) throws -> [DeliveryEntry] {
        try DeliveryRecord.fetchAll(db, sql: "SELECT * FROM delivery WHERE updatedAt >= ? ORDER BY updatedAt, notificationId", arguments: [updatedSince.timeIntervalSince1970])
            .compactMap(\.entry)
    }

    /// The most recent ledger row for a notification id (or a snooze of it).
    static func latestEntry(id: String, db: Database) throws -> DeliveryEntry? {
        try DeliveryRecord.fetchOne(
            db,
            sql: "SELECT * FROM delivery WHERE notificationId = ? ORDER BY occurrenceDate DESC, updatedAt DESC LIMIT 1",
            arguments: [id]
        )?.entry
    }
}

/// The delivery ledger's public face for the CLI (`status`, `snooze`, `dismiss`).
extension AppDatabase {
    /// Ledger rows changed at or after `since`, oldest first.
    public func deliveries(updatedSince since: Date) throws(StoreError) -> [DeliveryEntry] {
        try read { db in try AppDatabase.entries(updatedSince: since, db: db) }
    }

    /// The last delivered row.
    public func lastDelivery() throws(StoreError) -> DeliveryEntry? {
        try read { db in
            try DeliveryRecord.fetchOne(db, sql: "SELECT * FROM delivery WHERE state = 'delivered' ORDER BY deliveredAt DESC LIMIT 1")?.entry
        }
    }

    /// The soonest instant the ledger needs work (snooze or retry).
    public func nextLedgerWork() throws(StoreError) -> Date? {
        try read { db in try AppDatabase.nextLedgerWork(db: db) }
    }
}
