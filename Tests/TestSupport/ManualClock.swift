import Foundation
import Synchronization

/// A clock that only moves when a test advances it, like Hummingbird's
/// MockClock: `sleep(until:)` suspends until ``advance(by:)`` reaches the deadline.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())
    /// The wall-clock instant at offset zero.
    public let origin: Date

    public init(origin: Date) { self.origin = origin }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The wall-clock instant now (the engine's `now`).
    public var date: Date { origin.addingTimeInterval(Self.seconds(now.offset)) }

    /// How many tasks are sleeping on this clock.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now { return true }
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for item in due { item.continuation.resume() }
    }

    /// Moves time forward to the wall-clock instant `date`.
    public func advance(to date: Date) {
        let seconds = date.timeIntervalSince(self.date)
        advance(by: .milliseconds(Int64((seconds * 1000).rounded())))
    }

    public static func seconds(_ duration: Duration) -> TimeInterval {
        let (s, atto) = duration.components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }
}
