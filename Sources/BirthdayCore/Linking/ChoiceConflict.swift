/// A choice made differently on a card and on the person it became shown as
/// (the store's `relink`, after an import, a sync or `link`): the shown
/// person's value is kept, the card keeps its own (used again if it is
/// unlinked), and the conflict is said, not dropped.
public struct ChoiceConflict: Sendable, Hashable, Codable {
    /// The choices a linked card brings to the person it is shown as.
    public enum Choice: String, Sendable, Hashable, CaseIterable, Codable {
        case exclusion, reminderDays, channels, weekend, zone, note, greeting
    }

    public var choice: Choice
    /// The person kept, and their value.
    public var shownAs: String
    public var card: String
    /// The shown person's value (kept), as stored.
    public var kept: String
    /// The card's value (still the card's own, used again if it is unlinked).
    public var other: String

    public init(choice: Choice, shownAs: String, card: String, kept: String, other: String) {
        self.choice = choice
        self.shownAs = shownAs
        self.card = card
        self.kept = kept
        self.other = other
    }
}
