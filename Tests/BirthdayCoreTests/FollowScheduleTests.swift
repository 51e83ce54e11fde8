import Foundation
import Testing

@testable import BirthdayCore

/// The followers' schedules as values: what a run's outcome makes of a
/// target, when it is due, and a burst of changes on disk.
@Suite struct FollowScheduleTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSuccessIsHealthyUntilTheIntervalOrIdleWithoutOne() {
        let card = FollowSchedule.after(succeeded: true, failures: 0, at: t0, every: .seconds(900), ceiling: .seconds(900))
        #expect(card == .healthy(due: t0.addingTimeInterval(900)))
        #expect(!card.isDue(at: t0.addingTimeInterval(899)) && card.isDue(at: t0.addingTimeInterval(900)))
        let folder = FollowSchedule.after(succeeded: true, failures: 0, at: t0, every: nil, ceiling: .seconds(3600))
        #expect(folder == .idle && folder.due == nil && !folder.isDue(at: .distantFuture))
    }

    /// 30 s, doubling, at most the ceiling; a count of 0 from the store is one failure.
    @Test(arguments: [(0, 30.0), (1, 30), (2, 60), (3, 120), (6, 900), (30, 900)])
    func aFailureBacksOffUpToTheCeiling(failures: Int, seconds: Double) {
        let next = FollowSchedule.after(succeeded: false, failures: failures, at: t0, every: .seconds(900), ceiling: .seconds(900))
        #expect(next == .retrying(due: t0.addingTimeInterval(seconds), failures: max(failures, 1)))
        #expect(next.isRetrying)
    }

    @Test func aNewIntervalMovesHealthySchedulesOnlyAndWaitingHasNoTime() {
        let healthy = FollowSchedule.healthy(due: t0.addingTimeInterval(900))
        #expect(healthy.retimed(from: .seconds(900), to: .seconds(60)) == .healthy(due: t0.addingTimeInterval(60)))
        let retrying = FollowSchedule.retrying(due: t0.addingTimeInterval(30), failures: 1)
        #expect(retrying.retimed(from: .seconds(900), to: .seconds(60)) == retrying)
        #expect(FollowSchedule.waiting.due == nil && !FollowSchedule.waiting.isRetrying)
    }

    @Test func aBurstSettlesASecondAfterItsLastChangeAndFiveAfterItsFirstAtMost() {
        var burst = ChangeBurst(at: t0)
        #expect(burst.due == t0.addingTimeInterval(1))
        burst = burst.adding(t0.addingTimeInterval(0.5))
        #expect(burst.due == t0.addingTimeInterval(1.5))
        for step in 1...20 { burst = burst.adding(t0.addingTimeInterval(Double(step) * 0.5)) }
        #expect(burst.due == t0.addingTimeInterval(5), "a folder that keeps changing is read after five seconds")
        #expect(burst.adding(t0).last == burst.last, "an older change does not move it back")
    }
}
