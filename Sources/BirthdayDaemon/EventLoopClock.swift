import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The daemon's clock: a sleep is one timer on an event loop of NIO's
/// singleton group, which is also Swift concurrency's global executor here
/// (see ARCHITECTURE.md, "Threads").
///
/// `ContinuousClock.sleep` would hand the timer to libdispatch, whose first
/// job on its worker pool starts a pool monitor that wakes the process once a
/// second for the rest of its life. An idle daemon has to sleep without it:
/// between two reminders it wakes only for the timers it set itself and the
/// kernel events it asked for (clock change, resume, SIGHUP, D-Bus).
///
/// Instants are `ContinuousClock`'s (CLOCK_BOOTTIME, which counts suspension);
/// the timer runs on CLOCK_MONOTONIC, which does not. A sleep across a suspend
/// therefore ends late, which is why the engine also reschedules on resume.
package struct EventLoopClock: Clock {
    package init() {}

    package typealias Instant = ContinuousClock.Instant

    package var now: Instant { ContinuousClock.now }

    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let delay = Self.delay(ContinuousClock.now.duration(to: deadline))
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let state = NIOLockedValueBox(SleepState.waiting)
        try await withTaskCancellationHandler {
            let timer: Scheduled<Void>? = state.withLockedValue { state in
                guard case .waiting = state else { return nil }
                let timer = loop.scheduleTask(in: delay) {}
                state = .scheduled(timer)
                return timer
            }
            guard let timer else { throw CancellationError() }
            do {
                try await timer.futureResult.get()
            } catch {
                throw CancellationError()
            }
        } onCancel: {
            state.withLockedValue { state in
                if case .scheduled(let timer) = state { timer.cancel() }
                state = .cancelled
            }
        }
    }

    /// The timer for `duration`: none for a deadline already passed, at most
    /// a year (a sleeper is woken long before: at midnight, on any event).
    static func delay(_ duration: Duration) -> TimeAmount {
        TimeAmount(min(max(duration, .zero), .seconds(365 * 24 * 3600)))
    }

    private enum SleepState {
        case waiting
        case scheduled(Scheduled<Void>)
        case cancelled
    }
}

extension Clock where Duration == Swift.Duration {
    /// Sleeps on this clock until the wall-clock instant `wakeup`, as `now`
    /// tells the wall clock.
    ///
    /// The clock's instant is read before `now`, so a clock that moves
    /// between the two reads (a test's manual clock, a slow scheduler) makes
    /// the sleep end early, never late: the callers look at what is due when
    /// they wake, and an early wake only costs a pass.
    package func sleep(untilWallClock wakeup: Date, now: () -> Date) async throws {
        let start = self.now
        let seconds = max(0, wakeup.timeIntervalSince(now()))
        try await sleep(until: start.advanced(by: .milliseconds(Int64((seconds * 1000).rounded(.up)))), tolerance: nil)
    }
}
