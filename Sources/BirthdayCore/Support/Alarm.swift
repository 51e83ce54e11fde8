import Synchronization

/// Ends a loop's sleep early: a ring while it sleeps ends the sleep; one
/// while it works makes the next sleep return at once (a ring is never lost).
/// The delivery engine sleeps until its next pass with it, the daemon's
/// source follower until its next sync or, with nothing to wait for, until
/// a ring.
public final class Alarm: Sendable {
    private struct State {
        var sleeper: Task<Void, any Error>?
        var waiter: CheckedContinuation<Void, Never>?
        var rung = false
    }

    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let (sleeper, waiter) = state.withLock { state -> (Task<Void, any Error>?, CheckedContinuation<Void, Never>?) in
            state.rung = true
            defer { state.waiter = nil }
            return (state.sleeper, state.waiter)
        }
        sleeper?.cancel()
        waiter?.resume()
    }

    /// Sleeps with `body` (a clock sleep), or until a ring when `body` is `nil`.
    ///
    /// - Returns: `true` when `body` ran its course (the clock's time came),
    ///   `false` when a ring or cancellation ended the sleep (always `false`
    ///   without a body).
    @discardableResult
    public func sleep(_ body: (@Sendable () async throws -> Void)?) async -> Bool {
        var completed = false
        if let body {
            let task = Task { try await body() }
            let skip = state.withLock { state in
                if state.rung {
                    state.rung = false
                    return true
                }
                state.sleeper = task
                return false
            }
            if skip { task.cancel() }
            completed = await withTaskCancellationHandler {
                (try? await task.result.get()) != nil
            } onCancel: {
                task.cancel()
            }
        } else {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state in
                        if state.rung { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                ring()
            }
        }
        state.withLock { state in
            state.sleeper = nil
            state.waiter = nil
            state.rung = false
        }
        return completed
    }
}
