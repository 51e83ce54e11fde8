import Foundation
import Synchronization

/// A birthday or an anniversary written in a calendar other than the
/// Gregorian one, as the contact gives it: a lunar birthday (Chinese 11th
/// month, day 1), a Hebrew one (14 Adar I), a Hijri one.
///
/// It is an event of its own: a person with a Gregorian `BDAY` and a lunar
/// `X-ALTBDAY` has two birthdays, each with its reminders and feed events,
/// and neither is derived from the other.
///
/// ## Fields
/// Foundation's numbering, which is also what Apple writes
/// (``CalendarDateValue``): ``era`` is the 60-year cycle for `chinese` and
/// `dangi` (era 78 covers 1984–2043), the reign for `japanese`, 0 or 1
/// elsewhere; ``month`` counts from 1 (Hebrew: 1 Tishri … 6 Adar I,
/// 7 Adar or Adar II … 13 Elul); ``isLeapMonth`` marks a Chinese or Korean
/// leap month (the 4th month's leap month follows the 4th month).
///
/// ## Missing years
/// ``era`` and ``year`` are both `nil` when the contact gives no year (Apple
/// writes `--1101`). A date without a year is valid when its month and day
/// exist in at least one year between 1900 and 2100; it never yields an age.
///
/// ## Which Gregorian day
/// Each year the date falls on the Gregorian day its calendar gives
/// (``occurrence(inYear:)``):
/// - a day that does not exist that year (the 30th of a 29-day lunar month,
///   30 Cheshvan in a short year, Esfand 30 in a common Persian year,
///   February 29 in the `japanese`, `buddhist` and `roc` calendars) falls on
///   the **last day of that month**;
/// - a leap month that does not exist that year falls in the **ordinary month
///   of the same number** (a birthday in the leap 4th month is kept in the
///   4th month), as most families do (RFC 7529 `SKIP=BACKWARD`); a birthday
///   in an ordinary month never moves into a leap month;
/// - Hebrew 6 (Adar I) falls in Adar in common years; 7 (Adar) falls in
///   Adar II in leap years (the custom; RFC 7529 `SKIP=FORWARD` for `5L`).
///
/// A lunar year and a Gregorian year are not aligned: a date can fall twice
/// in one Gregorian year and not at all in the next (the Chinese 12th month,
/// day 8 fell on 1908-01-11 and 1908-12-30). So occurrences are counted per
/// year of the date's own calendar (``linearYear``), never per Gregorian year.
///
/// ## Ages
/// The age turned on an occurrence is the number of the calendar's years
/// since the birth (a Chinese birthday counts Chinese years); `nil` without a
/// year, or when it would not be positive. A birth date after today gets no
/// occurrence and no age before the date itself, as Gregorian dates do.
public struct CalendarDate: Hashable, Sendable, CustomStringConvertible {
    public let calendar: CalendarSystem
    /// The era (see the type's documentation); `nil` when the year is unknown.
    public let era: Int?
    /// The year within the era; `nil` when unknown.
    public let year: Int?
    public let month: Int
    public let isLeapMonth: Bool
    public let day: Int
    /// The Gregorian day of the date itself, when its year is known.
    public let gregorian: LocalDate?

    /// The date, or `nil` when it does not exist in its calendar (checked by
    /// converting it with Foundation and back, since Foundation's own
    /// conversion is lenient: it rolls a missing day or leap month over to
    /// another date), when its Gregorian day lies outside
    /// ``EventDate/yearRange``, or when an era comes without a year or a
    /// year without an era. `isLeapMonth` is only for calendars with leap months.
    public init?(calendar: CalendarSystem, era: Int?, year: Int?, month: Int, isLeapMonth: Bool = false, day: Int) {
        guard month >= 1, month <= 13, day >= 1, day <= 31, !isLeapMonth || calendar.hasLeapMonths else { return nil }
        self.calendar = calendar
        self.month = month
        self.isLeapMonth = isLeapMonth
        self.day = day
        switch (era, year) {
        case (let era?, let year?):
            self.era = era
            self.year = year
            guard let (first, length) = CalendarDate.monthStart(calendar, era: era, year: year, month: month, leap: isLeapMonth, adarFallback: false),
                day <= length
            else { return nil }
            let birth = first.adding(days: day - 1)
            guard EventDate.yearRange.contains(birth.year) else { return nil }
            // The day itself read back: an era that ended within the month (a Japanese reign) is caught here.
            let back = calendar.utc.dateComponents([.era, .year, .month, .day], from: CalendarDate.noon(birth))
            guard back.era == era, back.year == year, back.month == month, back.day == day, (back.isLeapMonth ?? false) == isLeapMonth else {
                return nil
            }
            gregorian = birth
        case (nil, nil):
            self.era = nil
            self.year = nil
            gregorian = nil
            guard CalendarDate.existsInSomeYear(calendar, month: month, leap: isLeapMonth, day: day) else { return nil }
        default:
            return nil
        }
    }

    /// A date as stored, without checking it again: a date accepted once
    /// stays, even if a later ICU moved a day (its occurrences still follow the
    /// rules). `gregorian` is the day stored with it; without one it is computed.
    package init(stored calendar: CalendarSystem, era: Int?, year: Int?, month: Int, isLeapMonth: Bool, day: Int, gregorian: LocalDate? = nil) {
        self.calendar = calendar
        self.era = year == nil ? nil : era
        self.year = era == nil ? nil : year
        self.month = month
        self.isLeapMonth = isLeapMonth && calendar.hasLeapMonths
        self.day = day
        if let era, let year {
            self.gregorian =
                gregorian
                ?? CalendarDate.monthStart(calendar, era: era, year: year, month: month, leap: isLeapMonth, adarFallback: true).map {
                    $0.first.adding(days: min(day, $0.length) - 1)
                }
        } else {
            self.gregorian = nil
        }
    }

    /// The date as written, in ISO 8601's order: `0078-0002-11-01` (era,
    /// year, month, day) for the calendars whose years need their era
    /// (`chinese`, `dangi`, `japanese`), `5784-06-14` for the others, an `L`
    /// after a leap month (`0078-0037-04L-10`), and `--11-01` without a year.
    public var written: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let monthDay = pad(month, 2) + (isLeapMonth ? "L" : "") + "-" + pad(day, 2)
        guard let era, let year else { return "--" + monthDay }
        let prefix = calendar.eraOfEralessYear == nil ? pad(era, 4) + "-" : ""
        return prefix + pad(year, 4) + "-" + monthDay
    }

    /// The calendar and the date as written: `chinese 0078-0002-11-01`.
    public var description: String { calendar.rawValue + " " + written }

    // MARK: Years

    /// A year of the date's calendar as one increasing number: the cycle and
    /// its year for `chinese` and `dangi` (`(era − 1) × 60 + year`, 4622 for
    /// the year that began in 1985), the Gregorian year for `japanese`,
    /// `buddhist` and `roc` (whose months are the Gregorian ones), and the
    /// year itself elsewhere (counted backwards before era 1 in `coptic`,
    /// `ethiopic` and `roc`).
    public var linearYear: Int? {
        guard let era, let year else { return nil }
        if calendar.sharesGregorianDays { return gregorian?.year }
        return CalendarDate.linear(calendar, era: era, year: year)
    }

    static func linear(_ calendar: CalendarSystem, era: Int, year: Int) -> Int {
        switch calendar {
        case .chinese, .dangi: (era - 1) * 60 + year
        case .coptic, .ethiopic, .republicOfChina: era == 0 ? 1 - year : year
        default: year
        }
    }

    /// The era and year of a ``linearYear`` (not for the calendars that share Gregorian days).
    static func eraAndYear(_ calendar: CalendarSystem, linear: Int) -> (era: Int, year: Int) {
        switch calendar {
        case .chinese, .dangi:
            let cycle = (linear - 1).quotientAndRemainder(dividingBy: 60)
            let (quotient, remainder) = cycle.remainder < 0 ? (cycle.quotient - 1, cycle.remainder + 60) : cycle
            return (quotient + 1, remainder + 1)
        case .coptic, .ethiopic, .republicOfChina: return linear <= 0 ? (0, 1 - linear) : (1, linear)
        default: return (0, linear)
        }
    }

    /// The ``linearYear`` of the calendar year that contains `day`.
    static func linearYear(_ calendar: CalendarSystem, containing day: LocalDate) -> Int? {
        if calendar.sharesGregorianDays { return day.year }
        let parts = calendar.utc.dateComponents([.era, .year], from: noon(day))
        guard let era = parts.era, let year = parts.year else { return nil }
        return linear(calendar, era: era, year: year)
    }

    // MARK: Occurrences

    /// The Gregorian day the date falls on in the calendar year `linearYear`
    /// (see the type's documentation for missing days and leap months), or
    /// `nil` when Foundation cannot place the month that year.
    public func occurrence(inYear linearYear: Int) -> LocalDate? {
        if calendar.sharesGregorianDays {
            guard month <= 12 else { return nil }
            return LocalDate(unchecked: linearYear, month, min(day, LocalDate.daysIn(month: month, year: linearYear)))
        }
        let (era, year) = CalendarDate.eraAndYear(calendar, linear: linearYear)
        let start =
            (isLeapMonth ? CalendarDate.monthStart(calendar, era: era, year: year, month: month, leap: true, adarFallback: false) : nil)
            ?? CalendarDate.monthStart(calendar, era: era, year: year, month: month, leap: false, adarFallback: true)
        guard let (first, length) = start else { return nil }
        return first.adding(days: min(day, length) - 1)
    }

    /// One occurrence and the calendar year it belongs to.
    public struct Occurrence: Hashable, Sendable {
        /// The Gregorian day.
        public var date: LocalDate
        /// The ``CalendarDate/linearYear`` of the calendar year it falls in.
        public var year: Int
    }

    /// The first occurrence on or after `today`: the birth itself when it
    /// lies ahead, else the occurrence in the calendar year that contains
    /// `today` or, once that has passed, in the next one. `nil` only when
    /// Foundation cannot place the date in three years running.
    public func nextOccurrence(onOrAfter today: LocalDate) -> Occurrence? {
        if let gregorian, gregorian > today, let year = linearYear { return Occurrence(date: gregorian, year: year) }
        guard let current = CalendarDate.linearYear(calendar, containing: today) else { return nil }
        for year in current...(current + 2) {
            if let date = occurrence(inYear: year), date >= today { return Occurrence(date: date, year: year) }
        }
        return nil
    }

    /// `count` consecutive occurrences, one per calendar year, starting with
    /// the first on or after `start` (and never before the birth itself).
    public func occurrences(from start: LocalDate, count: Int) -> [Occurrence] {
        guard count > 0, var year = CalendarDate.linearYear(calendar, containing: start) else { return [] }
        let from = max(start, gregorian ?? start)
        if let birthYear = linearYear { year = max(year, birthYear) }
        var result: [Occurrence] = []
        var attempts = 0
        while result.count < count && attempts < count + 4 {
            if let date = occurrence(inYear: year), date >= from { result.append(Occurrence(date: date, year: year)) }
            year += 1
            attempts += 1
        }
        return result
    }

    /// The age turned (or years married) on an occurrence in the calendar
    /// year `linearYear`: calendar years since the date's own; `nil` when
    /// the year is unknown or the result would not be positive.
    public func age(inYear linearYear: Int) -> Int? {
        guard let born = self.linearYear, linearYear > born else { return nil }
        return linearYear - born
    }

    /// Whether the date, with its year, lies after `today` (year-less dates never do).
    public func isInFuture(of today: LocalDate) -> Bool {
        guard let gregorian else { return false }
        return gregorian > today
    }

    // MARK: Foundation

    /// Noon UTC of a Gregorian day: a civil day, far from any day boundary.
    static func noon(_ day: LocalDate) -> Date {
        Date(timeIntervalSince1970: Double(day.dayNumber) * 86_400 + 43_200)
    }

    static func localDate(_ date: Date) -> LocalDate {
        LocalDate(dayNumber: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// The first Gregorian day and the length of one month, or `nil` when that
    /// month does not exist in that year. Foundation's `date(from:)` is
    /// lenient (it rolls a leap month that year lacks into another month,
    /// and a 13th month into the next year), so the day it gives is read
    /// back and must be day 1 of the very month asked for. With
    /// `adarFallback`, Hebrew month 6 (Adar I) in a common year gives Adar.
    static func monthStart(
        _ calendar: CalendarSystem,
        era: Int,
        year: Int,
        month: Int,
        leap: Bool,
        adarFallback: Bool
    ) -> (first: LocalDate, length: Int)? {
        let utc = calendar.utc
        var asked = DateComponents()
        asked.era = era
        asked.year = year
        asked.month = month
        asked.day = 1
        asked.hour = 12
        if calendar.hasLeapMonths { asked.isLeapMonth = leap }
        guard let first = utc.date(from: asked) else { return nil }
        let got = utc.dateComponents([.era, .year, .month, .day], from: first)
        guard got.era == era, got.year == year, got.day == 1, (got.isLeapMonth ?? false) == leap else { return nil }
        guard got.month == month || (adarFallback && calendar == .hebrew && month == 6 && got.month == 7) else { return nil }
        guard let length = utc.range(of: .day, in: .month, for: first)?.count else { return nil }
        return (localDate(first), length)
    }

    /// Whether (month, leap, day) exists in at least one calendar year
    /// between 1900 and 2100 (what a date without a year must satisfy).
    static func existsInSomeYear(_ calendar: CalendarSystem, month: Int, leap: Bool, day: Int) -> Bool {
        if calendar.sharesGregorianDays { return LocalDate(year: 2000, month: month, day: day) != nil }
        return day <= LongestMonths.shared.longest(calendar, month: month, leap: leap)
    }
}

/// The longest each month of a calendar gets between 1900 and 2100 (0 for
/// a month that never occurs, such as the Chinese 12th month's leap month),
/// found by walking those years once per calendar and process: a file with
/// thousands of dates without a year costs one walk, not one each.
final class LongestMonths: Sendable {
    static let shared = LongestMonths()

    private struct Key: Hashable {
        var month: Int
        var leap: Bool
    }

    private let tables = Mutex<[CalendarSystem: [Key: Int]]>([:])

    func longest(_ calendar: CalendarSystem, month: Int, leap: Bool) -> Int {
        if let table = tables.withLock({ $0[calendar] }) { return table[Key(month: month, leap: leap)] ?? 0 }
        let table = Self.walk(calendar)
        tables.withLock { $0[calendar] = table }
        return table[Key(month: month, leap: leap)] ?? 0
    }

    private static func walk(_ calendar: CalendarSystem) -> [Key: Int] {
        var table: [Key: Int] = [:]
        guard let first = CalendarDate.linearYear(calendar, containing: LocalDate(unchecked: 1900, 6, 1)),
            let last = CalendarDate.linearYear(calendar, containing: LocalDate(unchecked: 2100, 6, 1))
        else { return table }
        for linear in first...last {
            let (era, year) = CalendarDate.eraAndYear(calendar, linear: linear)
            for month in 1...13 {
                for leap in calendar.hasLeapMonths ? [false, true] : [false] {
                    guard let (_, length) = CalendarDate.monthStart(calendar, era: era, year: year, month: month, leap: leap, adarFallback: false)
                    else { continue }
                    let key = Key(month: month, leap: leap)
                    table[key] = max(table[key] ?? 0, length)
                }
            }
        }
        return table
    }
}

/// A non-Gregorian date of one person and what it is: their birthday or
/// anniversary in that calendar. A person has at most one per kind and calendar.
public struct AlternateDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var kind: EventKind
    public var date: CalendarDate

    public init(kind: EventKind, date: CalendarDate) {
        self.kind = kind
        self.date = date
    }

    /// Birthdays first, then by calendar.
    public static func < (lhs: AlternateDate, rhs: AlternateDate) -> Bool {
        (lhs.kind.rank, lhs.date.calendar.rawValue) < (rhs.kind.rank, rhs.date.calendar.rawValue)
    }

    /// `birthday chinese 0078-0002-11-01`.
    public var description: String { kind.rawValue + " " + date.description }
}

/// Next occurrences of many non-Gregorian dates on or after one day,
/// computed once per (calendar, month, leap month, day): thousands of people
/// share a few hundred such dates, and one Chinese computation costs about
/// as much as a hundred Gregorian ones.
package struct CalendarOccurrences {
    private struct Key: Hashable {
        var calendar: CalendarSystem
        var month: Int
        var leap: Bool
        var day: Int
    }

    let today: LocalDate
    private var memo: [Key: CalendarDate.Occurrence?] = [:]

    package init(today: LocalDate) {
        self.today = today
    }

    /// ``CalendarDate/nextOccurrence(onOrAfter:)`` of `date` on or after ``today``.
    package mutating func next(_ date: CalendarDate) -> CalendarDate.Occurrence? {
        // A birth after today is its own first occurrence: not shared.
        if date.isInFuture(of: today) { return date.nextOccurrence(onOrAfter: today) }
        let key = Key(calendar: date.calendar, month: date.month, leap: date.isLeapMonth, day: date.day)
        if let known = memo[key] { return known }
        let found = date.nextOccurrence(onOrAfter: today)
        memo[key] = found
        return found
    }
}
