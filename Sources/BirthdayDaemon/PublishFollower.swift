import BirthdayCore
import BirthdayStore
import BirthdayUseCases
import Foundation
import Logging
import ServiceLifecycle

/// Keeps the CalDAV calendars of `birthdays publish` up to date: the
/// daemon's half of issue 21. Each publish runs the `birthdays-network`
/// helper (``TargetPublisher``), so the daemon links no HTTP, and runs in a
/// task of its own, so a slow server never holds up a delivery.
///
/// When it publishes to a target:
/// - at start, on every wake the daemon detects (resume, clock and
///   time-zone changes, SIGHUP) and every ``periodic`` (6 h) after the last
///   attempt: a whole publish, whose listing of the calendar's tags notices
///   what other clients changed or deleted;
/// - after a write to the store that may change the events (``Event/storeChanged``:
///   `import`, a source sync, `settings set`, `exclude`, `remind`), within
///   seconds: when the store's data revision is not the one the target's
///   last attempt read, the helper compares the events' hash with that of
///   the last successful publish (``PublishPlan/calendarHash(_:)``) and
///   makes no request when they are the same. The helper's own writes (the
///   resources it records, the outcome) never move the data revision, so
///   they wake the daemon's database watch but never publish again;
/// - at local midnight, when the events changed with the date;
/// - after a failure, again after ``SourceRetryPolicy``'s delay (30 s,
///   doubling, at most ``retryCeiling``), a publish the store's writes do
///   not bring forward. A publish refused for deleting most of the events
///   is never forced and never retried by itself: it waits, with its
///   sentence in `status`, for `publish sync --force` or for a change to the store.
///
/// When each failing target is tried next is written to the database for
/// `birthdays status`, and cleared when the daemon stops.
///
/// Each target is one value (``FollowedTarget``, core: its schedule, healthy
/// until its periodic publish, retrying or waiting for the person, and the
/// data revision its last attempt read), which decides whether and how a
/// turn publishes and what a publish's outcome makes of it; the loop is
/// ``FollowLoop``, the sources' follower's too, and this actor only reads
/// the targets and runs the helper.
actor PublishFollower {
    enum Event: Sendable {
        /// Publish to every target, whole (start, a wake, SIGHUP).
        case all(reason: String)
        /// A new day: publish where the events changed.
        case midnight
        /// The store was written: publish where its data revision moved.
        case storeChanged
    }

    /// How long a healthy target waits for a whole publish that notices other clients' edits.
    static let periodic: TimeInterval = 6 * 3600
    /// The longest wait between the retries of a failing target.
    static let retryCeiling: Duration = .seconds(3600)

    private let publisher: TargetPublisher
    private let database: AppDatabase
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let systemTimeZone: @Sendable () -> TimeZone
    private let systemLocale: String?
    private let logger: Logger
    private let inbox = Inbox<Event>()

    private var followed: [Int64: FollowedTarget] = [:]
    /// Publishes run (for tests).
    private(set) var runs = 0

    init(
        publisher: TargetPublisher,
        database: AppDatabase,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String?,
        logger: Logger
    ) {
        self.publisher = publisher
        self.database = database
        self.clock = clock
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.systemLocale = systemLocale
        self.logger = logger
    }

    /// Queues `event` and wakes the loop.
    nonisolated func post(_ event: Event) {
        inbox.post(event)
    }

    private static var stopping: Bool { FollowLoop.stopping }

    /// Publishes everywhere, then follows the store until a graceful shutdown or cancellation.
    func run() async {
        await FollowLoop.run(inbox: inbox, first: .all(reason: "start"), clock: clock, now: now) { events in
            var whole: String?
            var midnight = false
            var stored = false
            for event in events {
                switch event {
                case .all(let reason): whole = whole ?? reason
                case .midnight: midnight = true
                case .storeChanged: stored = true
                }
            }
            await pass(whole: whole, midnight: midnight, stored: stored)
            return followed.values.compactMap(\.due).min()
        }
        do {
            // The follower ends by cancellation, and the store does no work for a cancelled task:
            // this last write runs in a task of its own, which the cancellation does not reach.
            let database = self.database
            try await Task { try await database.clearNextPublish() }.value
        } catch {
            logger.warning("cannot clear the publish targets' next attempt", metadata: ["error": "\(error)"])
        }
    }

    /// Publishes to each target that is due, or whose events may have changed.
    private func pass(whole: String?, midnight: Bool, stored: Bool) async {
        let targets: [PublishTarget]
        let revision: Int64?
        do {
            targets = try await database.publishTargets()
            revision = try await database.revision().value
        } catch {
            logger.error("cannot read the publish targets", metadata: ["error": "\(error)"])
            return
        }
        let ids = Set(targets.map(\.id))
        followed = followed.filter { ids.contains($0.key) }
        if let whole, !targets.isEmpty { logger.info("publishing to every target", metadata: ["reason": "\(whole)"]) }
        let instant = now()
        for target in targets where !Self.stopping {
            // Another command's publish (publish sync --force) succeeded: the target is healthy again.
            if target.lastError == nil {
                followed[target.id, default: FollowedTarget()].succeededElsewhere(
                    lastRun: target.lastPublish,
                    at: instant,
                    every: .seconds(Self.periodic)
                )
            }
            let state = followed[target.id] ?? FollowedTarget()
            guard let run = state.publishes(at: instant, whole: whole != nil, midnight: midnight, storeChanged: stored, revision: revision) else {
                continue
            }
            await publish(target, ifChanged: run == .ifChanged, revision: revision)
        }
        await recordNextAttempts()
    }

    private func publish(_ target: PublishTarget, ifChanged: Bool, revision: Int64?) async {
        followed[target.id, default: FollowedTarget()].starts(reading: revision)
        let report = await publisher.publish(
            target,
            force: false,
            ifChanged: ifChanged,
            now: now(),
            timeZone: systemTimeZone(),
            locale: systemLocale
        )
        runs += 1
        let instant = now()
        let outcome: FollowedTarget.Outcome
        switch report.error {
        case nil:
            outcome = .succeeded
            if report.put + report.deleted > 0 {
                logger.info("published", metadata: ["written": "\(report.put)", "deleted": "\(report.deleted)", "requests": "\(report.requests)"])
            }
        case .massRemoval?:
            // Never forced here: the person decides, or a change to the store makes it unnecessary.
            outcome = .waitsForThePerson
            logger.warning("a publish would delete most of the published events; it waits for: birthdays publish sync --force")
        case .some:
            outcome = .failed(failures: (try? await database.publishTarget(id: target.id))?.failures ?? 1)
        }
        followed[target.id, default: FollowedTarget()].finished(outcome, at: instant, every: .seconds(Self.periodic), ceiling: Self.retryCeiling)
        if case .failed(let failures) = outcome, let error = report.error {
            let due = followed[target.id]?.schedule.due ?? instant
            logger.warning(
                "publish failed; retrying later",
                metadata: [
                    "error": "\(error.description)", "failures": "\(failures)",
                    "retry_in_s": "\(Int(due.timeIntervalSince(instant).rounded()))",
                ]
            )
        }
    }

    /// Writes each failing target's next attempt where the store does not hold it yet.
    private func recordNextAttempts() async {
        guard let targets = try? await database.publishTargets() else { return }
        var changes: [Int64: Date?] = [:]
        for target in targets {
            let schedule = followed[target.id]?.schedule
            let next = schedule?.isRetrying == true ? schedule?.due : nil
            switch (target.nextAttempt, next) {
            case (nil, nil): continue
            case (let old?, let new?) where abs(old.timeIntervalSince(new)) < 0.001: continue
            default: changes[target.id] = next
            }
        }
        guard !changes.isEmpty else { return }
        do {
            try await database.setNextPublish(changes)
        } catch {
            logger.warning("cannot record the publish targets' next attempt", metadata: ["error": "\(error)"])
        }
    }
}
