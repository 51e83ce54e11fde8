import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayDaemon
@testable import BirthdayStore

/// Remembers every reminder it is given; fails while ``failing`` is set.
actor EngineSink: NotificationSink {
    private(set) var reminders: [Reminder] = []
    private(set) var attempts = 0
    var failing = false
    /// While set, `deliver` waits for ``open()`` (to overlap two engines).
    private var gate: [CheckedContinuation<Void, Never>]?

    func setFailing(_ value: Bool) { failing = value }
    func closeGate() { gate = [] }

    func open() {
        let waiting = gate ?? []
        gate = nil
        for item in waiting { item.resume() }
    }

    var waitingAtGate: Int { gate?.count ?? 0 }

    func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        attempts += 1
        if gate != nil {
            await withCheckedContinuation { gate?.append($0) }
        }
        if failing { throw .commandFailed(status: 1) }
        reminders.append(reminder)
    }
}

/// A wall clock a test sets by hand (for single passes).
final class TestNow: Sendable {
    private let value: Mutex<Date>
    init(_ date: Date) { value = Mutex(date) }
    var date: Date { value.withLock { $0 } }
    func set(_ date: Date) { value.withLock { $0 = date } }
}

/// Polls `condition` until it holds; records an issue after `seconds` (generous:
/// the suite shares two cores with parallel CLI tests and other builds).
func eventually(
    _ what: String,
    seconds: Int = 120,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        await Task.yield()
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    throw CancellationError()
}

@Suite struct DeliveryEngineTests {
    let temporary: TemporaryDatabase
    var database: AppDatabase { temporary.database }
    let berlin: TimeZone
    let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    init() async throws {
        temporary = try TemporaryDatabase(file: true)
        berlin = try Fixture.zone("Europe/Berlin")
        // Ada's birthday is 2026-03-10; day-before reminders off, so one request per year.
        try temporary.database.insertPeople([try Fixture.person("ada", "Ada", birthday: "1990-03-10")], now: Date(timeIntervalSince1970: 0))
        _ = try await temporary.database.setSetting(.dayBefore, to: "off", now: Date(timeIntervalSince1970: 0))
        try await temporary.database.setAuthorizationStatus(.authorized)
    }

    func at(_ text: String) throws -> Date { try Fixture.instant(text) }

    /// ``DeliveryEngine/run(events:)`` in a task, on a manual clock starting at `start`, in Berlin.
    struct RunningEngine {
        let clock: ManualClock
        let sink: EngineSink
        let engine: DeliveryEngine
        let events: AsyncStream<DeliveryEngine.Event>.Continuation
        let task: Task<Void, Never>

        func stop() {
            events.finish()
            task.cancel()
        }
    }

    func running(at start: String) throws -> RunningEngine {
        let clock = ManualClock(origin: try at(start))
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { clock.date }, zone: { zone }, clock: clock)
        let (events, continuation) = AsyncStream.makeStream(of: DeliveryEngine.Event.self)
        let task = Task { await engine.run(events: events) }
        return RunningEngine(clock: clock, sink: sink, engine: engine, events: continuation, task: task)
    }

    func engine(
        _ sink: EngineSink,
        now: @escaping @Sendable () -> Date,
        zone: @escaping @Sendable () -> TimeZone,
        clock: any Clock<Duration> = ContinuousClock(),
        database: AppDatabase? = nil
    ) -> DeliveryEngine {
        DeliveryEngine(
            database: database ?? self.database,
            clock: clock,
            now: now,
            systemTimeZone: zone,
            channels: { _, _, _ in ChannelSet([.init(name: "test", sink: sink)]) },
            logger: quiet
        )
    }

    func ledger() async throws -> [DeliveryEntry] { try await database.deliveries(updatedSince: .distantPast) }

    // MARK: - The run loop on a manual clock

    @Test func firesAtNineThenBackfillsNextYear() async throws {
        // Given the daemon running at 08:00 on the birthday
        let run = try running(at: "2026-03-10T08:00:00+01:00")
        defer { run.stop() }
        let (clock, sink, engine) = (run.clock, run.sink, run.engine)
        try await eventually("the first sleep") { clock.sleeping == 1 }
        #expect(await sink.reminders.isEmpty)
        #expect(try await engine.nextWakeup() == (try at("2026-03-10T09:00:00+01:00")))

        // When the clock reaches 09:00
        clock.advance(to: try at("2026-03-10T09:00:00+01:00"))

        // Then exactly one on-time reminder arrives
        try await eventually("the delivery") {
            let delivered = await sink.reminders.count
            let passes = await engine.passes
            return delivered == 1 && passes == 2 && clock.sleeping == 1
        }
        let reminder = try #require(await sink.reminders.first)
        #expect(reminder.id == "ada-birthday-dayof")
        #expect(!reminder.late)
        #expect(try await ledger().map(\.state) == [.delivered])
        #expect(try await database.pendingRequests().isEmpty)

        // And the pass at local midnight backfills next year's reminder
        clock.advance(to: try at("2026-03-11T00:00:00+01:00"))
        try await eventually("the midnight pass") {
            let passes = await engine.passes
            return passes == 3 && clock.sleeping == 1
        }
        let pending = try await database.pendingRequests()
        #expect(pending.map(\.occurrenceDate.description) == ["2027-03-10"])
        #expect(await sink.reminders.count == 1)
    }

    @Test func localMidnightIsAWakeupAndTheDayRollsOver() async throws {
        // Given 10:00 after the delivery, nothing due before next year
        let run = try running(at: "2026-03-10T10:00:00+01:00")
        defer { run.stop() }
        let (clock, engine) = (run.clock, run.engine)
        try await eventually("the first sleep") { clock.sleeping == 1 }
        #expect(try await engine.nextWakeup() == (try at("2026-03-11T00:00:00+01:00")))

        // When the clock reaches local midnight, a pass runs (and reschedules)
        clock.advance(to: try at("2026-03-11T00:00:00+01:00"))
        try await eventually("the midnight pass") {
            let passes = await engine.passes
            return passes == 2 && clock.sleeping == 1
        }
        #expect(try await engine.nextWakeup() == (try at("2026-03-12T00:00:00+01:00")))
    }

    @Test func aWakeEventRunsAPassWithoutWaitingForTheClock() async throws {
        let run = try running(at: "2026-03-10T08:00:00+01:00")
        defer { run.stop() }
        let (clock, sink, engine, continuation) = (run.clock, run.sink, run.engine, run.events)
        try await eventually("the first sleep") { clock.sleeping == 1 }
        continuation.yield(.wake(.resumed(suspendedFor: .seconds(3600))))
        try await eventually("the pass after the wake") {
            let passes = await engine.passes
            return passes == 2 && clock.sleeping == 1
        }
        #expect(await sink.reminders.isEmpty)
    }

    // MARK: - Single passes: late, missed, retries

    @Test func aResumeLaterTheSameDayDeliversLate() async throws {
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()

        // The machine slept from 08:00 to 15:00.
        now.set(try at("2026-03-10T15:00:00+01:00"))
        let result = try await engine.runOnePass()

        #expect(result.delivered == 1 && result.late == 1)
        #expect(await sink.reminders.map(\.late) == [true])
        #expect(try await ledger().map(\.late) == [true])
        // The text says so, with the time it was due.
        let body = try #require(await sink.reminders.first?.body)
        #expect(body.hasSuffix(" (sent late: it was due at 09:00)"), "\(body)")
    }

    @Test func aResumeTheNextDayRecordsAMiss() async throws {
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()

        now.set(try at("2026-03-11T07:00:00+01:00"))
        let result = try await engine.runOnePass()

        #expect(result.missed == 1 && result.delivered == 0)
        #expect(await sink.reminders.isEmpty)
        #expect(try await ledger().map(\.state) == [.missed])
    }

    @Test func aRescheduleWhileStoppedQueuesThePastDueRequestInsteadOfDroppingIt() async throws {
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        try await Fixture.scheduler(database, now: now.date, zone: berlin).reschedule()
        // An import at 09:30 reschedules while no daemon runs.
        try await Fixture.scheduler(database, now: try at("2026-03-10T09:30:00+01:00"), zone: berlin).reschedule()
        #expect(try await ledger().map(\.state) == [.queued])

        now.set(try at("2026-03-10T09:31:00+01:00"))
        let sink = EngineSink()
        let zone = berlin
        let result = try await engine(sink, now: { now.date }, zone: { zone }).runOnePass()
        #expect(result.delivered == 1 && result.late == 1)
    }

    @Test func aDeliveredRequestIsNotScheduledAgainForTheSameOccurrence() async throws {
        let now = TestNow(try at("2026-03-10T09:00:00+01:00"))
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        #expect(try await engine.runOnePass().delivered == 1)

        // The user moves the delivery time to 10:00: today's 10:00 request is already in the ledger.
        _ = try await database.setSetting(.deliveryTime, to: "10:00", now: now.date)
        now.set(try at("2026-03-10T09:10:00+01:00"))
        try await engine.runOnePass()
        #expect(try await database.pendingRequests().isEmpty)
        now.set(try at("2026-03-10T10:00:00+01:00"))
        try await engine.runOnePass()
        #expect(await sink.reminders.count == 1)
    }

    @Test func aTimeZoneChangeMovesTheFireInstant() async throws {
        let now = TestNow(try at("2026-03-10T06:00:00+01:00"))
        let zone = Mutex(berlin)
        let sink = EngineSink()
        let engine = engine(sink, now: { now.date }, zone: { zone.withLock { $0 } })
        try await engine.runOnePass()
        #expect(try await database.pendingRequests().map(\.fireAt) == [try at("2026-03-10T09:00:00+01:00")])

        zone.withLock { $0 = TimeZone(identifier: "America/New_York")! }
        try await engine.runOnePass()
        #expect(try await database.pendingRequests().map(\.fireAt) == [try at("2026-03-10T09:00:00-04:00")])
    }

    @Test func aFailingChannelIsRetriedWithBackoffThenFailsAtTheEndOfTheDay() async throws {
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        let sink = EngineSink()
        await sink.setFailing(true)
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()

        now.set(try at("2026-03-10T09:00:00+01:00"))
        #expect(try await engine.runOnePass().retrying == 1)
        #expect(try await ledger().first?.nextAttemptAt == (try at("2026-03-10T09:00:30+01:00")))
        #expect(try await engine.nextWakeup() == (try at("2026-03-10T09:00:30+01:00")))

        now.set(try at("2026-03-10T09:00:30+01:00"))
        #expect(try await engine.runOnePass().retrying == 1)
        #expect(try await ledger().first?.nextAttemptAt == (try at("2026-03-10T09:01:30+01:00")))

        // Late in the day, the next wait (5 min after the 4th failure) would cross midnight.
        now.set(try at("2026-03-10T23:50:00+01:00"))
        #expect(try await engine.runOnePass().retrying == 1)
        now.set(try at("2026-03-10T23:58:00+01:00"))
        #expect(try await engine.runOnePass().failed == 1)
        let entry = try #require(try await ledger().first)
        #expect(entry.state == .failed && entry.attempts == 4)
        #expect(entry.lastError == "test: the notification command exited with status 1; its day ended before the next attempt, so it was not sent")
        #expect(await sink.attempts == 4)
    }

    @Test func aRetryThatSucceedsIsDeliveredLate() async throws {
        let now = TestNow(try at("2026-03-10T09:00:00+01:00"))
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let sink = EngineSink()
        await sink.setFailing(true)
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()
        await sink.setFailing(false)
        now.set(try at("2026-03-10T09:02:00+01:00"))
        #expect(try await engine.runOnePass().delivered == 1)
        #expect(try await ledger().map(\.state) == [.delivered])
        #expect(await sink.reminders.map(\.late) == [true])
    }

    // MARK: - Exactly once

    @Test func twoEnginesOnOneDatabaseDeliverOnce() async throws {
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let now = TestNow(try at("2026-03-10T09:00:00+01:00"))
        let other = try AppDatabase.openFile(at: database.path)
        let first = EngineSink()
        let second = EngineSink()
        await first.closeGate()
        await second.closeGate()
        let zone = berlin
        let a = engine(first, now: { now.date }, zone: { zone })
        let b = engine(second, now: { now.date }, zone: { zone }, database: other)

        async let resultA = a.runOnePass()
        async let resultB = b.runOnePass()
        do {
            try await eventually("one engine to be sending") {
                let a = await first.waitingAtGate
                let b = await second.waitingAtGate
                return a + b == 1
            }
        } catch {
            // Let both passes finish so the test ends instead of hanging.
            await first.open()
            await second.open()
            throw error
        }
        await first.open()
        await second.open()
        let results = try await [resultA, resultB]

        #expect(results.map(\.delivered).reduce(0, +) == 1)
        #expect((await first.reminders.count) + (await second.reminders.count) == 1)
        #expect(try await ledger().map(\.state) == [.delivered])
    }

    /// A sink that fails every time with `error`.
    struct Failing: NotificationSink {
        let error: DeliveryError
        func deliver(_ reminder: Reminder) async throws(DeliveryError) { throw error }
    }

    /// A server's Retry-After holds the retry back when every channel left
    /// asked to wait; a channel that failed without asking is not held up by
    /// another's wait.
    @Test func aRetryAfterHoldsTheRetryOnlyWhenEveryChannelLeftAskedToWait() async throws {
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let zone = berlin
        let throttled = DeliveryError.remoteThrottled(channel: "push", reason: "the server answered 429", retryAfter: .seconds(600))
        func engine(_ members: [ChannelSet.Member], database: AppDatabase) -> DeliveryEngine {
            DeliveryEngine(
                database: database,
                clock: ContinuousClock(),
                now: { Date(timeIntervalSince1970: 1_773_129_605) },  // 09:00:05 Berlin
                systemTimeZone: { zone },
                channels: { _, _, _ in ChannelSet(members) },
                logger: quiet
            )
        }
        // Alone: not before its 600 s.
        #expect(try await engine([.init(name: "push", sink: Failing(error: throttled))], database: database).runOnePass().retrying == 1)
        #expect(try await ledger().first?.nextAttemptAt == Date(timeIntervalSince1970: 1_773_129_605 + 600))

        // Beside a channel that failed without asking: the usual 30 s for both.
        let other = try TemporaryDatabase()
        try other.database.insertPeople([try Fixture.person("ada", "Ada", birthday: "1990-03-10")], now: Date(timeIntervalSince1970: 0))
        _ = try await other.database.setSetting(.dayBefore, to: "off", now: Date(timeIntervalSince1970: 0))
        try await other.database.setAuthorizationStatus(.authorized)
        try await Fixture.scheduler(other.database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let mixed = engine(
            [
                .init(name: "push", sink: Failing(error: throttled)),
                .init(name: "mail", sink: Failing(error: .remoteUnavailable(channel: "mail", reason: "451 try later"))),
            ],
            database: other.database
        )
        #expect(try await mixed.runOnePass().retrying == 1)
        let row = try #require(try await other.database.deliveries(updatedSince: .distantPast).first)
        #expect(row.nextAttemptAt == Date(timeIntervalSince1970: 1_773_129_605 + 30))
        #expect(Set(row.channels ?? []) == ["push", "mail"])
    }

    /// Three channels at once: one delivers, one refuses for good (an SMTP
    /// 5xx), one fails for now. The reminder counts as delivered (one channel
    /// took it); only the passing failure is retried, and each channel's
    /// outcome is recorded; the refusal alone ends the row as failed.
    @Test func aRefusalIsNotRetriedWhileAPassingFailureIs() async throws {
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let sink = EngineSink()
        let zone = berlin
        let refused = DeliveryError.remoteRefused(channel: "mail", reason: "msmtp: 550 mailbox unavailable")
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { Date(timeIntervalSince1970: 1_773_129_605) },  // 09:00:05 Berlin
            systemTimeZone: { zone },
            channels: { _, _, _ in
                ChannelSet([
                    .init(name: "desktop", sink: sink),
                    .init(name: "mail", sink: Failing(error: refused)),
                    .init(name: "push", sink: Failing(error: .remoteUnavailable(channel: "push", reason: "connection refused"))),
                ])
            },
            logger: quiet
        )
        let pass = try await engine.runOnePass()
        #expect(pass.delivered == 1 && pass.partly == 1 && pass.retrying == 0)
        let row = try #require(try await ledger().first)
        #expect(row.state == .retrying)
        #expect(row.deliveredAt != nil, "the desktop took it")
        #expect(row.channels == ["push"], "the refusing channel is not retried")
        let statuses = try await database.channelStatuses()
        #expect(statuses["desktop"]?.lastSuccess != nil)
        #expect(statuses["mail"]?.refusals == 1)
        #expect(statuses["mail"]?.state == "refused")
        #expect(statuses["push"]?.state == "retrying")
        #expect(statuses["push"]?.refusals == 0)

        // Alone, a refusal ends the row at once, with the server's words.
        let temporary = try TemporaryDatabase()
        let single = temporary.database
        try single.insertPeople([try Fixture.person("ada", "Ada", birthday: "1990-03-10")], now: Date(timeIntervalSince1970: 0))
        _ = try await single.setSetting(.dayBefore, to: "off", now: Date(timeIntervalSince1970: 0))
        try await single.setAuthorizationStatus(.authorized)
        try await Fixture.scheduler(single, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let alone = DeliveryEngine(
            database: single,
            clock: ContinuousClock(),
            now: { Date(timeIntervalSince1970: 1_773_129_605) },
            systemTimeZone: { zone },
            channels: { _, _, _ in ChannelSet([.init(name: "mail", sink: Failing(error: refused))]) },
            logger: quiet
        )
        #expect(try await alone.runOnePass().failed == 1)
        let failed = try #require(try await single.deliveries(updatedSince: .distantPast).first)
        #expect(failed.state == .failed)
        #expect(failed.nextAttemptAt == nil)
        #expect(failed.lastError?.contains("550 mailbox unavailable") == true)
    }

    /// Ten refusals in a row pause a channel; a success resumes it.
    @Test func tenRefusalsInARowPauseAChannelAndASuccessResumesIt() async throws {
        let refused = DeliveryError.remoteRefused(channel: "mail", reason: "535 authentication failed")
        var instant = try at("2026-03-10T09:00:00+01:00")
        for attempt in 1...ChannelStatus.pauseAfter {
            try await database.recordChannelOutcomes(
                [("mail", refused), ("push", .remoteUnavailable(channel: "push", reason: "timeout"))],
                at: instant
            )
            #expect(try await database.channelStatuses()["mail"]?.paused == (attempt == ChannelStatus.pauseAfter))
            instant = instant.addingTimeInterval(60)
        }
        #expect(try await database.channelStatuses()["push"]?.paused == false, "passing failures never pause")
        #expect(try await database.channelStatuses()["mail"]?.state == "paused")
        try await database.recordChannelOutcomes([("mail", nil)], at: instant)
        let resumed = try #require(try await database.channelStatuses()["mail"])
        #expect(!resumed.paused && resumed.refusals == 0 && resumed.state == "ok")
    }

    /// The state is the last attempt's: a passing failure after refusals reads
    /// `retrying`, and the refusals before it still count towards the pause.
    @Test func aPassingFailureAfterARefusalReadsRetryingAndTheRefusalsStillCount() async throws {
        let refused = DeliveryError.remoteRefused(channel: "mail", reason: "550 mailbox unavailable")
        let passing = DeliveryError.remoteUnavailable(channel: "mail", reason: "451 try later")
        var instant = try at("2026-03-10T09:00:00+01:00")
        try await database.recordChannelOutcomes([("mail", refused)], at: instant)
        #expect(try await database.channelStatuses()["mail"]?.state == "refused")
        instant = instant.addingTimeInterval(60)
        try await database.recordChannelOutcomes([("mail", passing)], at: instant)
        let retrying = try #require(try await database.channelStatuses()["mail"])
        #expect(retrying.state == "retrying")
        #expect(retrying.refusals == 1, "a passing failure neither counts nor resets")
        for _ in 2...ChannelStatus.pauseAfter {
            instant = instant.addingTimeInterval(60)
            try await database.recordChannelOutcomes([("mail", refused)], at: instant)
        }
        #expect(try await database.channelStatuses()["mail"]?.state == "paused", "ten refusals in a row, a passing failure between")
    }

    @Test func aRowLeftSendingByACrashIsInterruptedAndNotResent() async throws {
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let now = TestNow(try at("2026-03-10T09:00:00+01:00"))
        // A daemon claimed the row and died.
        let due = try await database.collectDue(now: now.date, systemTimeZone: berlin)
        let entry = try #require(due.entries.first)
        #expect(try await database.claimDelivery(entry, now: now.date))
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        #expect(try await engine.recoverInterrupted() == 1)
        #expect(try await engine.runOnePass().delivered == 0)
        #expect(await sink.attempts == 0)
        #expect(try await ledger().map(\.state) == [.interrupted])
    }

    // MARK: - Provisional ends by itself

    /// While provisional, every pass asks whether a channel answers; the
    /// first that does moves the permission to authorized (stored and
    /// logged), and that pass delivers through the configured channels.
    @Test func aProvisionalPermissionEndsWhenAChannelAnswers() async throws {
        try await database.setAuthorizationStatus(.provisional)
        let answers = Mutex(false)
        let asked = Mutex(0)
        let sink = EngineSink()
        let quietLog = EngineSink()
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        let recorder = LogRecorder()
        let zone = berlin
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { now.date },
            systemTimeZone: { zone },
            channels: { _, status, _ in
                ChannelSet([.init(name: status == .provisional ? "log" : "desktop", sink: status == .provisional ? quietLog : sink)])
            },
            channelCheck: { _ in
                asked.withLock { $0 += 1 }
                return answers.withLock { $0 }
            },
            logger: recorder.logger
        )
        #expect(try await engine.runOnePass().status == .provisional)
        #expect(asked.withLock { $0 } == 1, "asked at start")
        #expect(try await database.authorizationStatus() == .provisional)

        answers.withLock { $0 = true }
        now.set(try at("2026-03-10T09:00:05+01:00"))
        let pass = try await engine.runOnePass()
        #expect(pass.status == .authorized)
        #expect(pass.delivered == 1)
        #expect(await sink.reminders.map(\.id) == ["ada-birthday-dayof"])
        #expect(await quietLog.attempts == 0)
        #expect(try await database.authorizationStatus() == .authorized)
        #expect(recorder.all.contains { $0.contains("moved from provisional to authorized") })
        // Authorized now: no more questions.
        try await engine.runOnePass()
        #expect(asked.withLock { $0 } == 2)
    }

    /// A `notifications disable` between the question and the answer wins.
    @Test func aPermissionChangedMeanwhileIsKept() async throws {
        try await database.setAuthorizationStatus(.provisional)
        let database = self.database
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { Date(timeIntervalSince1970: 0) },
            systemTimeZone: { TimeZone.gmt },
            channels: { _, _, _ in ChannelSet([]) },
            channelCheck: { _ in
                try? await database.setAuthorizationStatus(.denied)
                return true
            },
            logger: quiet
        )
        try await engine.runOnePass()
        #expect(try await database.authorizationStatus() == .denied)
    }

    // MARK: - Snooze and dismiss

    @Test func aSnoozeSurvivesARescheduleAndFiresOnce() async throws {
        let now = TestNow(try at("2026-03-10T09:00:00+01:00"))
        try await Fixture.scheduler(database, now: try at("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()

        await engine.handle(.snooze(id: "ada-birthday-dayof", duration: .seconds(900)))
        try await Fixture.scheduler(database, now: now.date, zone: berlin).reschedule()
        #expect(try await engine.nextWakeup() == (try at("2026-03-10T09:15:00+01:00")))
        now.set(try at("2026-03-10T09:15:00+01:00"))
        try await engine.runOnePass()
        try await engine.runOnePass()
        #expect(await sink.reminders.map(\.id) == ["ada-birthday-dayof", "ada-birthday-dayof-snooze"])
    }

    @Test func aDismissedPendingReminderIsNeverSent() async throws {
        let now = TestNow(try at("2026-03-10T08:00:00+01:00"))
        let sink = EngineSink()
        let zone = berlin
        let engine = engine(sink, now: { now.date }, zone: { zone })
        try await engine.runOnePass()
        #expect(try await DeliveryLedger(database: database).dismiss(id: "ada-birthday-dayof", now: now.date) == 1)
        try await engine.runOnePass()
        now.set(try at("2026-03-10T09:00:00+01:00"))
        try await engine.runOnePass()
        #expect(await sink.attempts == 0)
        #expect(try await ledger().map(\.state) == [.dismissed])
    }
}
