import BirthdayCore
import Foundation
import GRDB

@testable import BirthdayStore

/// The reference model of the local notification center, for tests: what
/// adding one request at a time to a phone's pending-notification store does.
/// The scheduler keeps the same rules by planning the soonest 64 at once
/// (``ReminderPlanner``); the tests check the two agree.
///
/// It mirrors iOS's pending-notification store:
/// - Adding a request with an id that is already pending replaces it.
/// - A request is silently dropped when notifications are not allowed
///   (``AuthorizationStatus/isAllowed``) or when its fire instant is
///   not after `now` (a one-shot trigger in the past never fires).
///
/// ## The cap of 64
/// At most ``capacity`` (64) requests are pending. Adding a new id while 64
/// are pending keeps the soonest 64, as Apple documents for local notifications:
/// - if the new request fires before the latest pending one, the latest
///   pending one is evicted and the new one is added (``AddOutcome/evicted(id:)``);
/// - otherwise (it fires at or after every pending one) it is rejected
///   (``AddOutcome/rejectedFull``) and nothing changes.
///
/// "Sooner" is ``NotificationRequest/firesBefore(_:_:)``, a total order (fire
/// instant, event day, kind, person id, timing), so the outcome never depends
/// on the order of additions: adding any set of requests one by one leaves
/// the soonest 64 of them pending.
struct PendingNotificationStore: Sendable {
    /// The most requests that can be pending at once, as on iOS.
    static let capacity = NotificationRequest.pendingLimit

    /// What ``add(_:now:)`` did.
    enum AddOutcome: Sendable, Equatable {
        /// Added; fewer than 64 were pending.
        case added
        /// A pending request with the same id was replaced.
        case replaced
        /// Added, and the pending request with this id, the latest of them, was removed to make room.
        case evicted(id: String)
        /// Not added: 64 are pending and all of them fire no later than it.
        case rejectedFull
        /// Not added: its fire instant is not after `now`.
        case droppedPast
        /// Not added: notifications are not allowed.
        case droppedNotAuthorized
    }

    let database: AppDatabase

    /// Decides what adding `request` does to `pending`, applying the rules above (no I/O).
    static func admit(
        _ request: NotificationRequest,
        to pending: [NotificationRequest],
        now: Date,
        status: AuthorizationStatus,
        capacity: Int = PendingNotificationStore.capacity
    ) -> AddOutcome {
        guard status.isAllowed else { return .droppedNotAuthorized }
        guard request.fireAt > now else { return .droppedPast }
        if pending.contains(where: { $0.id == request.id }) { return .replaced }
        guard pending.count >= capacity else { return .added }
        guard let latest = pending.max(by: NotificationRequest.firesBefore), NotificationRequest.firesBefore(request, latest) else {
            return .rejectedFull
        }
        return .evicted(id: latest.id)
    }

    /// Adds (or replaces) one request, in its own transaction.
    @discardableResult
    func add(_ request: NotificationRequest, now: Date) throws -> AddOutcome {
        try database.writeNow { db in
            let outcome = PendingNotificationStore.admit(
                request,
                to: try PendingNotificationRecord.requests(db),
                now: now,
                status: try SettingRecord.authorizationStatus(db)
            )
            switch outcome {
            case .added, .replaced:
                try PendingNotificationRecord.save(request, db)
            case .evicted(let id):
                try PendingNotificationRecord.remove(ids: [id], db)
                try PendingNotificationRecord.save(request, db)
            case .rejectedFull, .droppedPast, .droppedNotAuthorized:
                break
            }
            return outcome
        }
    }

    /// The pending requests, soonest first.
    func pending() throws -> [NotificationRequest] {
        try database.readNow { db in try PendingNotificationRecord.requests(db) }
    }

    /// How many requests are pending.
    func count() throws -> Int {
        try database.readNow { db in try PendingNotificationRecord.fetchCount(db) }
    }

    /// Removes the requests with these ids (unknown ids are ignored).
    func remove(ids: [String]) throws {
        try database.writeNow { db in try PendingNotificationRecord.remove(ids: ids, db) }
    }

    /// Removes every pending request.
    func removeAll() throws {
        try database.writeNow { db in _ = try PendingNotificationRecord.deleteAll(db) }
    }

    func authorizationStatus() throws -> AuthorizationStatus {
        try database.readNow { db in try SettingRecord.authorizationStatus(db) }
    }

    func setAuthorizationStatus(_ status: AuthorizationStatus) throws {
        try database.writeNow { db in try SettingRecord.set(status.rawValue, for: .authorization, db) }
    }
}
