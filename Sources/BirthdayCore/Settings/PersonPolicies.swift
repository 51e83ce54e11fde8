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
