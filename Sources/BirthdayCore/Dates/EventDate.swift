/// A birthday or an anniversary as a contact carries it: a month and a day,
/// and the year when the source knows it.
///
/// ## Missing years
/// The year is `nil` when the source does not give one: vCard 4 `--MMDD` and
/// `--MM-DD`, a value with `X-APPLE-OMIT-YEAR`, Google's `" --MM-DD"`, and the
/// placeholder year 1604 that iOS and CardBook write bare (as well as year
/// 0000). A placeholder year never yields an age.
///
/// ## Years
/// A known year is one of ``yearRange`` (1–3000): what an iCalendar feed can
/// carry as the start of a yearly event (libical writes no date after
/// 3000-12-31). A later year, such as a typo for 1985 written 9185, is no
/// date at all: the readers report it and keep the text, and the feed never
/// gets an event it cannot write.
///
/// ## February 29
/// `--02-29` is valid (it is checked against a leap year); `1990-02-29` is
/// not, because 1990 had no such day. In common years the occurrence falls on
/// February 28 or March 1 depending on ``LeapDayPolicy``.
public struct EventDate: Hashable, Sendable, Codable, CustomStringConvertible {
    public let month: Int
    public let day: Int
    public let year: Int?

    /// Year values that mean "no year" when a source writes them.
    public static let placeholderYears: Set<Int> = [0, 1604]

    /// The years a date may carry (a placeholder year aside).
    public static let yearRange = 1...3000

    /// Creates a date, or `nil` when it does not exist or its year is outside
    /// ``yearRange``. A placeholder year (``placeholderYears``) is stored as `nil`.
    public init?(year: Int?, month: Int, day: Int) {
        let known = year.flatMap { EventDate.placeholderYears.contains($0) ? nil : $0 }
        if let known, !EventDate.yearRange.contains(known) { return nil }
        // A year-less date is checked against a leap year, so --02-29 exists.
        guard LocalDate(year: known ?? 2000, month: month, day: day) != nil else { return nil }
        self.year = known
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD`, or `--MM-DD` without a year (the vCard 4 form).
    public var description: String {
        let md = (month < 10 ? "0" : "") + String(month) + "-" + (day < 10 ? "0" : "") + String(day)
        guard let year else { return "--" + md }
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + md
    }

    public var isLeapDay: Bool { month == 2 && day == 29 }
}

/// Where a February 29 birthday falls in a common year.
public enum LeapDayPolicy: String, Sendable, CaseIterable, Codable {
    /// The last day of February: the default, and what most people born on
    /// Feb 29 celebrate (and what Nextcloud's birthday calendar does).
    case feb28
    /// The day after February 28, which some legal systems use for coming of age.
    case mar1
}

/// What kind of yearly event a date is.
public enum EventKind: String, Sendable, Codable, CaseIterable, Comparable {
    case birthday
    case anniversary
    /// A date the card keeps under a label of its own (``LabelledDate``):
    /// the event carries its label (``Occurrence/labelled``).
    case labelled

    /// Birthdays, then anniversaries, then labelled dates.
    public static func < (lhs: EventKind, rhs: EventKind) -> Bool {
        lhs.rank < rhs.rank
    }

    /// Birthdays before anniversaries before labelled dates, as an integer for cheap comparisons.
    var rank: Int {
        switch self {
        case .birthday: 0
        case .anniversary: 1
        case .labelled: 2
        }
    }
}

extension EventDate {
    /// The day the event falls on in `year`, applying `leapDay` to Feb 29.
    public func occurrence(in year: Int, leapDay: LeapDayPolicy) -> LocalDate {
        if isLeapDay && !LocalDate.isLeapYear(year) {
            return leapDay == .feb28 ? LocalDate(unchecked: year, 2, 28) : LocalDate(unchecked: year, 3, 1)
        }
        return LocalDate(unchecked: year, month, day)
    }

    /// The next occurrence on or after `today`.
    ///
    /// Only the month and day matter for a known year before `today`: it is
    /// the starting point of ages, not a limit. A known year after today (a
    /// birthday typed in the future, usually a typo that the import reports)
    /// has nothing before it: its first occurrence is the date itself, so it
    /// gets no reminder and no age until then, as the feed, whose series
    /// starts there, shows it.
    public func nextOccurrence(onOrAfter today: LocalDate, leapDay: LeapDayPolicy) -> LocalDate {
        if let year, year > today.year { return occurrence(in: year, leapDay: leapDay) }
        let thisYear = occurrence(in: today.year, leapDay: leapDay)
        return thisYear >= today ? thisYear : occurrence(in: today.year + 1, leapDay: leapDay)
    }

    /// Whether the date, with its year, lies after `today` (year-less dates never do).
    public func isInFuture(of today: LocalDate) -> Bool {
        guard let year else { return false }
        return occurrence(in: year, leapDay: .feb28) > today
    }

    /// The age turned (or years married) on an occurrence in `year`;
    /// `nil` when the year is unknown or the result would not be positive.
    public func age(in year: Int) -> Int? {
        guard let born = self.year, year > born else { return nil }
        return year - born
    }
}
