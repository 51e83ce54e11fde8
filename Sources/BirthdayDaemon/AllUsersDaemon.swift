import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// What `birthdays run --all-users` is made of.
package struct AllUsersConfiguration: Sendable {
    /// The users root.
    package var folders: UserFolders
    /// Builds user `name`'s daemon (``buildDaemon(_:)`` over their own
    /// database, ledger, secrets and lock), its configuration made one of
    /// many by `setup` (``UserDaemonSetup/apply(to:)``).
    package var daemon: @Sendable (_ name: UserName, _ setup: UserDaemonSetup) async throws -> Daemon
    /// What retries sleep on.
    package var clock: any Clock<Duration>
    /// Whether one wake monitor (clock changes, resumes, zone changes) is shared by every user.
    package var watchesWake: Bool
    /// Signals that start a graceful shutdown of every user; SIGHUP lists the users again (and reloads each).
    package var shutdownSignals: [UnixSignal]
    /// The logger of what concerns users as a whole (their names, never their people).
    package var logger: Logger

    package init(
        folders: UserFolders,
        daemon: @escaping @Sendable (UserName, UserDaemonSetup) async throws -> Daemon,
        clock: any Clock<Duration> = EventLoopClock(),
        watchesWake: Bool = true,
        shutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        logger: Logger
    ) {
        self.folders = folders
        self.daemon = daemon
        self.clock = clock
        self.watchesWake = watchesWake
        self.shutdownSignals = shutdownSignals
        self.logger = logger
    }
}

/// What `run --all-users` hands each user's daemon: what the users share
/// and what the users service hears from each.
package struct UserDaemonSetup: Sendable {
    /// Clock changes, resumes and zone changes from the one monitor all
    /// users share; `nil` when nothing is watched (or the monitor could not start).
    package var wakeReasons: AsyncStream<WakeReason>?
    /// The user's engine rests after a pass (``UserRoster/rested(_:)``).
    package var atRest: @Sendable () -> Void
    /// The user's engine passes again after resting (``UserRoster/woke(_:)``).
    package var awake: @Sendable () -> Void

    /// Makes `configuration`, one user's as `run --user NAME` makes it, one
    /// of many: no signal of its own (SIGTERM and SIGINT stop the whole,
    /// each user's daemon hears it from its parent), the shared wake monitor
    /// and never one of its own, memory handed back once for every user by
    /// the users service, not by each (``UserRoster/Action/releaseMemory``),
    /// a watch that cannot be set up a failure of the user (retried), and
    /// the daemon ended when the user's folder goes.
    package func apply(to configuration: inout DaemonConfiguration) {
        configuration.shutdownSignals = []
        configuration.wakeReasons = wakeReasons
        configuration.watchesWake = false
        configuration.releasesMemoryAtRest = false
        configuration.atRest = atRest
        configuration.awake = awake
        configuration.requiresWatches = true
        configuration.endsWhenFolderGoes = true
    }
}

/// `birthdays run --all-users`, ready to run: one process, one event loop,
/// each user's daemon (``Daemon``, exactly as `run --user NAME` builds it)
/// a child of its own, started and stopped as the users root lists users
/// (``UserRoster`` decides, ``UsersWatcher`` hears). It holds the root's
/// lock (``UserFolders/allUsersDaemon``) for as long as it exists.
package struct AllUsersDaemon: Service {
    let group: ServiceGroup
    let lock: DaemonLock

    package func run() async throws {
        try await group.run()
        withExtendedLifetime(lock) {}
    }
}

/// Builds `birthdays run --all-users`: makes the users root when it is
/// missing (0700) and takes its lock, on the blocking pool, and raises the
/// soft limit of open files to the hard one (``OpenFileLimit``).
///
/// - Throws: ``UserFolderError`` when the root cannot be made or is not
///   safe to use, ``DaemonLockError`` when another `run --all-users` runs on it.
package func buildAllUsersDaemon(_ configuration: AllUsersConfiguration) async throws -> AllUsersDaemon {
    let folders = configuration.folders
    let lock = try await Blocking.run { () throws(any Error) -> DaemonLock in
        try folders.makeRoot()
        return try DaemonLock.acquire(database: folders.allUsersDaemon)
    }
    let openFiles = OpenFileLimit.raise()
    configuration.logger.info("open files allowed", metadata: ["limit": "\(openFiles.map(String.init) ?? "unknown")"])
    let service = UsersService(configuration: configuration)
    let group = ServiceGroup(
        configuration: .init(services: [service], gracefulShutdownSignals: configuration.shutdownSignals, logger: configuration.logger)
    )
    return AllUsersDaemon(group: group, lock: lock)
}

/// The loop of `run --all-users`, thin: it lists the root when the watch or
/// SIGHUP says it may have changed, hands the listing and each user
/// daemon's fate to the ``UserRoster``, and does what it says. A user's
/// daemon is built and runs in a child task of its own, so a user whose
/// database is slow to open, broken or locked delays no one else; its
/// failure is logged with the user's name and retried.
struct UsersService: Service {
    let configuration: AllUsersConfiguration

    private enum Event: Sendable {
        case listing
        case started(UserName, Daemon)
        case ended(UserName, (any Error)?)
        case retryDue(UserName)
        case rested(UserName)
        case woke(UserName)
        case shutdown
    }

    func run() async throws {
        let logger = configuration.logger
        let folders = configuration.folders
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let watcher = UsersWatcher.orWarning(root: folders.root, logger: logger)
        defer { watcher?.stop() }
        // Failing, no user builds one of their own (``UserDaemonSetup/apply(to:)``): one warning, not one per user.
        let monitor = configuration.watchesWake ? WakeMonitor.ofTheSystemZone(logger: logger) : nil
        defer { monitor?.stop() }
        let wakes = WakeFanOut()
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        logger.notice("birthdays run --all-users started", metadata: ["root": "\(folders.root)", "pid": "\(getpid())"])
        let list = { () async throws(UserFolderError) -> [UserRoster.Listed] in
            try await Blocking.run { () throws(UserFolderError) in try folders.listed() }
        }

        await withTaskGroup(of: Void.self) { feeders in
            if let watcher {
                feeders.addTask {
                    for await _ in watcher.changes { continuation.yield(.listing) }
                }
            }
            if let monitor {
                feeders.addTask {
                    for await reason in monitor.reasons {
                        wakes.yield(reason)
                    }
                }
            }
            feeders.addTask {
                for await _ in hangups { continuation.yield(.listing) }
            }
            feeders.addTask {
                try? await gracefulShutdown()
                continuation.yield(.shutdown)
            }
            continuation.yield(.listing)
            // Discarding: the runs of users who ended and the retries' sleeps that are over are not kept.
            await withDiscardingTaskGroup { users in
                var roster = UserRoster()
                var daemons: [UserName: Daemon] = [:]
                loop: for await event in events {
                    // A user's daemon that ended in the shutdown is no failure to retry.
                    if Task.isShuttingDownGracefully { break loop }
                    var actions: [UserRoster.Action] = []
                    switch event {
                    case .shutdown:
                        break loop
                    case .listing:
                        do {
                            actions = roster.listed(try await list())
                        } catch {
                            logger.error("cannot list the users; those served are kept", metadata: ["error": "\(error)"])
                            continue
                        }
                    case .started(let name, let daemon):
                        daemons[name] = daemon
                        actions = roster.started(name)
                    case .ended(let name, let error):
                        daemons[name] = nil
                        wakes.remove(name)
                        if let end = error as? DaemonEnd, end == .folderGone, let listing = try? await list() {
                            // Removed, or removed and added again: the root says which before their end is read,
                            // so a user who is gone is not retried, and another of the same name is started.
                            actions = roster.listed(listing)
                        }
                        let ending = roster.ended(name)
                        actions += ending
                        if case .retry(_, let delay)? = ending.first, let error {
                            logger.error(
                                "cannot serve user; trying again later",
                                metadata: ["user": "\(name)", "retry_in": "\(delay.components.seconds)s", "error": "\(error)"]
                            )
                        } else if case .retry(_, let delay)? = ending.first {
                            logger.error(
                                "user's daemon stopped; trying again later",
                                metadata: ["user": "\(name)", "retry_in": "\(delay.components.seconds)s"]
                            )
                        } else if case .start? = ending.first {
                            logger.notice("user's folder was replaced; serving the new one", metadata: ["user": "\(name)"])
                        } else {
                            logger.notice("user no longer served", metadata: ["user": "\(name)"])
                        }
                    case .retryDue(let name):
                        actions = roster.retryDue(name)
                    case .rested(let name):
                        actions = roster.rested(name)
                    case .woke(let name):
                        roster.woke(name)
                    }
                    for action in actions {
                        switch action {
                        case .start(let name):
                            let setup = UserDaemonSetup(
                                wakeReasons: monitor != nil ? wakes.add(name) : nil,
                                atRest: { continuation.yield(.rested(name)) },
                                awake: { continuation.yield(.woke(name)) }
                            )
                            logger.notice("serving user", metadata: ["user": "\(name)"])
                            let build = configuration.daemon
                            users.addTask {
                                do {
                                    let daemon = try await build(name, setup)
                                    continuation.yield(.started(name, daemon))
                                    try await daemon.run()
                                    continuation.yield(.ended(name, nil))
                                } catch {
                                    continuation.yield(.ended(name, error))
                                }
                            }
                        case .stop(let name):
                            // One still being built is stopped when it has started (`UserRoster.started`).
                            if let daemon = daemons[name] { await daemon.group.triggerGracefulShutdown() }
                        case .retry(let name, let delay):
                            let clock = configuration.clock
                            users.addTask {
                                do {
                                    try await cancelWhenGracefulShutdown { try await clock.sleep(for: delay) }
                                    continuation.yield(.retryDue(name))
                                } catch {}
                            }
                        case .releaseMemory:
                            // Once for every user, when all of them rest; reading /proc and advising pages blocks.
                            users.addTask {
                                let advised = await Blocking.run { ResidentPages.release() }
                                logger.debug("every user at rest: read-only pages handed back", metadata: ["advised_kib": "\(advised / 1024)"])
                            }
                        }
                    }
                }
                // Each user's daemon hears the shutdown itself (it runs under this service's); a retry's sleep ends with it.
            }
            wakes.finish()
            continuation.finish()
            feeders.cancelAll()
        }
        logger.notice("birthdays run --all-users stopped")
    }
}

/// The one wake monitor's reasons, handed to each served user's daemon.
private final class WakeFanOut: Sendable {
    private let users = Mutex<[UserName: AsyncStream<WakeReason>.Continuation]>([:])

    /// User `name`'s own stream of the reasons from now on.
    func add(_ name: UserName) -> AsyncStream<WakeReason> {
        let (stream, continuation) = AsyncStream.makeStream(of: WakeReason.self, bufferingPolicy: .bufferingNewest(64))
        users.withLock { $0.updateValue(continuation, forKey: name)?.finish() }
        return stream
    }

    func remove(_ name: UserName) { users.withLock { $0.removeValue(forKey: name)?.finish() } }

    func yield(_ reason: WakeReason) { users.withLock { for user in $0.values { user.yield(reason) } } }

    func finish() { users.withLock { for user in $0.values { user.finish() } } }
}
