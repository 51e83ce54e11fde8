/// The words of a reminder.
///
/// | kind, timing | title | body (year unknown) | body (year known) |
/// |---|---|---|---|
/// | birthday, day of | Ada's Birthday! | Today is Ada's birthday! | Ada turns 36 today! |
/// | birthday, day before | Birthday Tomorrow | Ada's birthday is tomorrow! | Ada turns 36 tomorrow! |
/// | anniversary, day of | Ada's Anniversary! | Today is Ada's anniversary! | Today is Ada's 10th anniversary! |
/// | anniversary, day before | Anniversary Tomorrow | Ada's anniversary is tomorrow! | Ada's 10th anniversary is tomorrow! |
///
/// A person without a name is "Someone" ("Someone's Birthday!"), written
/// "someone" inside a sentence ("Today is someone's birthday!").
/// The age comes from ``EventDate/age(in:)``: a placeholder year gives none.
///
/// The name is put on one line first (``SafeText/line(_:maxCharacters:)``):
/// line breaks, escape sequences and other control characters become spaces,
/// so a name can add no header to the user's ntfy or e-mail command and no
/// line to a terminal, and a name longer than ``maxNameCharacters`` is cut.
public enum NotificationContent {
    /// The word used when a person has no name.
    public static let unnamed = "Someone"
    /// The longest name a title or body carries; longer ones end in `…`.
    public static let maxNameCharacters = 200

    /// Title and body for a reminder about `kind` of `name`, turning `age` (or married `age` years).
    public static func make(name: String, kind: EventKind, timing: NotificationRequest.Timing, age: Int?) -> (title: String, body: String) {
        let trimmed = SafeText.line(name, maxCharacters: maxNameCharacters)
        let who = trimmed.isEmpty ? unnamed : trimmed
        let inner = trimmed.isEmpty ? unnamed.lowercased() : trimmed
        switch (kind, timing) {
        case (.birthday, .dayOf):
            return (who + "'s Birthday!", age.map { "\(who) turns \($0) today!" } ?? "Today is \(inner)'s birthday!")
        case (.birthday, .dayBefore):
            return ("Birthday Tomorrow", age.map { "\(who) turns \($0) tomorrow!" } ?? "\(who)'s birthday is tomorrow!")
        case (.anniversary, .dayOf):
            return (who + "'s Anniversary!", age.map { "Today is \(inner)'s \(ordinal($0)) anniversary!" } ?? "Today is \(inner)'s anniversary!")
        case (.anniversary, .dayBefore):
            return ("Anniversary Tomorrow", age.map { "\(who)'s \(ordinal($0)) anniversary is tomorrow!" } ?? "\(who)'s anniversary is tomorrow!")
        }
    }

    /// English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 111th.
    public static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 100, n % 10) {
        case (11...13, _): suffix = "th"
        case (_, 1): suffix = "st"
        case (_, 2): suffix = "nd"
        case (_, 3): suffix = "rd"
        default: suffix = "th"
        }
        return String(n) + suffix
    }
}
