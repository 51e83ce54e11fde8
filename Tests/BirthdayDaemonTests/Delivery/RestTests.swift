import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayDaemon
@testable import BirthdayStore

/// The engine's rest (``DeliveryEngine/Configuration/atRest``): called once
/// the engine has slept `restAfter` undisturbed after a pass, and only when
/// its next pass is further away than that again.
extension DeliveryEngineTests {
    final class RestCount: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    func resting(at start: String) throws -> (RunningEngine, RestCount) {
        let clock = ManualClock(origin: try at(start))
        let sink = EngineSink()
        let zone = berlin
        let rests = RestCount()
        var configuration = DeliveryEngine.Configuration()
        configuration.atRest = { rests.add() }
        configuration.restAfter = .seconds(30)
        let engine = DeliveryEngine(
            database: database,
            clock: clock,
            now: { clock.date },
            systemTimeZone: { zone },
            channels: { _, _, _ in ChannelSet([.init(name: "test", sink: sink)]) },
            configuration: configuration,
            logger: quiet
        )
        let (events, continuation) = AsyncStream.makeStream(of: DeliveryEngine.Event.self)
        let task = Task { await engine.run(events: events) }
        return (RunningEngine(clock: clock, sink: sink, engine: engine, events: continuation, task: task), rests)
    }

    @Test func restsThirtySecondsAfterAPassThenSleepsOnToTheNext() async throws {
        // Given the engine at 08:00, its next pass at 09:00
        let (run, rests) = try resting(at: "2026-03-10T08:00:00+01:00")
        defer { run.stop() }
        let clock = run.clock
        try await eventually("the first sleep") { clock.sleeping == 1 }

        // When 29 s pass, it has not rested yet
        clock.advance(by: .seconds(29))
        #expect(rests.count == 0)
        #expect(clock.sleeping == 1)

        // Then at 30 s it rests once and sleeps on, with no pass in between
        clock.advance(by: .seconds(1))
        try await eventually("the rest") { rests.count == 1 }
        try await eventually("the sleep to 09:00") { clock.sleeping == 1 }
        #expect(await run.engine.passes == 1)
        clock.advance(to: try at("2026-03-10T08:59:00+01:00"))
        #expect(rests.count == 1)

        // And the reminder still comes at 09:00
        clock.advance(to: try at("2026-03-10T09:00:00+01:00"))
        try await eventually("the reminder") { await run.sink.reminders.count == 1 }
    }

    @Test func aPokeDuringTheRestWindowPostponesTheRest() async throws {
        let (run, rests) = try resting(at: "2026-03-10T08:00:00+01:00")
        defer { run.stop() }
        let clock = run.clock
        try await eventually("the first sleep") { clock.sleeping == 1 }

        // When another command writes 20 s after the pass
        clock.advance(by: .seconds(20))
        run.events.yield(.storeChanged)
        try await eventually("the second pass") { await run.engine.passes == 2 }
        try await eventually("the sleep after it") { clock.sleeping == 1 }

        // Then the rest counts from that pass: not at 30 s after the first, but at 30 s after the second
        clock.advance(by: .seconds(20))
        #expect(rests.count == 0)
        clock.advance(by: .seconds(10))
        try await eventually("the rest") { rests.count == 1 }
    }

    @Test func noRestWhenTheNextPassIsNear() async throws {
        // Given the engine 40 s before its 09:00 pass (less than twice the rest away)
        let (run, rests) = try resting(at: "2026-03-10T08:59:20+01:00")
        defer { run.stop() }
        let clock = run.clock
        try await eventually("the first sleep") { clock.sleeping == 1 }
        clock.advance(by: .seconds(30))
        #expect(clock.sleeping == 1)
        #expect(rests.count == 0)

        // When 09:00 comes, it delivers; the next pass is a year away, so it rests 30 s later
        clock.advance(to: try at("2026-03-10T09:00:00+01:00"))
        try await eventually("the reminder") { await run.sink.reminders.count == 1 }
        try await eventually("the sleep after it") { clock.sleeping == 1 }
        #expect(rests.count == 0)
        clock.advance(by: .seconds(30))
        try await eventually("the rest") { rests.count == 1 }
    }
}
