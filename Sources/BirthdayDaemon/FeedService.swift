import BirthdayCore
import Logging
import ServiceLifecycle

/// The calendar feed inside `birthdays run`, following the `serve` setting,
/// and never stopping the daemon: reminders matter more than the feed.
///
/// Rules:
/// - It serves where the `serve` setting says, read at start and again each
///   time the database may have changed (``settingsChanged``): a new
///   address closes the old listener and opens the new one, `off` closes it,
///   `on` opens it, all without a restart (`feed url` prints the address the
///   setting names, so the two always agree within a second or so).
/// - When the server cannot start (the port is taken, the address is not one
///   of this machine's) or stops with an error, the error is logged and the
///   server is built and started again after 1 s, then 2, 4, … up to 60 s
///   between attempts, while the engine goes on delivering.
/// - A graceful shutdown ends the wait and the server alike.
struct FeedService: Service {
    /// Builds a new server for `address`, for each attempt.
    let makeServer: @Sendable (FeedAddress) -> any Service
    /// The `serve` setting now (`nil`: off); throws when the settings cannot be read.
    let address: @Sendable () async throws -> FeedAddress?
    /// An element each time the settings may have changed; read by one task at a time.
    let settingsChanged: AsyncStream<Void>
    /// What the waits between attempts sleep on (the daemon's clock).
    let clock: any Clock<Duration>
    let logger: Logger
    /// The first wait; it doubles up to ``maximumDelay``.
    var firstDelay = Duration.seconds(1)
    var maximumDelay = Duration.seconds(60)

    private enum Outcome: Sendable {
        case changed(FeedAddress?)
        case serverReturned
        /// ``settingsChanged`` ended (the daemon's database watch stopped).
        case changesEnded
        /// A graceful shutdown began.
        case stopping
    }

    func run() async throws {
        var wanted = (try? await address()) ?? nil
        var watching = true
        while !Self.stopping {
            let serving = wanted
            if let serving { logger.info("serving the calendar feed", metadata: ["address": "\(serving)"]) }
            guard watching else {
                // Nothing tells of changes any more: serve what was asked, or wait for the end.
                if let serving { await serveWithRetries(serving) } else { try? await gracefulShutdown() }
                return
            }
            // Serve (or idle, when off) until the setting names another address.
            let outcome = await withTaskGroup(of: Outcome.self) { group in
                if let serving {
                    group.addTask {
                        await serveWithRetries(serving)
                        return .serverReturned
                    }
                }
                group.addTask {
                    // A graceful shutdown ends this wait (the server has its own).
                    let outcome = await cancelWhenGracefulShutdown { () -> Outcome in
                        for await _ in settingsChanged {
                            // A settings read that fails changes nothing: the feed stays as it is.
                            guard let now = try? await address() else { continue }
                            if now != serving { return .changed(now) }
                        }
                        return .changesEnded
                    }
                    return Task.isShuttingDownGracefully ? .stopping : outcome
                }
                let first = await group.next() ?? .serverReturned
                // Stopping: the server shuts down gracefully by itself; any other end replaces it now.
                if case .stopping = first { return first }
                group.cancelAll()
                return first
            }
            switch outcome {
            case .changed(let address):
                logger.notice("the serve setting changed", metadata: ["address": "\(address.map { "\($0)" } ?? "off")"])
                wanted = address
            case .serverReturned, .stopping:
                // Only a graceful shutdown ends a server without an error.
                return
            case .changesEnded:
                watching = false
            }
        }
    }

    /// Runs a server on `address` until it returns, retrying when it fails.
    private func serveWithRetries(_ address: FeedAddress) async {
        var delay = firstDelay
        while !Self.stopping {
            do {
                try await makeServer(address).run()
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
