import BirthdayCore
import Foundation
import GRDB

/// The notification center's state: the permission, the pending reminders
/// and what the delivery ledger says (for `pending`, `status` and `notifications`).
extension AppDatabase {
    /// The stored permission; `notDetermined` until one is set.
    package func authorizationStatus() async throws(StoreError) -> AuthorizationStatus {
        try await read { db in try SettingRecord.authorizationStatus(db) }
    }

    /// Stores the permission. Pending reminders are not touched: reschedule
    /// afterwards (``NotificationScheduler/reschedule()``) to apply it.
    package func setAuthorizationStatus(_ status: AuthorizationStatus) async throws(StoreError) {
        try await write { db in try SettingRecord.set(status.rawValue, for: .authorization, db) }
    }

    /// The pending reminders, soonest first.
    package func pendingRequests() async throws(StoreError) -> [NotificationRequest] {
        try await read { db in try PendingNotificationRecord.requests(db) }
    }

    /// What `birthdays pending` lists: the pending requests and the snoozes
    /// waiting for their instant, soonest first, each with its short id.
    package func pendingReminders() async throws(StoreError) -> [PendingReminder] {
        try await read { db in
            let requests = try PendingNotificationRecord.requests(db).map { (request: $0, snoozed: false) }
            let snoozes = try DeliveryRecord.queuedSnoozes(db).map { (request: $0.request, snoozed: true) }
            let all = (requests + snoozes).sorted { NotificationRequest.firesBefore($0.request, $1.request) }
            let ids = try SettingRecord.publicIDs(db)
            let known = Array(try DeliveryLedger.known(db).keys)
            let short = ids.shortReminderIDs(all.map(\.request.id), among: known, minimumDigits: DeliveryLedger.shortIDDigits)
            return all.map { item in
                PendingReminder(
                    request: item.request,
                    snoozed: item.snoozed,
                    shortID: short[item.request.id] ?? ids.reminder(item.request.id),
                    publicID: ids.reminder(item.request.id)
                )
            }
        }
    }

    /// The names of the people with `ids`, by id (for a terminal only: names never go to a log).
    package func names(ids: [String]) async throws(StoreError) -> [String: String] {
        try await read { db in try PersonRecord.names(ids: ids, db) }
    }

    /// Ledger rows changed at or after `since`, oldest first.
    package func deliveries(updatedSince since: Date) async throws(StoreError) -> [DeliveryEntry] {
        try await read { db in try DeliveryRecord.entries(updatedSince: since, db) }
    }

    /// The last delivered reminder.
    package func lastDelivery() async throws(StoreError) -> DeliveryEntry? {
        try await read { db in try DeliveryRecord.lastDelivered(db) }
    }

    /// The keyed hash that turns ids into the ones logs and `status` show
    /// (``PublicID``); its secret lives in the database and is never shown.
    package func publicIDs() async throws(StoreError) -> PublicID {
        if let ids = try await read({ db in try SettingRecord.value(.publicIDKey, db).flatMap(PublicID.init(hexKey:)) }) { return ids }
        return try await write { db in try SettingRecord.publicIDs(db) }
    }

    /// The soonest instant the ledger needs work (a snooze or a retry).
    package func nextLedgerWork() async throws(StoreError) -> Date? {
        try await read { db in try DeliveryRecord.nextWork(db) }
    }
}

/// One line of `birthdays pending`: a pending request, or a snooze waiting
/// in the ledger for its instant.
package struct PendingReminder: Sendable, Equatable {
    /// The reminder; for a snooze its id ends in `-snooze` and it fires at the snooze's end.
    package var request: NotificationRequest
    /// Whether this is a snooze.
    package var snoozed: Bool
    /// The shortest start of ``publicID`` that names it alone (at least 4
    /// hex digits, `-snooze` kept): what `snooze`, `dismiss` and `show` take.
    package var shortID: String
    /// Its public id (``PublicID``), as logs and `status` show it.
    package var publicID: String

    package init(request: NotificationRequest, snoozed: Bool, shortID: String, publicID: String) {
        self.request = request
        self.snoozed = snoozed
        self.shortID = shortID
        self.publicID = publicID
    }
}
