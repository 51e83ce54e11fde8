import BirthdayCore
import Logging
import ServiceLifecycle

/// The calendar feed inside `birthdays run` (the `serve` setting), which
/// never stops the daemon: reminders matter more than the feed.
///
/// When the server cannot start (the port is taken, the address is not one
/// of this machine's) or stops with an error, the error is logged and the
/// server is built and started again after 1 s, then 2, 4, … up to 60 s
/// between attempts, while the engine goes on delivering. A graceful
/// shutdown ends the wait and the server alike.
struct FeedService: Service {
    /// Builds a new server for each attempt.
    let makeServer: @Sendable () -> any Service
    /// What the waits between attempts sleep on (the daemon's clock).
    let clock: any Clock<Duration>
    let logger: Logger
    /// The first wait; it doubles up to ``maximumDelay``.
    var firstDelay = Duration.seconds(1)
    var maximumDelay = Duration.seconds(60)

    func run() async throws {
        var delay = firstDelay
        while !Self.stopping {
            do {
                try await makeServer().run()
                return
            } catch {
                if Self.stopping { return }
                logger.error(
                    "the calendar feed cannot be served; reminders are still delivered, and serving is tried again",
                    metadata: ["error": "\(error)", "retry_in_s": "\(delay.components.seconds)"]
                )
            }
            let clock = self.clock
            let wait = delay
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: wait) }
            delay = min(delay * 2, maximumDelay)
        }
    }

    private static var stopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }
}
