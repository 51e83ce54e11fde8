/// What an import did (or, with a dry run, would do).
public struct ImportReport: Sendable, Equatable {
    /// People new to the store.
    public var added = 0
    /// People already in the store whose names or dates changed.
    public var updated = 0
    /// People already in the store exactly as imported.
    public var unchanged = 0
    /// People with at least one date that could not be read.
    public var invalid = 0
    /// Contacts read that carry no birthday, anniversary or unreadable date:
    /// kept as people without dates (``Person/isUndated``), and also counted in
    /// ``added``, ``updated`` or ``unchanged``.
    public var withoutDates = 0
    /// Contacts read with neither a name nor any date: nobody to keep, not stored.
    public var emptySkipped = 0
    /// People who left the store: their file, which brought them, now has a
    /// contact with neither a name nor a date under their `UID`.
    public var removed = 0
    /// Files read.
    public var files = 0
    /// One entry per problem, in file order, then line order (``inFileOrder(_:files:)``).
    public var problems: [ImportProblem] = []
    /// The choices a card this import linked to a person had made differently
    /// from that person (the person's are kept), in card order.
    public var conflicts: [ChoiceConflict] = []
    /// Files found in a folder and not read, for they hold no contacts (a
    /// photo, notes, a CSV of something else), in the order they were found.
    public var skipped: [SkippedFile] = []

    public init() {}

    /// `problems` in the order of `files` (each named as the problems name
    /// it: the path as typed), then by line; problems on one line keep their
    /// order, and a problem about a file not in `files` comes last.
    public static func inFileOrder(_ problems: [ImportProblem], files: [String]) -> [ImportProblem] {
        var rank: [String: Int] = [:]
        // A problem's file is quoted as ``ImportProblem`` quotes it.
        for (index, file) in files.enumerated() where rank[SafeText.quoted(file)] == nil {
            rank[SafeText.quoted(file)] = index
        }
        return problems.enumerated()
            .sorted { a, b in
                (rank[a.element.file] ?? files.count, a.element.line, a.offset) < (rank[b.element.file] ?? files.count, b.element.line, b.offset)
            }
            .map(\.element)
    }
}

/// A file an import found in a folder and did not read, and why.
public struct SkippedFile: Hashable, Sendable, CustomStringConvertible {
    /// The path as the problems name it: under the folder as typed, its control characters visible (``SafeText/quoted(_:)``).
    public var file: String
    /// Why: "not a vCard or CSV file (binary data)".
    public var reason: String

    public init(file: String, reason: String) {
        self.file = SafeText.quoted(file)
        self.reason = reason
    }

    /// `skipped photos/me.jpg: not a vCard or CSV file (binary data)`.
    public var description: String { "skipped \(file): \(reason)" }
}
