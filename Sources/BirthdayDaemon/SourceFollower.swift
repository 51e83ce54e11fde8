import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging
import ServiceLifecycle

/// Keeps the daemon's sources in sync: `birthdays run`'s half of issue 11.
///
/// When it syncs:
/// - every source at start, and on every wake the daemon detects (resume,
///   clock and time-zone changes, local midnight, SIGHUP); the list of
///   sources is read again then;
/// - a source another command added (`sources add`), as soon as the daemon
///   hears the write (``Event/reread``): the list is read again, a new
///   source is synced, a removed one forgotten, and a changed
///   `sync-interval` moves the CardDAV timer;
/// - a CardDAV source every `sync-interval` (default 15 min: an unchanged
///   book costs one small request) after its last sync: one timer for all
///   of them, at the soonest;
/// - a file or vdir source within seconds of a change on disk (inotify, see
///   ``SourceWatcher``): one second after the last event of a burst, and no
///   later than five seconds after its first, so a sync never reads a
///   half-written folder while vdirsyncer is still writing;
/// - a source whose sync failed again after ``SourceRetryPolicy``'s delay
///   (30 s, doubling, at most the interval).
///
/// Each source is one value (``FollowedTarget``, core: its schedule, idle,
/// healthy until a time or retrying, and its burst of changes on disk,
/// ``ChangeBurst``), which decides whether a turn syncs it (a settled burst,
/// its own time) and what a sync's outcome makes of it; the loop is
/// ``FollowLoop``, the publisher's too, and this actor only reads the
/// sources, watches their folders and runs the syncs.
///
/// A sync that changed people reschedules in its own transaction and pokes
/// the delivery engine (`peopleChanged`). With only local sources the
/// follower has no timer at all; idle, it sleeps. When each source is synced
/// next is written to the database for `birthdays status`, and cleared when
/// the daemon stops.
actor SourceFollower {
    enum Event: Sendable {
        /// Sync every source (a wake, SIGHUP, midnight); reads the list of sources again.
        case syncAll(reason: String)
        /// Something changed on disk for this source.
        case changed(Int64)
        /// Another command wrote the database: read the sources and the interval again, sync new sources.
        case reread
    }

    /// The retry ceiling of a failing local source.
    static let localCeiling: Duration = .seconds(3600)

    private let sync: SourceSync
    private let database: AppDatabase
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let watches: Bool
    /// Told when the local sources cannot be watched at all (no inotify instance); `nil` logs it and goes on.
    private let watchFailed: (@Sendable (WakeError) -> Void)?
    private let peopleChanged: @Sendable () -> Void

    /// What the follower keeps of one source: the core value, and the next
    /// sync last written to the store for `status` (`.some(nil)`: none written).
    struct Followed {
        var target = FollowedTarget()
        var recorded: Date??
    }

    private let inbox = Inbox<Event>()
    private var sources: [Source] = []
    private var followed: [Int64: Followed] = [:]
    private var watcher: SourceWatcher?
    private var watchedTargets: Set<SourceWatcher.Target> = []
    private var forwarding: Task<Void, Never>?
    /// The `sync-interval` the CardDAV timers were set with.
    private var interval: Duration?
    /// Syncs done (for tests).
    private(set) var syncs = 0

    init(
        sync: SourceSync,
        database: AppDatabase,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        watches: Bool,
        logger: Logger,
        watchFailed: (@Sendable (WakeError) -> Void)? = nil,
        peopleChanged: @escaping @Sendable () -> Void
    ) {
        self.sync = sync
        self.database = database
        self.clock = clock
        self.now = now
        self.watches = watches
        self.watchFailed = watchFailed
        self.logger = logger
        self.peopleChanged = peopleChanged
    }

    /// Queues `event` and wakes the loop.
    nonisolated func post(_ event: Event) {
        inbox.post(event)
    }

    private static var stopping: Bool { FollowLoop.stopping }

    /// Syncs everything, then follows the sources until a graceful shutdown or cancellation.
    func run() async {
        await FollowLoop.run(inbox: inbox, first: .syncAll(reason: "start"), clock: clock, now: now) { events in
            await turn(events)
        }
        forwarding?.cancel()
        watcher?.stop()
        do {
            // The follower ends by cancellation, and the store does no work for a cancelled task:
            // this last write runs in a task of its own, which the cancellation does not reach.
            let database = self.database
            try await Task { try await database.clearNextSync() }.value
        } catch {
            logger.warning("cannot clear the sources' next sync", metadata: ["error": "\(error)"])
        }
    }

    /// One turn: the events, then every source whose time has come; when the next one is due.
    private func turn(_ events: [Event]) async -> Date? {
        var all = false
        var reread = false
        var touched = Set<Int64>()
        for event in events {
            switch event {
            case .syncAll(let reason):
                if !all { logger.info("syncing every source", metadata: ["reason": "\(reason)"]) }
                all = true
            case .changed(let id):
                touched.insert(id)
            case .reread:
                reread = true
            }
        }
        if all {
            await reload()
            for source in sources {
                if Self.stopping { break }
                await syncNow(source)
            }
        } else if reread {
            let known = Set(sources.map(\.id))
            await reload()
            await retime()
            for source in sources where !known.contains(source.id) {
                if Self.stopping { break }
                await syncNow(source)
            }
        }
        if !all {
            let instant = now()
            for id in touched { followed[id, default: Followed()].target.changed(at: instant) }
        }
        // Whatever is due now.
        let instant = now()
        for source in sources where !Self.stopping {
            if followed[source.id]?.target.syncs(at: instant) == true { await syncNow(source) }
        }
        await recordNextSyncs()
        let next = nextDeadline()
        if let next { logger.debug("next source check", metadata: ["in_s": "\(Int(max(0, next.timeIntervalSince(now())).rounded(.up)))"]) }
        return next
    }

    private func nextDeadline() -> Date? {
        followed.values.compactMap(\.target.due).min()
    }

    /// Reads the sources again, and watches the local ones.
    private func reload() async {
        do {
            sources = try await database.sources(counting: false)
        } catch {
            logger.error("cannot read the sources", metadata: ["error": "\(error)"])
            return
        }
        let ids = Set(sources.map(\.id))
        followed = followed.filter { ids.contains($0.key) }
        guard watches else { return }
        let targets = Set(sources.filter(\.kind.isLocal).map { SourceWatcher.Target(sourceID: $0.id, kind: $0.kind, path: $0.location) })
        guard targets != watchedTargets else { return }
        forwarding?.cancel()
        watcher?.stop()
        watcher = nil
        forwarding = nil
        watchedTargets = targets
        guard !targets.isEmpty else { return }
        do {
            let watcher = try SourceWatcher(Array(targets))
            for failure in watcher.failures {
                logger.warning("a source folder cannot be watched; it syncs at the daemon's other wakes", metadata: ["reason": "\(failure.reason)"])
            }
            self.watcher = watcher
            forwarding = Task { [weak self] in
                for await id in watcher.changes { self?.post(.changed(id)) }
            }
        } catch {
            if let watchFailed { return watchFailed(error) }
            logger.warning("local sources will not be watched for changes", metadata: ["error": "\(error)"])
        }
    }

    /// Moves the CardDAV timers when `sync-interval` changed: each source is
    /// then due the new interval after its last sync (at once if that has passed).
    private func retime() async {
        guard let old = interval, let new = try? await database.settings().syncInterval, new != old else { return }
        interval = new
        for source in sources where source.kind == .carddav {
            followed[source.id]?.target.schedule = followed[source.id]?.target.schedule.retimed(from: old, to: new) ?? .idle
        }
        logger.info("sync-interval changed", metadata: ["seconds": "\(new.components.seconds)"])
    }

    /// Syncs `source` and decides when it is due next.
    private func syncNow(_ source: Source) async {
        followed[source.id, default: Followed()].target.starts()
        let report = await sync.sync(source)
        syncs += 1
        let instant = now()
        let interval = (try? await database.settings().syncInterval) ?? Settings().syncInterval
        self.interval = interval
        let current = try? await database.sources(counting: false).first { $0.id == source.id }
        if let current, let index = sources.firstIndex(where: { $0.id == source.id }) { sources[index] = current }
        followed[source.id, default: Followed()].target.finished(
            report.succeeded ? .succeeded : .failed(failures: current?.status.failures ?? 1),
            at: instant,
            every: source.kind == .carddav ? interval : nil,
            ceiling: source.kind == .carddav ? interval : Self.localCeiling
        )
        if report.peopleChanged { peopleChanged() }
    }

    /// Writes each source's next sync, for `status`, where it changed since the last write.
    private func recordNextSyncs() async {
        var changes: [Int64: Date?] = [:]
        for source in sources {
            let next = followed[source.id]?.target.schedule.due
            if followed[source.id]?.recorded != .some(next) { changes[source.id] = next }
        }
        guard !changes.isEmpty else { return }
        do {
            try await database.setNextSync(changes)
            for (id, next) in changes { followed[id, default: Followed()].recorded = .some(next) }
        } catch {
            logger.warning("cannot record the sources' next sync", metadata: ["error": "\(error)"])
        }
    }
}
