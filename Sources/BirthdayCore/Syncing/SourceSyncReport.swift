import Foundation

/// What one sync of one source did, counted from the source's side.
///
/// - `added`: people the source brought that it did not have before (new to
///   the store, or already there from an import or another source);
/// - `updated`: people the source had whose card changed;
/// - `removed`: people the source no longer has (they leave the store unless
///   another source has them or an import brought them);
/// - `unchanged`: the source's other people.
public struct SourceSyncReport: Sendable, Equatable, Codable {
    public var name: String
    public var kind: SourceKind
    public var added = 0
    public var updated = 0
    public var removed = 0
    public var unchanged = 0
    /// Cards that could not be read (reported as `file:line: message`), items kept as they were.
    public var problems: [ImportProblem] = []
    /// Why the sync failed; `nil` when it succeeded. A failed sync changed nothing.
    public var error: SourceError?
    /// Whether a person was added, changed or removed in the store (then the reminders were rescheduled).
    public var peopleChanged = false
    /// The choices a card this sync linked to a person had made differently
    /// from that person (the person's are kept).
    public var conflicts: [ChoiceConflict] = []
    /// HTTP requests the sync made.
    public var requests = 0

    public init(name: String, kind: SourceKind) {
        self.name = name
        self.kind = kind
    }

    public var succeeded: Bool { error == nil }
}

/// When to try a failing source again: 30 s after the first failure, then
/// doubling (1, 2, 4 … minutes), never later than `ceiling` (the
/// `sync-interval` for CardDAV, an hour for local sources).
public enum SourceRetryPolicy {
    public static func delay(afterFailures failures: Int, ceiling: Duration) -> Duration {
        guard failures > 0 else { return ceiling }
        let exponent = min(failures - 1, 16)
        let seconds = 30 * (1 << exponent)
        return min(.seconds(seconds), ceiling)
    }
}
