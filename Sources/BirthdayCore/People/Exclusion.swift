/// Whether a person is left out of reminders and the feed, and why.
///
/// Two sources decide it, and the user's own choice wins:
/// - ``card``: the contact's card says so (Nextcloud's
///   `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR`). An import sets it from the card
///   every time, like the dates: removed from the card, it is gone after the
///   next import of that file.
/// - ``choice``: `birthdays exclude PERSON` or `birthdays include PERSON`.
///   It outlasts every import: `include` keeps someone in even while their
///   card still says to leave them out, and `exclude` keeps them out whatever
///   the card says, until the other command is given.
public struct Exclusion: Hashable, Sendable {
    /// What the user chose with `birthdays exclude` or `birthdays include`.
    public enum Choice: String, Hashable, Sendable, Codable {
        case exclude
        case include
    }

    /// The card asks to leave the person out of birthday calendars.
    public var card: Bool
    /// The user's choice; `nil` until one is made.
    public var choice: Choice?

    public init(card: Bool = false, choice: Choice? = nil) {
        self.card = card
        self.choice = choice
    }

    /// Excluded by the user's choice, else by the card.
    public var isExcluded: Bool {
        switch choice {
        case .exclude: true
        case .include: false
        case nil: card
        }
    }
}
