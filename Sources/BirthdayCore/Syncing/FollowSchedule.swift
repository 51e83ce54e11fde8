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
