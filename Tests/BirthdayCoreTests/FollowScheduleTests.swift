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

    // MARK: - One followed target

    /// A publish target: whole at a wake and at its own time; never before its retry; if changed
    /// at midnight and after a write that moved the data revision; else not.
    @Test func aPublishTargetRunsWholeAtAWakeIfChangedAfterAWriteAndNeverBeforeItsRetry() {
        var target = FollowedTarget()
        target.starts(reading: 7)
        target.finished(.succeeded, at: t0, every: .seconds(6 * 3600), ceiling: .seconds(3600))
        let soon = t0.addingTimeInterval(60)
        #expect(target.publishes(at: soon, whole: true, midnight: false, storeChanged: false, revision: 7) == .whole)
        #expect(target.publishes(at: soon, whole: false, midnight: false, storeChanged: true, revision: 7) == nil, "the revision did not move")
        #expect(target.publishes(at: soon, whole: false, midnight: false, storeChanged: true, revision: 8) == .ifChanged)
        #expect(target.publishes(at: soon, whole: false, midnight: true, storeChanged: false, revision: 7) == .ifChanged)
        #expect(target.publishes(at: t0.addingTimeInterval(6 * 3600), whole: false, midnight: false, storeChanged: false, revision: 7) == .whole)
        target.starts(reading: 8)
        target.finished(.failed(failures: 2), at: t0, every: .seconds(6 * 3600), ceiling: .seconds(3600))
        #expect(target.schedule == .retrying(due: t0.addingTimeInterval(60), failures: 2))
        #expect(target.publishes(at: t0.addingTimeInterval(59), whole: false, midnight: true, storeChanged: true, revision: 9) == nil)
        #expect(target.publishes(at: t0.addingTimeInterval(60), whole: false, midnight: false, storeChanged: false, revision: 9) == .whole)
        #expect(target.attempted == 8)
    }

    /// A publish that would delete most events waits for the person: no time of its own, a write
    /// still tries it if changed, and another command's success makes it healthy again.
    @Test func aPublishWaitingForThePersonIsHealedByAnotherCommandsSuccess() {
        var target = FollowedTarget()
        target.finished(.waitsForThePerson, at: t0, every: .seconds(6 * 3600), ceiling: .seconds(3600))
        #expect(target.schedule == .waiting && target.due == nil)
        #expect(target.publishes(at: t0, whole: false, midnight: false, storeChanged: true, revision: 1) == .ifChanged)
        target.succeededElsewhere(lastRun: t0.addingTimeInterval(10), at: t0.addingTimeInterval(20), every: .seconds(6 * 3600))
        #expect(target.schedule == .healthy(due: t0.addingTimeInterval(10 + 6 * 3600)))
        target.succeededElsewhere(lastRun: t0.addingTimeInterval(30), at: t0.addingTimeInterval(40), every: .seconds(6 * 3600))
        #expect(target.schedule == .healthy(due: t0.addingTimeInterval(10 + 6 * 3600)), "a healthy target keeps its time")
    }

    /// A local source: a burst of changes syncs it once settled, its own time (a retry) too, and a
    /// sync takes the burst.
    @Test func aSourceSyncsWhenItsBurstSettlesOrItsTimeComes() {
        var target = FollowedTarget()
        #expect(!target.syncs(at: .distantFuture) && target.due == nil, "an idle source waits for an event")
        target.changed(at: t0)
        target.changed(at: t0.addingTimeInterval(0.5))
        #expect(target.due == t0.addingTimeInterval(1.5))
        #expect(!target.syncs(at: t0.addingTimeInterval(1.4)) && target.syncs(at: t0.addingTimeInterval(1.5)))
        target.starts()
        #expect(target.burst == nil)
        target.finished(.failed(failures: 1), at: t0.addingTimeInterval(2), every: nil, ceiling: .seconds(3600))
        #expect(target.due == t0.addingTimeInterval(32) && target.syncs(at: t0.addingTimeInterval(32)))
        target.changed(at: t0.addingTimeInterval(3))
        #expect(target.due == t0.addingTimeInterval(4), "the sooner of the burst and the retry")
        target.starts()
        target.finished(.succeeded, at: t0.addingTimeInterval(5), every: nil, ceiling: .seconds(3600))
        #expect(target.schedule == .idle && target.due == nil)
    }
}
