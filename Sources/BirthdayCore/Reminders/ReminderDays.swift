/// How many days before an event its reminders come: the `reminders`
/// setting (default `1,0`: the day before and the day of) and a person's own
/// choice (`birthdays remind PERSON --days 7,1,0`).
///
/// Written as a comma list of whole days, `0` being the day itself:
/// `7,1,0` adds a reminder a week ahead, `0` alone is the day only (what
/// `day-before off` meant before this setting existed). Kept in decreasing
/// order without repeats, so `0, 1,7,1` is `7,1,0`. Each reminder fires at the
/// delivery time on its day, and one whose moment has passed is skipped
/// like any other (see ``ReminderPlanner``).
public struct ReminderDays: Hashable, Sendable, CustomStringConvertible {
    /// The days, largest first, without repeats; never empty.
    public let days: [Int]

    /// The most days ahead a reminder may come: a year.
    public static let maximum = 365
    /// The most reminders per event.
    public static let maximumCount = 8

    /// The default: the day before and the day of.
    public static let standard = ReminderDays(uncheckedDays: [1, 0])
    /// The day itself only.
    public static let dayOfOnly = ReminderDays(uncheckedDays: [0])

    private init(uncheckedDays days: [Int]) {
        self.days = days
    }

    /// `nil` when `days` is empty, has more than ``maximumCount`` different
    /// values, or a value outside `0...maximum`.
    public init?(_ days: [Int]) {
        let unique = Set(days)
        guard !unique.isEmpty, unique.count <= Self.maximumCount, unique.allSatisfy({ (0...Self.maximum).contains($0) }) else { return nil }
        self.days = unique.sorted(by: >)
    }

    /// Parses `7,1,0` (spaces around the numbers are allowed); `nil` for
    /// anything else, such as `-1`, `1,,0`, `week` or an empty text.
    public init?(_ text: String) {
        var days: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingWhitespace()
            guard !trimmed.isEmpty, trimmed.utf8.count <= 3, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let day = Int(trimmed)
            else { return nil }
            days.append(day)
        }
        self.init(days)
    }

    /// `7,1,0`.
    public var description: String { days.map(String.init).joined(separator: ",") }

    /// Whether the day before is among the days (what `day-before` reads).
    public var includesDayBefore: Bool { days.contains(1) }

    /// These days with the day before added (`on`) or removed (`off`): the
    /// old `day-before` setting, kept as an alias. Removing the only day
    /// leaves the day of.
    public func settingDayBefore(_ on: Bool) -> ReminderDays {
        let changed = on ? days + [1] : days.filter { $0 != 1 }
        return ReminderDays(changed.isEmpty ? [0] : changed) ?? self
    }
}
