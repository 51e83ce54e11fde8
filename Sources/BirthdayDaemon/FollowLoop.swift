import BirthdayCore
import Foundation
import ServiceLifecycle

/// The loop both followers run (``SourceFollower``, ``PublishFollower``):
/// take every queued event, do one turn of work (what the events and each
/// target's ``FollowedTarget`` call for), then sleep until the soonest
/// instant the turn returned or the next event; until a graceful shutdown
/// or cancellation. A turn that returns `nil` sleeps until an event. All
/// the decisions are the targets' values (core); this is only the I/O of
/// waiting.
enum FollowLoop {
    static var stopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }

    /// Runs turns, the first with `first` alone, on the caller's isolation.
    static func run<Event: Sendable>(
        inbox: Inbox<Event>,
        first: Event,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        isolation: isolated (any Actor)? = #isolation,
        turn: ([Event]) async -> Date?
    ) async {
        inbox.postFirst(first)
        while !stopping {
            let next = await turn(inbox.take())
            if stopping || !inbox.isEmpty { continue }
            guard let next else {
                await inbox.sleep(nil)
                continue
            }
            await inbox.sleep {
                try await clock.sleep(untilWallClock: next, now: now)
            }
        }
    }
}
