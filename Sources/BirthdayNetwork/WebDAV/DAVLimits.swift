/// What one WebDAV request (a CardDAV sync or discovery, a CalDAV publish) may cost: the bytes of its answer, and time in
/// all, from sending the request to the last byte of the answer (which a
/// server that drips a byte now and then cannot extend). docs/sources.md
/// ("Limits") states them; ``DAVSession`` holds every request to them.
package struct DAVLimits: Sendable, Equatable {
    /// The most one answer may hold, in bytes.
    package var answerBytes: Int
    /// The most one request may take, from sending it to the last byte of its answer.
    package var deadline: Duration

    package init(answerBytes: Int, deadline: Duration = DAVLimits.defaultDeadline) {
        self.answerBytes = answerBytes
        self.deadline = deadline
    }

    /// Two minutes; `BIRTHDAYS_HTTP_DEADLINE` (seconds) changes it.
    package static let defaultDeadline: Duration = .seconds(120)

    /// Discovery reads small PROPFIND answers: 4 MB each.
    package static func discovery(deadline: Duration = defaultDeadline) -> DAVLimits {
        DAVLimits(answerBytes: 4_000_000, deadline: deadline)
    }

    /// A sync: 64 MB per answer, or 256 KB for every card the last sync
    /// found when that is more (a first sync of a book gets its cards in
    /// one answer, photos included).
    package static func sync(knownCards: Int, deadline: Duration = defaultDeadline) -> DAVLimits {
        DAVLimits(answerBytes: max(64_000_000, knownCards * 256_000), deadline: deadline)
    }

    /// The deadline `BIRTHDAYS_HTTP_DEADLINE` asks for (whole seconds, at least 1), else the default.
    package static func deadline(environment: [String: String]) -> Duration {
        guard let text = environment["BIRTHDAYS_HTTP_DEADLINE"], let seconds = Int(text), seconds > 0 else { return defaultDeadline }
        return .seconds(seconds)
    }
}
