import Foundation
import GRDB
import Logging

/// Delivers due reminders exactly once per occurrence, retries failed
/// channels, records what it could not deliver, and keeps the pending
/// requests topped up.
///
/// ## One pass (``runOnePass()``)
/// 1. Every pending request whose instant has come moves into the delivery
///    ledger as `queued`, in one transaction with its removal from pending
///    (INSERT OR IGNORE on the key (notification id, occurrence date)).
/// 2. Each ledger row that is queued and due, or retrying and due, is
///    handled (only while notifications are allowed):
///    - **Missed rule.** A queued row whose fire instant fell on an earlier
///      local day than now (in the user's zone) — the machine slept or the
///      daemon was stopped through the rest of that day — is recorded as
///      `missed` and not sent: a "today is Ada's birthday" reminder is never
///      shown the day after. If it is still the same local day, it is
///      delivered, flagged late (``Reminder/late``) when it is more than
///      ``Configuration/lateAfter`` past its instant.
///    - **Exactly once.** The row is claimed with
///      `UPDATE … SET state = 'sending' WHERE … AND state IN ('queued', 'retrying')`;
///      only the caller that changed the row sends it, so two engines (or a
///      daemon and `birthdays deliver --once`) never send the same reminder.
///      Because the key holds the occurrence date, a reschedule that re-adds a
///      request already in the ledger is skipped (``NotificationScheduler``).
///    - **Retry.** When every channel took it, the row is `delivered`.
///      Otherwise only the failed channels are retried after the
///      ``RetryPolicy`` delays (30 s, 1, 2, 5, 15 min, then every 15 min)
///      until the end of the due day, after which the row is `failed`.
///    - **Stopping.** Cancelling ``run(events:)`` (what `birthdays run` does
///      on SIGTERM or SIGINT) never cuts a hand-over short: the reminder being
///      sent is finished and recorded first (a command channel may take its
///      30 s timeout and 2 s kill grace), and the pass stops before the next
///      one, which stays queued for the next start. A process killed outright
///      (`deliver --once` has no signal handling) leaves the row `sending`,
///      handled as below.
///    - **At most once after a crash.** A row found in `sending` when an
///      engine starts (``recoverInterrupted()``) means a daemon died while
///      handing it over; whether the channel showed it is unknown, so it is
///      marked `interrupted`, logged and shown by `birthdays status`, and
///      not sent again. A duplicate birthday greeting is worse than one
///      reported as possibly lost.
/// 3. The pending requests are rescheduled (backfilled to 64).
///
/// ## Waking up
/// ``run(events:)`` sleeps on the injected clock until ``nextWakeup()`` —
/// the soonest of the next pending instant, the next snooze or retry and the
/// next local midnight (when the day rolls over and the planner moves on) —
/// or until an event arrives (clock change, resume, time-zone change,
/// SIGHUP, snooze, dismiss). There is no polling.
///
/// Logs carry counts and instants, never a name, title, body or date of birth.
public actor DeliveryEngine {
    public struct Configuration: Sendable {
        public var retryPolicy = RetryPolicy()
        /// Delivered more than this after its instant is late. Default 60 s.
        public var lateAfter: Duration = .seconds(60)

        public init() {}
    }

    /// Something that should make the engine look again now.
    public enum Event: Sendable, Hashable {
        case wake(WakeReason)
        /// SIGHUP: settings may have changed.
        case reload
        /// Show this reminder again after this long.
        case snooze(id: String, duration: Duration)
        /// The user is done with this reminder.
        case dismiss(id: String)
    }

    /// The channels for the current settings and permission (the CLI keeps
    /// long-lived channels and chooses among them).
    public typealias ChannelFactory = @Sendable (Settings, AuthorizationStatus) -> ChannelSet

    /// What one pass did.
    public struct PassResult: Sendable, Equatable {
        public var status: AuthorizationStatus = .notDetermined
        /// Rows added to the ledger because their instant came.
        public var queued = 0
        public var delivered = 0
        /// Of ``delivered``, how many were late.
        public var late = 0
        public var retrying = 0
        public var failed = 0
        public var missed = 0
        /// Rows another engine claimed first.
        public var skipped = 0
        /// Pending requests after the reschedule.
        public var scheduled = 0
    }

    private let database: AppDatabase
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let systemTimeZone: @Sendable () -> TimeZone
    private let channels: ChannelFactory
    private let configuration: Configuration
    private let logger: Logger

    private var sleeper: Task<Void, any Error>?
    private var poked = false
    private var warnedNotAllowed = false
    /// How many passes have completed (observable by tests).
    public private(set) var passes = 0

    /// - Parameters:
    ///   - database: people, settings, pending requests and the ledger.
    ///   - clock: what ``run(events:)`` sleeps on.
    ///   - now: the current instant.
    ///   - systemTimeZone: the system zone, read again on every pass.
    ///   - channels: makes the channel set for a pass.
    ///   - logger: receives counts, never names.
    public init(
        database: AppDatabase,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        channels: @escaping ChannelFactory,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.database = database
        self.clock = clock
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.channels = channels
        self.configuration = configuration
        self.logger = logger
    }

    /// Marks rows left in `sending` by a crashed daemon as `interrupted`
    /// (not resent; see the type's documentation). Call once at start, while
    /// holding the daemon lock.
    @discardableResult
    public func recoverInterrupted() throws(StoreError) -> Int {
        let instant = now()
        let count = try database.write { db in try AppDatabase.interruptSending(now: instant, db: db) }
        if count > 0 {
            logger.warning("reminders interrupted by an earlier stop were not resent (at most once)", metadata: ["interrupted": "\(count)"])
        }
        return count
    }

    /// Collects what is due, delivers, retries or records misses, then reschedules.
    @discardableResult
    public func runOnePass() async throws(StoreError) -> PassResult {
        let start = now()
        let system = systemTimeZone()
        var result = PassResult()
        let (settings, status, queued) = try database.write { db in
            (try AppDatabase.settings(db), try AppDatabase.authorizationStatus(db), try AppDatabase.enqueueDuePending(now: start, db: db))
        }
        result.status = status
        result.queued = queued
        let zone = settings.resolvedTimeZone(system: system)
        if status.allowsScheduling {
            warnedNotAllowed = false
            let set = channels(settings, status)
            let work = try database.read { db in try AppDatabase.workableEntries(now: start, db: db) }
            for entry in work {
                // Stopping (a cancelled task) ends the pass between reminders;
                // the rest stay queued for the next start.
                if Task.isCancelled { break }
                await handle(entry, set: set, zone: zone, result: &result)
            }
        } else if !warnedNotAllowed {
            warnedNotAllowed = true
            logger.notice("notifications are not enabled; nothing is delivered or scheduled", metadata: ["status": "\(status.rawValue)"])
        }
        let scheduler = NotificationScheduler(database: database, now: now, systemTimeZone: { system }, logger: logger)
        result.scheduled = try await scheduler.reschedule().scheduled
        passes += 1
        logger.info(
            "delivery pass",
            metadata: [
                "queued": "\(result.queued)", "delivered": "\(result.delivered)", "late": "\(result.late)",
                "retrying": "\(result.retrying)", "failed": "\(result.failed)", "missed": "\(result.missed)",
                "skipped": "\(result.skipped)", "scheduled": "\(result.scheduled)",
            ]
        )
        return result
    }

    private func handle(_ original: DeliveryEntry, set: ChannelSet, zone: TimeZone, result: inout PassResult) async {
        var entry = original
        let instant = now()
        let dueDay = LocalDate.today(at: entry.fireAt, in: zone)
        let today = LocalDate.today(at: instant, in: zone)
        do {
            if entry.state == .queued, dueDay < today {
                entry.state = .missed
                entry.lastError = "it came due while birthdays was not running and the day had ended"
                entry.updatedAt = instant
                if try database.write({ db in try AppDatabase.finish(entry, from: ["queued"], db: db) }) { result.missed += 1 }
                return
            }
            let deadline = RetryPolicy.deadline(dueDay: dueDay, in: zone)
            if entry.state == .retrying, instant >= deadline {
                entry.state = .failed
                entry.nextAttemptAt = nil
                entry.updatedAt = instant
                if try database.write({ db in try AppDatabase.finish(entry, from: ["retrying"], db: db) }) { result.failed += 1 }
                return
            }
            guard try database.write({ db in try AppDatabase.claim(entry, now: instant, db: db) }) else {
                result.skipped += 1
                return
            }
            let late = entry.late || instant.timeIntervalSince(entry.fireAt) > RetryPolicy.seconds(configuration.lateAfter)
            let reminder = entry.reminder(timeZone: zone, late: late)
            // Once claimed, a reminder is handed over in full even when the
            // daemon is being stopped: the hand-over runs in a task of its own,
            // which the caller's cancellation does not reach. Cut short, a
            // desktop notification could already be on screen while the row
            // says it failed, and the retry would show it twice.
            let only = entry.channels.map(Set.init)
            let outcomes = await Task { await set.deliverEach(reminder, only: only) }.value
            let failures = outcomes.compactMap { outcome in outcome.error.map { ChannelFailure(channel: outcome.channel, error: $0) } }
            let finished = now()
            entry.attempts += 1
            entry.late = late
            entry.updatedAt = finished
            if outcomes.isEmpty {
                entry.state = .failed
                entry.lastError = "no notification channel is enabled"
                result.failed += 1
            } else if failures.isEmpty {
                entry.state = .delivered
                entry.deliveredAt = finished
                entry.nextAttemptAt = nil
                entry.channels = nil
                entry.lastError = nil
                result.delivered += 1
                if late { result.late += 1 }
            } else {
                entry.lastError = DeliveryError.channelsFailed(failures).description
                switch configuration.retryPolicy.decide(afterFailures: entry.attempts, failedAt: finished, deadline: deadline) {
                case .retry(let at):
                    entry.state = .retrying
                    entry.nextAttemptAt = at
                    entry.channels = failures.map(\.channel)
                    result.retrying += 1
                case .giveUp:
                    entry.state = .failed
                    entry.nextAttemptAt = nil
                    result.failed += 1
                }
                logger.warning("reminder delivery failed", metadata: ["id": "\(entry.notificationID)", "error": "\(entry.lastError ?? "")", "attempts": "\(entry.attempts)"])
            }
            _ = try database.write { db in try AppDatabase.finish(entry, from: ["sending"], db: db) }
        } catch {
            logger.error("cannot update the delivery ledger", metadata: ["error": "\(error)"])
        }
    }

    /// The next instant the engine has work: the soonest of the next pending
    /// fire instant, the next snooze or retry, and the next local midnight.
    /// Never earlier than one second from now.
    public func nextWakeup() throws(StoreError) -> Date {
        let instant = now()
        let system = systemTimeZone()
        let (settings, pending, ledger) = try database.read { db in
            (try AppDatabase.settings(db), try PendingNotificationRecord.order(PendingNotificationRecord.Columns.fireAt).fetchOne(db)?.fireAt,
             try AppDatabase.nextLedgerWork(db: db))
        }
        let zone = settings.resolvedTimeZone(system: system)
        let midnight = RetryPolicy.deadline(dueDay: LocalDate.today(at: instant, in: zone), in: zone)
        let candidates = [pending.map(Date.init(timeIntervalSince1970:)), ledger, midnight].compactMap { $0 }
        return max(candidates.min() ?? midnight, instant.addingTimeInterval(1))
    }

    /// Makes a sleeping ``run(events:)`` pass again now (or skip its next sleep).
    public func poke() {
        poked = true
        sleeper?.cancel()
    }

    /// Applies one event and pokes the loop.
    public func handle(_ event: Event) {
        let instant = now()
        let ledger = DeliveryLedger(database: database)
        do {
            switch event {
            case .wake(let reason):
                logger.info("woken", metadata: ["reason": "\(Self.describe(reason))"])
            case .reload:
                logger.info("reloading settings")
            case .snooze(let id, let duration):
                let snoozed = try ledger.snooze(id: id, until: instant.addingTimeInterval(RetryPolicy.seconds(duration)), now: instant)
                logger.info("reminder snoozed", metadata: ["found": "\(snoozed != nil)"])
            case .dismiss(let id):
                let count = try ledger.dismiss(id: id, now: instant)
                logger.info("reminder dismissed", metadata: ["rows": "\(count)"])
            }
        } catch {
            logger.error("cannot record the action", metadata: ["error": "\(error)"])
        }
        poke()
    }

    private static func describe(_ reason: WakeReason) -> String {
        switch reason {
        case .clockChanged: "clock-changed"
        case .resumed: "resumed"
        case .timeZoneChanged: "time-zone-changed"
        }
    }

    /// Runs passes until cancelled: recover, then pass, sleep until
    /// ``nextWakeup()`` or an event, pass again. Store errors are logged and
    /// the loop goes on (it tries again at the next wakeup).
    public func run(events: AsyncStream<Event>) async {
        do { try recoverInterrupted() } catch { logger.error("cannot read the delivery ledger", metadata: ["error": "\(error)"]) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { await self.handle(event) }
            }
            while !Task.isCancelled {
                var wakeup = now().addingTimeInterval(60)
                do {
                    try await runOnePass()
                    wakeup = try nextWakeup()
                } catch {
                    logger.error("delivery pass failed", metadata: ["error": "\(error)"])
                }
                logger.info("next pass", metadata: ["at": "\(ISOInstant.format(wakeup, in: systemTimeZone()))"])
                await sleep(until: wakeup)
            }
            group.cancelAll()
        }
    }

    private func sleep(until wakeup: Date) async {
        if poked {
            poked = false
            return
        }
        let seconds = max(0, wakeup.timeIntervalSince(now()))
        let clock = self.clock
        let task = Task { try await clock.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
        sleeper = task
        await withTaskCancellationHandler {
            _ = await task.result
        } onCancel: {
            task.cancel()
        }
        sleeper = nil
        poked = false
    }
}

extension AppDatabase {
    /// Saves `entry` if its row is still in one of `states`; whether it was.
    static func finish(_ entry: DeliveryEntry, from states: [String], db: Database) throws -> Bool {
        let record = DeliveryRecord(entry)
        try db.execute(
            sql: """
                UPDATE delivery SET state = ?, late = ?, attempts = ?, nextAttemptAt = ?, channels = ?, lastError = ?, deliveredAt = ?, updatedAt = ?
                WHERE notificationId = ? AND occurrenceDate = ? AND state IN (\(states.map { _ in "?" }.joined(separator: ",")))
                """,
            arguments: StatementArguments([
                record.state, record.late, record.attempts, record.nextAttemptAt, record.channels, record.lastError, record.deliveredAt,
                record.updatedAt, record.notificationId, record.occurrenceDate,
            ] as [(any DatabaseValueConvertible)?]) + StatementArguments(states)
        )
        return db.changesCount == 1
    }
}
