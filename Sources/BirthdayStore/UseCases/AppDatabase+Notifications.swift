import BirthdayCore
import Foundation
import GRDB

/// The notification center's state: the permission, the pending reminders
/// and what the delivery ledger says (for `pending`, `status` and `notifications`).
extension AppDatabase {
    /// The stored permission; `notDetermined` until one is set.
    public func authorizationStatus() async throws(StoreError) -> AuthorizationStatus {
        try await read { db in try SettingRecord.authorizationStatus(db) }
    }

    /// Stores the permission. Pending reminders are not touched: reschedule
    /// afterwards (``NotificationScheduler/reschedule()``) to apply it.
    public func setAuthorizationStatus(_ status: AuthorizationStatus) async throws(StoreError) {
        try await write { db in try SettingRecord.set(status.rawValue, for: .authorization, db) }
    }

    /// The pending reminders, soonest first.
    public func pendingRequests() async throws(StoreError) -> [NotificationRequest] {
        try await read { db in try PendingNotificationRecord.requests(db) }
    }

    /// Ledger rows changed at or after `since`, oldest first.
    public func deliveries(updatedSince since: Date) async throws(StoreError) -> [DeliveryEntry] {
        try await read { db in try DeliveryRecord.entries(updatedSince: since, db) }
    }

    /// The last delivered reminder.
    public func lastDelivery() async throws(StoreError) -> DeliveryEntry? {
        try await read { db in try DeliveryRecord.lastDelivered(db) }
    }

    /// The keyed hash that turns ids into the ones logs and `status` show
    /// (``PublicID``); its secret lives in the database and is never shown.
    public func publicIDs() async throws(StoreError) -> PublicID {
        if let ids = try await read({ db in try SettingRecord.value(.publicIDKey, db).flatMap(PublicID.init(hexKey:)) }) { return ids }
        return try await write { db in try SettingRecord.publicIDs(db) }
    }

    /// The soonest instant the ledger needs work (a snooze or a retry).
    public func nextLedgerWork() async throws(StoreError) -> Date? {
        try await read { db in try DeliveryRecord.nextWork(db) }
    }
}
