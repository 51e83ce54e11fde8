import BirthdayDaemon
import Foundation
import TestSupport
import Testing

/// `sleep(untilWallClock:now:)`: the daemon's timers end early, never late,
/// when the clock moves while a sleep is being set up.
@Suite(.timeLimit(.minutes(10)))
struct WallClockSleepTests {
    static let origin = Date(timeIntervalSince1970: 1_773_133_200)

    @Test func aClockMovedBetweenTheTwoReadsEndsTheSleepAtOnce() async throws {
        let clock = ManualClock(origin: Self.origin)
        let wakeup = Self.origin.addingTimeInterval(10)
        // The wall clock is read after the clock's instant, and the clock moves right then:
        // a deadline taken after that move would lie 10 s past the wakeup and never come.
        try await clock.sleep(untilWallClock: wakeup) {
            clock.advance(by: .seconds(10))
            return clock.date
        }
        #expect(clock.date == wakeup)
        #expect(clock.sleeping == 0)
    }

    @Test func aSleepEndsWhenTheClockReachesTheWakeup() async throws {
        let clock = ManualClock(origin: Self.origin)
        let wakeup = Self.origin.addingTimeInterval(10)
        let sleeper = Task { try await clock.sleep(untilWallClock: wakeup) { clock.date } }
        try await eventually("the sleep set") { clock.sleeping == 1 }
        clock.advance(by: .seconds(9))
        #expect(clock.sleeping == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleeping == 0)
    }
}
