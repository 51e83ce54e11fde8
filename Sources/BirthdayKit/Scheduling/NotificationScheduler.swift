import Foundation
import Logging

/// What one reschedule did.
public struct RescheduleResult: Sendable, Equatable {
    /// The authorization status it found.
    public var status: AuthorizationStatus
    /// The requests now pending, soonest first (empty when not allowed).
    public var requests: [NotificationRequest]
    /// The zone the fire instants were computed in.
    public var timeZone: TimeZone

    public init(status: AuthorizationStatus, requests: [NotificationRequest], timeZone: TimeZone) {
        self.status = status
        self.requests = requests
        self.timeZone = timeZone
    }

    /// How many requests are pending.
    public var scheduled: Int { requests.count }
    /// How many different people have a pending request.
    public var people: Int { Set(requests.map(\.personID)).count }
    /// The soonest fire instant.
    public var first: Date? { requests.first?.fireAt }
    /// The latest fire instant.
    public var last: Date? { requests.last?.fireAt }
}

/// Keeps the pending reminders in step with people, settings and the clock.
///
/// ``reschedule()`` does this, in one write transaction:
/// 1. moves every pending request whose instant has come (fire instant not
///    after now) into the delivery ledger as `queued`, so a reschedule while
///    the daemon is stopped never silently drops a due reminder: the daemon
///    delivers it late or records it as missed (see ``DeliveryEngine``);
///    then removes every pending request;
/// 2. stops there (nothing pending) unless notifications are allowed
///    (`authorized` or `provisional`), and logs that;
/// 3. ranks the upcoming birthdays and anniversaries and makes up to two
///    requests each (day before and day of, at the delivery time in the
///    user's zone), skipping any whose instant is not in the future, and keeps
///    the soonest 64 (see ``ReminderPlanner`` and ``FireTime`` for the DST and
///    Feb 29 rules, and ``PendingNotificationStore`` for the cap), and drops
///    those already in the delivery ledger for the same occurrence (delivered,
///    dismissed, …), so re-adding a request can never send it twice;
/// 4. logs how many were scheduled, never a name or a date of birth.
///
/// The clock and the system time zone are injected; the `time-zone` setting,
/// when set, overrides the system zone.
public actor NotificationScheduler {
    private let database: AppDatabase
    private let now: @Sendable () -> Date
    private let systemTimeZone: @Sendable () -> TimeZone
    private let logger: Logger

    /// - Parameters:
    ///   - database: the store holding people, settings and pending requests.
    ///   - now: the current instant.
    ///   - systemTimeZone: the zone to use when the `time-zone` setting is `system`.
    ///   - logger: receives counts and statuses only.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date, systemTimeZone: @escaping @Sendable () -> TimeZone, logger: Logger) {
        self.database = database
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.logger = logger
    }

    /// Replaces the pending requests with the soonest 64 future reminders (see the type's documentation).
    @discardableResult
    public func reschedule() throws(StoreError) -> RescheduleResult {
        let instant = now()
        let system = systemTimeZone()
        let result = try database.write { db in
            try AppDatabase.enqueueDuePending(now: instant, db: db)
            try AppDatabase.removeAllPending(db)
            let settings = try AppDatabase.settings(db)
            let zone = settings.resolvedTimeZone(system: system)
            let status = try AppDatabase.authorizationStatus(db)
            guard status.allowsScheduling else {
                return RescheduleResult(status: status, requests: [], timeZone: zone)
            }
            var planner = ReminderPlanner(settings: settings, timeZone: zone, now: instant)
            try AppDatabase.offerDatedPeople(db, anniversaries: settings.anniversaries, to: &planner)
            let planned = planner.requests()
            let known = try AppDatabase.ledgerKeys(since: planned.map(\.occurrenceDate).min() ?? LocalDate.today(at: instant, in: zone), db: db)
            let requests = known.isEmpty ? planned : planned.filter { !known.contains($0.id + "|" + $0.occurrenceDate.description) }
            for request in requests {
                try AppDatabase.savePending(request, db: db)
            }
            return RescheduleResult(status: status, requests: requests, timeZone: zone)
        }
        if result.status.allowsScheduling {
            logger.info("rescheduled reminders", metadata: ["scheduled": "\(result.scheduled)", "people": "\(result.people)", "status": "\(result.status.rawValue)"])
        } else {
            logger.info("notifications not allowed; no reminders pending", metadata: ["status": "\(result.status.rawValue)"])
        }
        return result
    }
}
