/// What the reminders and the feed do for someone who has died (a vCard
/// `DEATHDATE` or `X-DEATHDATE`): the `deceased` setting.
public enum DeceasedPolicy: String, Sendable, CaseIterable, Codable {
    /// No reminders, no feed events, not in `upcoming` (the default).
    case skip
    /// The birthday only, on the day itself: "Ada would have turned 80
    /// today", a feed event with one alarm on the day, and `upcoming` lists
    /// it. Nothing the days before; no anniversaries.
    case remember
}

/// Which name reminders and feed titles use: the `names` setting.
public enum NameStyle: String, Sendable, CaseIterable, Codable {
    /// The name as `people` shows it (the default).
    case full
    /// The person's nickname (vCard `NICKNAME`, a CSV `Nickname` column) when
    /// there is one, else the full name.
    case nickname

    /// The name to write for someone called `name`, with `nickname` ("" when none).
    public func pick(name: String, nickname: String) -> String {
        switch self {
        case .full: name
        case .nickname: nickname.trimmingWhitespace().isEmpty ? name : nickname
        }
    }
}

/// Where a person's reminders go when they fall on a weekend:
/// `birthdays remind PERSON --weekend friday` (work contacts, who are not
/// around on Saturdays and Sundays). `nil` (`--weekend off`) moves nothing.
public enum WeekendRule: String, Sendable, CaseIterable, Codable {
    /// A reminder whose day is a Saturday or a Sunday fires on the Friday
    /// before, at the delivery time (see ``ReminderPlanner``).
    case friday

    /// The day a reminder due on `day` fires on: the Friday before for a
    /// Saturday or a Sunday, else `day` itself.
    public func fireDay(for day: LocalDate) -> LocalDate {
        LocalDate(dayNumber: fireDay(forDayNumber: day.dayNumber))
    }

    /// ``fireDay(for:)`` on day numbers (days since 1970-01-01, a Thursday).
    public func fireDay(forDayNumber day: Int) -> Int {
        switch ((day + 4) % 7 + 7) % 7 {
        case 6: day - 1
        case 0: day - 2
        default: day
        }
    }
}
