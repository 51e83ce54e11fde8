import Foundation

/// The local notification center: the pending reminders and the
/// notification authorization status, persisted in the ``AppDatabase``
/// (table `pendingNotification`, migration `v2-notifications`).
///
/// It mirrors iOS's pending-notification store:
/// - Adding a request with an id that is already pending replaces it.
/// - A request is silently dropped when notifications are not allowed
///   (``AuthorizationStatus/allowsScheduling``) or when its fire instant is
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
public struct PendingNotificationStore: Sendable {
    /// The most requests that can be pending at once, as on iOS.
    public static let capacity = 64

    /// What ``add(_:now:)`` did.
    public enum AddOutcome: Sendable, Equatable {
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

    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Decides what adding `request` does to `pending`, applying the rules above (no I/O).
    public static func admit(
        _ request: NotificationRequest,
        to pending: [NotificationRequest],
        now: Date,
        status: AuthorizationStatus,
        capacity: Int = PendingNotificationStore.capacity
    ) -> AddOutcome {
        guard status.allowsScheduling else { return .droppedNotAuthorized }
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
    public func add(_ request: NotificationRequest, now: Date) throws(StoreError) -> AddOutcome {
        try database.write { db in
            let outcome = PendingNotificationStore.admit(
                request,
                to: try AppDatabase.pendingRequests(db),
                now: now,
                status: try AppDatabase.authorizationStatus(db)
            )
            switch outcome {
            case .added, .replaced:
                try AppDatabase.savePending(request, db: db)
            case .evicted(let id):
                try AppDatabase.removePending(ids: [id], db: db)
                try AppDatabase.savePending(request, db: db)
            case .rejectedFull, .droppedPast, .droppedNotAuthorized:
                break
            }
            return outcome
        }
    }

    /// The pending requests, soonest first.
    public func pending() throws(StoreError) -> [NotificationRequest] {
        try database.read { db in try AppDatabase.pendingRequests(db) }
    }

    /// How many requests are pending.
    public func count() throws(StoreError) -> Int {
        try database.read { db in try AppDatabase.pendingCount(db) }
    }

    /// Removes the requests with these ids (unknown ids are ignored).
    public func remove(ids: [String]) throws(StoreError) {
        try database.write { db in try AppDatabase.removePending(ids: ids, db: db) }
    }

    /// Removes every pending request.
    public func removeAll() throws(StoreError) {
        try database.write { db in try AppDatabase.removeAllPending(db) }
    }

    /// The stored authorization status; `notDetermined` until one is set.
    public func authorizationStatus() throws(StoreError) -> AuthorizationStatus {
        try database.read { db in try AppDatabase.authorizationStatus(db) }
    }

    /// Stores the authorization status. Pending requests are not touched:
    /// reschedule afterwards (``NotificationScheduler/reschedule()``) to apply it.
    public func setAuthorizationStatus(_ status: AuthorizationStatus) throws(StoreError) {
        try database.write { db in try AppDatabase.setAuthorizationStatus(status, db: db) }
    }
}
