import Foundation

/// When the daemon works on a followed target next (a source it syncs, a
/// CalDAV calendar it publishes to): one value per target, the same for
/// both followers, decided here and only performed by them.
///
/// | state | what it means | next |
/// |---|---|---|
/// | `idle` | healthy, with no timer of its own (a file or vdir source: it follows changes on disk) | when something happens |
/// | `healthy(due)` | its last run succeeded | at `due`: the sync interval, or the periodic whole publish |
/// | `retrying(due, failures)` | its last `failures` runs failed | at `due`, after ``SourceRetryPolicy``'s delay (30 s, doubling, up to a ceiling); the store's writes do not bring it forward |
/// | `waiting` | the person must decide (a publish that would delete most of its events) | never by itself |
public enum FollowSchedule: Sendable, Hashable {
    case idle
    case healthy(due: Date)
    case retrying(due: Date, failures: Int)
    case waiting

    /// The schedule after a run that ended at `instant`.
    ///
    /// - Parameters:
    ///   - succeeded: whether it did what it was for.
    ///   - failures: failures in a row the store counts, this one included (for a failed run).
    ///   - every: how long a healthy target waits for its next run; `nil`: it has no timer.
    ///   - ceiling: the longest wait between retries.
    public static func after(succeeded: Bool, failures: Int, at instant: Date, every: Duration?, ceiling: Duration) -> FollowSchedule {
        if succeeded { return every.map { .healthy(due: instant.addingTimeInterval($0.timeInterval)) } ?? .idle }
        let count = max(failures, 1)
        return .retrying(
            due: instant.addingTimeInterval(SourceRetryPolicy.delay(afterFailures: count, ceiling: ceiling).timeInterval),
            failures: count
        )
    }

    /// When it runs next by itself; `nil` when only an event runs it.
    public var due: Date? {
        switch self {
        case .healthy(let due), .retrying(let due, _): due
        case .idle, .waiting: nil
        }
    }

    /// Whether its own time has come at `instant`.
    public func isDue(at instant: Date) -> Bool { due.map { instant >= $0 } ?? false }

    /// Whether its last run failed and it waits for its retry.
    public var isRetrying: Bool {
        if case .retrying = self { return true }
        return false
    }

    /// A healthy schedule moved by a new interval (`sync-interval` changed
    /// from `old` to `new`): due `new` after its last run instead of `old`.
    /// Retries keep their back-off.
    public func retimed(from old: Duration, to new: Duration) -> FollowSchedule {
        guard case .healthy(let due) = self else { return self }
        return .healthy(due: due.addingTimeInterval(new.timeInterval - old.timeInterval))
    }
}

/// A burst of changes on disk to a local source, which is synced once the
/// burst is quiet: ``settle`` after its last change, and no later than
/// ``settleAtMost`` after its first, so a sync never reads a half-written
/// folder while vdirsyncer is still writing, nor waits forever on a folder
/// that keeps changing.
public struct ChangeBurst: Sendable, Hashable {
    public static let settle: TimeInterval = 1
    public static let settleAtMost: TimeInterval = 5

    public let first: Date
    public let last: Date

    /// A burst begun by a change at `instant`.
    public init(at instant: Date) {
        first = instant
        last = instant
    }

    private init(first: Date, last: Date) {
        self.first = first
        self.last = last
    }

    /// The burst with one more change at `instant`.
    public func adding(_ instant: Date) -> ChangeBurst { ChangeBurst(first: first, last: max(last, instant)) }

    /// When the source is synced.
    public var due: Date { min(last.addingTimeInterval(Self.settle), first.addingTimeInterval(Self.settleAtMost)) }
}

/// One target as both followers keep it (a source the daemon syncs, a
/// CalDAV calendar it publishes to): its ``FollowSchedule``, the burst of
/// changes on disk waiting to settle (a local source), and the data
/// revision its last run read (a publish target). Every transition is
/// here: whether a turn runs it, and how; what a run's outcome makes of
/// it; when it is due. The followers only read the targets, run them and
/// hand back what happened.
public struct FollowedTarget: Sendable, Hashable {
    /// When it runs next by itself.
    public var schedule = FollowSchedule.idle
    /// Changes on disk waiting to settle.
    public var burst: ChangeBurst?
    /// The data revision its last run read.
    public var attempted: Int64?

    public init() {}

    /// How a run goes: a whole one, or one that does nothing when what it
    /// would write has not changed (a publish compares the events' hash).
    public enum Run: Sendable, Hashable {
        case whole
        case ifChanged
    }

    /// What a run came to.
    public enum Outcome: Sendable, Hashable {
        case succeeded
        /// It failed, the `failures`-th time in a row (as the store counts, this one included).
        case failed(failures: Int)
        /// It refused to go on until the person decides (a publish that would
        /// delete most of its events): never retried by itself.
        case waitsForThePerson
    }

    /// When it needs a turn by itself: the soonest of its schedule and its burst; `nil` for only an event.
    public var due: Date? { [schedule.due, burst?.due].compactMap { $0 }.min() }

    /// A change on disk at `instant`: a burst begins, or goes on.
    public mutating func changed(at instant: Date) {
        burst = burst?.adding(instant) ?? ChangeBurst(at: instant)
    }

    /// Whether a source syncs at `instant` by itself: its burst of changes
    /// has settled, or its own time (the interval, a retry) has come.
    public func syncs(at instant: Date) -> Bool {
        if let burst, instant >= burst.due { return true }
        return schedule.isDue(at: instant)
    }

    /// Whether a publish target is published at `instant`, and how:
    /// - whole at every wake (`whole`: start, a wake, SIGHUP) and when its
    ///   own time has come (the periodic publish, a retry);
    /// - never else while it waits for its retry: the store's writes do not
    ///   bring a retry forward;
    /// - if changed at a new day (`midnight`), and after a write to the store
    ///   (`storeChanged`) that moved the data revision past the one its last
    ///   attempt read (`revision` now);
    /// - else not (`nil`).
    public func publishes(at instant: Date, whole: Bool, midnight: Bool, storeChanged: Bool, revision: Int64?) -> Run? {
        if whole || schedule.isDue(at: instant) { return .whole }
        if schedule.isRetrying { return nil }
        if midnight || (storeChanged && attempted != revision) { return .ifChanged }
        return nil
    }

    /// Another command's run succeeded (`publish sync --force`) while this
    /// one was retrying or waiting: it is healthy again, due `every` after
    /// that run (`lastRun`, else `instant`). Nothing changes otherwise.
    public mutating func succeededElsewhere(lastRun: Date?, at instant: Date, every: Duration) {
        guard schedule.isRetrying || schedule == .waiting else { return }
        schedule = .healthy(due: (lastRun ?? instant).addingTimeInterval(every.timeInterval))
    }

    /// A run starts, reading data revision `revision` (`nil`: not known): its burst is taken.
    public mutating func starts(reading revision: Int64? = nil) {
        burst = nil
        if let revision { attempted = revision }
    }

    /// A run that ended at `instant` came to `outcome`: healthy until
    /// `every` (idle without it), retrying after ``SourceRetryPolicy``'s
    /// delay up to `ceiling`, or waiting for the person.
    public mutating func finished(_ outcome: Outcome, at instant: Date, every: Duration?, ceiling: Duration) {
        switch outcome {
        case .succeeded: schedule = .after(succeeded: true, failures: 0, at: instant, every: every, ceiling: ceiling)
        case .failed(let failures): schedule = .after(succeeded: false, failures: failures, at: instant, every: every, ceiling: ceiling)
        case .waitsForThePerson: schedule = .waiting
        }
    }
}
