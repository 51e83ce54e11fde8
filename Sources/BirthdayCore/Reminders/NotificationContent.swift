/// The words of a reminder, in the user's language (``Localizer``).
///
/// In English:
///
/// | kind, timing | title | body (year unknown) | body (year known) |
/// |---|---|---|---|
/// | birthday, day of | Ada's Birthday! | Today is Ada's birthday! | Ada turns 36 today! |
/// | birthday, day before | Birthday Tomorrow | Ada's birthday is tomorrow! | Ada turns 36 tomorrow! |
/// | anniversary, day of | Ada's Anniversary! | Today is Ada's anniversary! | Today is Ada's 10th anniversary! |
/// | anniversary, day before | Anniversary Tomorrow | Ada's anniversary is tomorrow! | Ada's 10th anniversary is tomorrow! |
///
/// Other languages place the name, the age and the ordinal where they go
/// ("Heute hat Ada den 10. Hochzeitstag!", "今日はAdaさんの結婚10周年です！") and
/// take the plural form the number needs ("Ada kończy dziś 22 lata!").
/// A person without a name is the language's "someone", capitalized at the
/// start of a text ("Someone's Birthday!", "Today is someone's birthday!").
/// The age comes from ``EventDate/age(in:)``: a placeholder year gives none.
///
/// The name is put on one line first (``SafeText/line(_:maxCharacters:)``):
/// line breaks, escape sequences and other control characters become spaces,
/// so a name can add no header to the user's ntfy or e-mail command and no
/// line to a terminal, and a name longer than ``maxNameCharacters`` is cut.
public enum NotificationContent {
    /// The longest name a title or body carries; longer ones end in `…`.
    public static let maxNameCharacters = 200

    /// Title and body for a reminder about `kind` of `name`, turning `age` (or married `age` years).
    public static func make(
        name raw: String,
        kind: EventKind,
        timing: NotificationRequest.Timing,
        age: Int?,
        in localizer: Localizer = .english
    ) -> (title: String, body: String) {
        let name = SafeText.line(raw, maxCharacters: maxNameCharacters)
        let title: Message
        let body: Message
        switch (kind, timing) {
        case (.birthday, .dayOf):
            title = .birthdayTitle(name: name)
            body = age.map { .birthdayToday(name: name, turning: $0) } ?? .birthdayToday(name: name)
        case (.birthday, .dayBefore):
            title = .plain(.birthdayTomorrowTitle)
            body = age.map { .birthdayTomorrow(name: name, turning: $0) } ?? .birthdayTomorrow(name: name)
        case (.anniversary, .dayOf):
            title = .anniversaryTitle(name: name)
            body = age.map { .anniversaryToday(name: name, years: $0) } ?? .anniversaryToday(name: name)
        case (.anniversary, .dayBefore):
            title = .plain(.anniversaryTomorrowTitle)
            body = age.map { .anniversaryTomorrow(name: name, years: $0) } ?? .anniversaryTomorrow(name: name)
        }
        return (localizer(title), localizer(body))
    }
}
