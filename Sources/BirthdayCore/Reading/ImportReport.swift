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
    /// One entry per problem, in file order.
    public var problems: [ImportProblem] = []

    public init() {}
}
