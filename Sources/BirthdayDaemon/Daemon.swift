import BirthdayCore
import BirthdayServer
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// What `birthdays run` is made of, gathered so that tests can build the
/// same daemon in-process with a private bus, a manual clock and no signals.
package struct DaemonConfiguration: Sendable {
    package var database: AppDatabase
    /// Passed to the `command` channel's commands.
    package var environment: [String: String]
    /// The current instant (the CLI's flows from `BIRTHDAYS_NOW` when set).
    package var now: @Sendable () -> Date
    /// The system zone, read again on every pass (the `time-zone` setting overrides it).
    package var systemTimeZone: @Sendable () -> TimeZone
    /// The environment's locale (``Language/fromEnvironment(_:)``): the language
    /// of reminders and the feed unless the `language` setting names one.
    package var systemLocale: String?
    /// What the engine sleeps on and command timeouts run on.
    package var clock: any Clock<Duration>
    /// The session bus desktop notifications go to.
    package var bus: DBusBusAddress
    /// Whether to watch for clock changes, resumes and time-zone changes (``WakeMonitor``).
    package var watchesWake: Bool
    /// Signals that start a graceful shutdown; SIGHUP always reloads.
    package var shutdownSignals: [UnixSignal]
    /// Writes the `log` channel's lines.
    package var logLine: @Sendable (String) throws -> Void
    /// The daemon's logger (counts and ids, never names).
    package var logger: Logger
    /// Whether local sources are watched with inotify (tests of the timers turn it off).
    package var watchesSources: Bool
    /// The feed server's logger, when the `serve` setting is on.
    package var feedLogger: Logger
    /// Whether the database file is watched for writes by other processes
    /// (``DatabaseWatcher``); a database in memory never is.
    package var watchesDatabase: Bool
    /// Whether the engine hands the code pages it touched back to the kernel
    /// once it has rested 30 s after a pass (``ResidentPages``); `birthdays run` does.
    /// The database's caches are handed back at every rest, whatever this says
    /// (``AppDatabase/releaseMemory()``).
    package var releasesMemoryAtRest: Bool
    /// Clock changes, resumes and zone changes heard by a monitor the
    /// daemon shares with others (`run --all-users`: one for every user),
    /// in place of one of its own; `watchesWake` is then not read.
    package var wakeReasons: AsyncStream<WakeReason>?
    /// Kept for as long as the daemon (a pretend-time copy of the database).
    package var retained: (any Sendable)?
    /// Whether a watch that cannot be set up (the database's, the local
    /// sources': inotify's instances and watches are counted per account)
    /// makes the daemon fail (``DaemonEnd/watchFailed(_:reason:)``) rather
    /// than hear those changes only at its other wakes: `run --all-users`,
    /// which logs the user's failure and tries them again.
    package var requiresWatches: Bool
    /// Whether the daemon ends (``DaemonEnd/folderGone``) once the folder
    /// of its database is deleted or moved (``DatabaseWatcher/gone``):
    /// `run --all-users`, whose user was removed.
    package var endsWhenFolderGoes: Bool
    /// Called when the engine rests after a pass (``DeliveryEngine/Configuration/atRest``), besides the release.
    package var atRest: (@Sendable () -> Void)?
    /// Called when the engine passes again after resting (``DeliveryEngine/Configuration/awake``).
    package var awake: (@Sendable () -> Void)?

    package init(
        database: AppDatabase,
        environment: [String: String],
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String? = nil,
        clock: any Clock<Duration> = EventLoopClock(),
        bus: DBusBusAddress = .session,
        watchesWake: Bool = true,
        shutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        logLine: @escaping @Sendable (String) throws -> Void,
        logger: Logger,
        feedLogger: Logger,
        watchesSources: Bool = true,
        watchesDatabase: Bool = true,
        releasesMemoryAtRest: Bool = false,
        wakeReasons: AsyncStream<WakeReason>? = nil,
        retained: (any Sendable)? = nil,
        requiresWatches: Bool = false,
        endsWhenFolderGoes: Bool = false,
        atRest: (@Sendable () -> Void)? = nil,
        awake: (@Sendable () -> Void)? = nil
    ) {
        self.database = database
        self.environment = environment
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.systemLocale = systemLocale
        self.clock = clock
        self.bus = bus
        self.watchesWake = watchesWake
        self.shutdownSignals = shutdownSignals
        self.logLine = logLine
        self.logger = logger
        self.feedLogger = feedLogger
        self.watchesSources = watchesSources
        self.watchesDatabase = watchesDatabase
        self.releasesMemoryAtRest = releasesMemoryAtRest
        self.wakeReasons = wakeReasons
        self.retained = retained
        self.requiresWatches = requiresWatches
        self.endsWhenFolderGoes = endsWhenFolderGoes
        self.atRest = atRest
        self.awake = awake
    }
}

/// Why a daemon ended that nothing asked to stop, but what it cannot do
/// without (``DaemonConfiguration/requiresWatches``,
/// ``DaemonConfiguration/endsWhenFolderGoes``).
package enum DaemonEnd: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder of the database was deleted or moved.
    case folderGone
    /// `what` cannot be watched: `reason` (inotify's).
    case watchFailed(_ what: String, reason: String)

    package var description: String {
        switch self {
        case .folderGone: "the folder of the database was removed or moved"
        case .watchFailed(let what, let reason):
            "cannot watch \(what): \(reason) (inotify's limits per account: fs.inotify.max_user_instances, fs.inotify.max_user_watches)"
        }
    }

    init(watching what: String, _ error: WakeError) {
        self = .watchFailed(what, reason: "\(error.operation) failed: \(error.reason)")
    }
}

/// The delivery daemon, ready to run: the engine's service (with the
/// sources' follower and the database watch) and the feed server that
/// follows the `serve` setting (``FeedService``: a feed that cannot bind is
/// retried and never stops the deliveries), in one `ServiceGroup` that
/// SIGTERM and SIGINT shut down gracefully. It holds the daemon lock (``DaemonLock``) for as long as it exists.
package struct Daemon: Service {
    package let group: ServiceGroup
    /// The engine, for tests that watch its passes.
    package let engine: DeliveryEngine
    /// How many source syncs the daemon has done (for tests).
    package var sourceSyncs: Int { get async { await follower.syncs } }
    /// How many times the daemon has run the publish helper (for tests).
    package var publishes: Int { get async { await publisher.runs } }
    let follower: SourceFollower
    let publisher: PublishFollower
    let lock: DaemonLock?
    let retained: (any Sendable)?
    /// Why the daemon must end though nothing asked it to (``DaemonEnd``): the first one ends it gracefully, and `run()` throws it.
    let ends: AsyncStream<DaemonEnd>

    package func run() async throws {
        let group = self.group
        let ends = self.ends
        let (end, failure) = await withTaskGroup(of: DaemonEnd?.self) { tasks -> (DaemonEnd?, (any Error)?) in
            tasks.addTask {
                for await end in ends {
                    await group.triggerGracefulShutdown()
                    return end
                }
                return nil
            }
            var failure: (any Error)?
            do {
                try await group.run()
            } catch {
                failure = error
            }
            tasks.cancelAll()
            var end: DaemonEnd?
            for await found in tasks { end = end ?? found }
            return (end, failure)
        }
        withExtendedLifetime(lock) {}
        withExtendedLifetime(retained) {}
        // A daemon that had to end says why, whatever its services made of the shutdown.
        if let end { throw end }
        if let failure { throw failure }
    }
}

/// Builds `birthdays run`: takes the lock for the database (a file
/// database only; an in-memory one has no other process to exclude), reads
/// the settings and permission, makes the long-lived desktop channel, the
/// engine and the services.
///
/// - Throws: ``DaemonLockError`` when another daemon runs for the database,
///   ``StoreError`` when the settings cannot be read.
package func buildDaemon(_ configuration: DaemonConfiguration) async throws -> Daemon {
    let database = configuration.database
    let path = database.path
    // realpath, open and flock, retried for up to 100 ms: never on the event loop.
    let lock = path.hasPrefix("/") ? try await Blocking.run { () throws(DaemonLockError) in try DaemonLock.acquire(database: path) } : nil
    let logger = configuration.logger
    // Watched from before the settings are read: a write from here on is heard.
    var watcher: DatabaseWatcher?
    if configuration.watchesDatabase && path.hasPrefix("/") {
        do {
            watcher = try DatabaseWatcher(database: path)
        } catch {
            if configuration.requiresWatches { throw DaemonEnd(watching: "the database for writes by other commands", error) }
            logger.warning("writes by other commands will be noticed only at the next wake or SIGHUP", metadata: ["error": "\(error)"])
        }
    }
    // Read before anything else reads the settings: a write from here on is one the daemon has not seen.
    let startVersion: Int? = watcher != nil ? (try? await database.dataVersion()) : nil
    let (ends, endContinuation) = AsyncStream.makeStream(of: DaemonEnd.self, bufferingPolicy: .bufferingOldest(1))
    let settings = try await database.settings()
    let status = try await database.authorizationStatus()
    // The buttons' labels are in the language of the settings at start, and follow the setting.
    let desktop = DesktopNotificationChannel(bus: configuration.bus, labels: .init(settings.localizer(systemLocale: configuration.systemLocale)))
    var engineConfiguration = DeliveryEngine.Configuration()
    // At rest the connection's caches go first, so that the allocator's trim that follows hands them back too.
    engineConfiguration.atRest = { [releases = configuration.releasesMemoryAtRest, atRest = configuration.atRest] in
        await database.releaseMemory()
        if releases {
            // Reading /proc and advising pages blocks: never on the event loop.
            let advised = await Blocking.run { ResidentPages.release() }
            logger.debug("at rest: read-only pages handed back", metadata: ["advised_kib": "\(advised / 1024)"])
        }
        atRest?()
    }
    engineConfiguration.awake = configuration.awake
    let engine = DeliveryEngine(
        database: database,
        clock: configuration.clock,
        now: configuration.now,
        systemTimeZone: configuration.systemTimeZone,
        systemLocale: configuration.systemLocale,
        channels: ReminderChannels.factory(
            desktop: desktop,
            environment: configuration.environment,
            clock: configuration.clock,
            databasePath: database.path,
            log: configuration.logLine
        ),
        channelCheck: ReminderChannels.check(bus: configuration.bus),
        rooms: AnnounceRooms.factory(databasePath: database.path, environment: configuration.environment, clock: configuration.clock),
        greetings: GreetingChoices.sender(
            database: database,
            environment: configuration.environment,
            clock: configuration.clock,
            systemLocale: configuration.systemLocale
        ),
        configuration: engineConfiguration,
        logger: logger
    )
    let consent = try await database.channelConsent().consent
    let channels = consent.names.joined(separator: ",")
    logger.notice("birthdays run started", metadata: ["status": "\(status.rawValue)", "channels": "\(channels)", "pid": "\(getpid())"])
    if !consent.delivers {
        logger.notice(
            status == .denied
                ? "notifications are off; nothing will be scheduled until: birthdays notifications enable"
                : "no channel delivers (\(status.rawValue)); nothing will be scheduled until: birthdays notifications enable, or birthdays channels add"
        )
    }
    let publisher = PublishFollower(
        publisher: TargetPublisher(
            database: database,
            environment: configuration.environment,
            logLevel: logger.logLevel.rawValue,
            clock: configuration.clock
        ),
        database: database,
        clock: configuration.clock,
        now: configuration.now,
        systemTimeZone: configuration.systemTimeZone,
        systemLocale: configuration.systemLocale,
        logger: logger
    )
    var watchFailed: (@Sendable (WakeError) -> Void)?
    if configuration.requiresWatches {
        watchFailed = { error in _ = endContinuation.yield(DaemonEnd(watching: "the local sources", error)) }
    }
    let follower = SourceFollower(
        sync: .standard(
            database: database,
            environment: configuration.environment,
            now: configuration.now,
            systemTimeZone: configuration.systemTimeZone,
            systemLocale: configuration.systemLocale,
            logger: logger,
            reporting: .exitStatus(clock: configuration.clock)
        ),
        database: database,
        clock: configuration.clock,
        now: configuration.now,
        watches: configuration.watchesSources,
        logger: logger,
        watchFailed: watchFailed,
        peopleChanged: { [engine, publisher] in
            engine.poke()
            // A sync in this process does not move the data version the database watch compares.
            publisher.post(.storeChanged)
        }
    )
    var folderGone: (@Sendable () -> Void)?
    if configuration.endsWhenFolderGoes {
        folderGone = { _ = endContinuation.yield(.folderGone) }
    }
    // What follows the settings hears of every change through this stream
    // (the feed's address); the engine and the follower through their own events.
    let (settingsChanged, settingsContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let systemLocale = configuration.systemLocale
    // A date an `--auto-accept` answer gave to someone already there goes to their card too (as with
    // `invites accept`), off the answer's request; first in the group, so it stops after the server.
    let writeBack = CardWriteBack(database: database, environment: configuration.environment, logger: logger)
    let followUp = InvitationFollowUp(logger: logger) { personID, date in
        _ = await writeBack.writeBirthday(personID: personID, date)
    }
    let services: [any Service] = [
        followUp,
        DaemonService(
            engine: engine,
            follower: follower,
            publisher: publisher,
            desktop: desktop,
            database: database,
            now: configuration.now,
            systemTimeZone: configuration.systemTimeZone,
            systemLocale: configuration.systemLocale,
            environment: configuration.environment,
            watchesWake: configuration.wakeReasons == nil && configuration.watchesWake,
            wakeReasons: configuration.wakeReasons,
            watcher: watcher,
            startVersion: startVersion,
            folderGone: folderGone,
            settingsChanged: { [desktop] in
                settingsContinuation.yield()
                // The buttons' labels follow the language setting.
                if let settings = try? await database.settings() {
                    desktop.labels = .init(settings.localizer(systemLocale: systemLocale))
                }
            },
            stopped: { settingsContinuation.finish() },
            logger: logger
        ),
        FeedService(
            makeServer: {
                [
                    source = DatabaseFeedSource(
                        database: database,
                        systemLocale: configuration.systemLocale,
                        now: configuration.now,
                        systemTimeZone: configuration.systemTimeZone,
                        drawQR: QRCode.svg(encoding:label:),
                        // An invitation's answer puts the owner's message in the ledger: deliver it now.
                        answered: { engine.poke() },
                        dateGiven: { followUp.post($0) }
                    ), feedLogger = configuration.feedLogger
                ] address in
                buildFeedApplication(source: source, invitations: source, host: address.host, port: address.port, logger: feedLogger)
            },
            address: { try await database.settings().serve },
            settingsChanged: settingsChanged,
            clock: configuration.clock,
            logger: logger
        ),
    ]
    let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: configuration.shutdownSignals, logger: logger))
    return Daemon(
        group: group,
        engine: engine,
        follower: follower,
        publisher: publisher,
        lock: lock,
        retained: configuration.retained,
        ends: ends
    )
}
