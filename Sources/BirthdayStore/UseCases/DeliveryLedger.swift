import BirthdayCore
import Foundation
import GRDB

/// The user's actions on delivered reminders, recorded in the delivery
/// ledger: snooze and dismiss. The running daemon picks them up on its next
/// pass (the CLI sends it SIGHUP; the desktop channel's buttons go straight
/// to the daemon).
public struct DeliveryLedger: Sendable {
    /// The suffix of a snoozed copy's notification id: `<id>-snooze`.
    public static let snoozeSuffix = DeliveryEntry.snoozeSuffix

    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// The reminder id without a `-snooze` suffix.
    public static func baseID(_ id: String) -> String {
        id.hasSuffix(snoozeSuffix) ? String(id.dropLast(snoozeSuffix.count)) : id
    }

    /// The reminder id `id` stands for: `id` itself, or, for a public id
    /// (`r-…` from a log line or `birthdays status`), the id of the ledger
    /// row or pending request whose ``PublicID`` it is, without `-snooze`.
    static func resolve(_ id: String, _ db: Database) throws -> String {
        let base = baseID(id)
        guard PublicID.looksPublic(base), base.hasPrefix("r-") else { return base }
        let ids = try SettingRecord.publicIDs(db)
        let known = Set(try DeliveryRecord.notificationIDs(db).map(baseID) + PendingNotificationRecord.ids(db))
        return known.first { ids.reminder($0) == base } ?? base
    }

    /// Shows reminder `id` again at `until`: a one-shot ledger row
    /// `<id>-snooze` for the same occurrence, with the same title and body.
    /// It lives in the ledger, not among the pending requests, so a
    /// reschedule does not remove it. Snoozing again moves it.
    ///
    /// - Returns: the queued snooze, or `nil` when no reminder has that id
    ///   (neither delivered nor pending).
    @discardableResult
    public func snooze(id: String, until: Date, now: Date) async throws(StoreError) -> DeliveryEntry? {
        try await database.write { db -> DeliveryEntry? in
            let base = try Self.resolve(id, db)
            let source =
                try DeliveryRecord.latest(id: base, db)
                ?? PendingNotificationRecord.requests(db).first { $0.id == base }.map { DeliveryEntry(queued: $0, at: now) }
            guard var entry = source else { return nil }
            entry.notificationID = base + Self.snoozeSuffix
            entry.fireAt = until
            entry.state = .queued
            entry.late = false
            entry.attempts = 0
            entry.nextAttemptAt = nil
            entry.channels = nil
            entry.lastError = nil
            entry.deliveredAt = nil
            entry.updatedAt = now
            if try !DeliveryRecord.insertIfAbsent(entry, db) {
                try DeliveryRecord.requeue(entry, now: now, db)
            }
            return entry
        }
    }

    /// Marks reminder `id` (and its snooze) dismissed for its latest
    /// occurrence: it is not sent, retried or snoozed any more. A reminder
    /// still pending is recorded as dismissed and removed from pending, so no
    /// reschedule brings it back for that occurrence.
    ///
    /// `id` is the reminder's id or its public id (``resolve(_:_:)``).
    ///
    /// - Returns: how many ledger rows it changed or added (0: unknown id).
    @discardableResult
    public func dismiss(id: String, now: Date) async throws(StoreError) -> Int {
        try await database.write { db -> Int in
            let base = try Self.resolve(id, db)
            var changed = 0
            if let pending = try PendingNotificationRecord.requests(db).first(where: { $0.id == base }) {
                var entry = DeliveryEntry(queued: pending, at: now)
                entry.state = .dismissed
                if try DeliveryRecord.insertIfAbsent(entry, db) { changed += 1 }
                try PendingNotificationRecord.remove(ids: [base], db)
            }
            changed += try DeliveryRecord.dismiss(ids: [base, base + Self.snoozeSuffix], now: now, db)
            return changed
        }
    }
}
