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
    /// Contacts read that carry no birthday, anniversary or unreadable date; not stored.
    public var withoutDates = 0
    /// People who left the store: their file, which brought their dates, now has none for them.
    public var removed = 0
    /// Files read.
    public var files = 0
    /// One entry per problem, in file order, then line order (``inFileOrder(_:files:)``).
    public var problems: [ImportProblem] = []

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
