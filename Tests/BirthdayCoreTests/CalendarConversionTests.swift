import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Foundation's conversions, and the occurrence rule on top of them,
/// checked against independent implementations over 50 years (1980–2029):
/// python3-lunardate (Chinese, Hong Kong Observatory tables),
/// python3-pyluach (Hebrew, arithmetic), python3-convertdate (Islamic
/// civil, arithmetic; Persian, from the vernal equinox).
///
/// Python lists the first day of every month of every year in the range
/// (`Months.script`); here every month start must be day 1 of the same month
/// in Foundation, and the day before the next start its last day, so every
/// day of the 50 years is compared. Then the rule of ``CalendarDate``
/// (a missing day on the month's last day, a missing leap month in the
/// ordinary month, Adar I in Adar) is applied to Python's months and must
/// give the days ``CalendarDate/occurrence(inYear:)`` gives.
@Suite struct CalendarConversionTests {
    static let firstYear = 1980
    static let lastYear = 2029

    static let available = SystemTools.pythonHas("lunardate", "pyluach.dates", "convertdate.islamic", "convertdate.persian")
    static let missing = Comment(
        rawValue:
            "needs /usr/bin/python3 with lunardate, pyluach and convertdate (apt-get install python3-lunardate python3-pyluach python3-convertdate)"
    )

    /// Month starts from the Python libraries, as JSON: for each calendar a
    /// list of `[year, month, leap, "YYYY-MM-DD"]` in the libraries' own numbering.
    enum Months {
        static let script = #"""
            import json, sys, datetime
            from lunardate import LunarDate
            from pyluach import dates as hdates
            from convertdate import islamic, persian
            first, last = int(sys.argv[1]), int(sys.argv[2])
            out = {'chinese': [], 'hebrew': [], 'islamic-civil': [], 'persian': []}
            # lunardate's year is the Gregorian year the Chinese year starts in; a missing leap month raises.
            for y in range(first - 1, last + 1):
                for m in range(1, 13):
                    for leap in (False, True):
                        try:
                            d = LunarDate(y, m, 1, leap).toSolarDate()
                        except ValueError:
                            continue
                        out['chinese'].append([y, m, leap, d.isoformat()])
            # pyluach: 1 Nisan ... 6 Elul, 7 Tishrei ... 12 Adar (Adar I in leap years), 13 Adar II.
            for y in range(first + 3759, last + 3762):
                try:
                    hdates.HebrewDate(y, 13, 1)
                    leap = True
                except ValueError:
                    leap = False
                for m in range(1, 14 if leap else 13):
                    out['hebrew'].append([y, m, leap, hdates.HebrewDate(y, m, 1).to_pydate().isoformat()])
            g0, g1 = islamic.from_gregorian(first - 1, 1, 1)[0], islamic.from_gregorian(last + 1, 12, 31)[0]
            for y in range(g0, g1 + 1):
                for m in range(1, 13):
                    out['islamic-civil'].append([y, m, False, datetime.date(*islamic.to_gregorian(y, m, 1)).isoformat()])
            # convertdate finds each Persian year from the vernal equinox (slow): it is asked for
            # Farvardin 1 only; months 1-6 have 31 days, 7-11 30, Esfand the rest of the year.
            p0, p1 = persian.from_gregorian(first - 1, 1, 1)[0], persian.from_gregorian(last + 1, 12, 31)[0]
            for y in range(p0, p1 + 1):
                start = datetime.date(*persian.to_gregorian(y, 1, 1))
                for m in range(1, 13):
                    offset = 31 * (m - 1) if m <= 7 else 186 + 30 * (m - 7)
                    out['persian'].append([y, m, False, (start + datetime.timedelta(days=offset)).isoformat()])
            json.dump(out, sys.stdout)
            """#

        /// One month of the Python table, in Foundation's terms.
        struct Month {
            var linearYear: Int
            /// Foundation's month number.
            var month: Int
            var leap: Bool
            var start: LocalDate
            /// The library's own labels.
            var libraryYear: Int
            var libraryMonth: Int
            var libraryLeap: Bool
        }

        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        /// The table, made once for the tests that read it (Python takes a second or more).
        static let cached = Result { () throws(Failure) in try make() }

        /// The months of every calendar, sorted by their first day.
        static func load() throws -> [CalendarSystem: [Month]] {
            try cached.get()
        }

        private static func make() throws(Failure) -> [CalendarSystem: [Month]] {
            let arguments = [SystemTools.python, "-c", script, String(CalendarConversionTests.firstYear), String(CalendarConversionTests.lastYear)]
            guard let output = try? TestProcess.run(arguments), output.status == 0 else { throw Failure(description: "python3 failed") }
            guard let object = try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8)), let table = object as? [String: [[Any]]] else {
                throw Failure(description: "python3 printed no table")
            }
            var result: [CalendarSystem: [Month]] = [:]
            for (name, rows) in table {
                guard let calendar = CalendarSystem(rawValue: name) else { throw Failure(description: "unknown calendar \(name)") }
                result[calendar] = try rows.map { row throws(Failure) in
                    guard row.count == 4, let year = row[0] as? Int, let month = row[1] as? Int, let flag = row[2] as? Bool,
                        let start = (row[3] as? String).flatMap({ LocalDate(iso: $0) })
                    else { throw Failure(description: "a row that is not [year, month, leap, date]: \(row)") }
                    return Month(
                        linearYear: foundationYear(calendar, year),
                        month: foundationMonth(calendar, month, leapFlag: flag),
                        leap: calendar == .chinese && flag,
                        start: start,
                        libraryYear: year,
                        libraryMonth: month,
                        libraryLeap: flag
                    )
                }
                .sorted { $0.start < $1.start }
            }
            return result
        }

        /// lunardate's year is the Gregorian year the Chinese year starts in: 1985 is 4622 (era 78, year 2).
        static func foundationYear(_ calendar: CalendarSystem, _ year: Int) -> Int {
            calendar == .chinese ? year + 2637 : year
        }

        /// pyluach counts from Nisan (Adar I is 12 in a leap year, Adar II 13);
        /// Foundation from Tishri (6 Adar I, 7 Adar or Adar II). `leapFlag` is
        /// pyluach's leap year, or lunardate's leap month.
        static func foundationMonth(_ calendar: CalendarSystem, _ month: Int, leapFlag: Bool) -> Int {
            guard calendar == .hebrew else { return month }
            switch month {
            case 7...11: return month - 6
            case 12: return leapFlag ? 6 : 7
            case 13: return 7
            default: return month + 7
            }
        }
    }

    /// Foundation's reading of a Gregorian day: (linear year, month, leap, day).
    static func foundation(_ calendar: CalendarSystem, _ day: LocalDate) -> (year: Int, month: Int, leap: Bool, day: Int)? {
        let parts = calendar.utc.dateComponents([.era, .year, .month, .day], from: CalendarDate.noon(day))
        guard let era = parts.era, let year = parts.year, let month = parts.month, let dayOfMonth = parts.day else { return nil }
        return (CalendarDate.linear(calendar, era: era, year: year), month, parts.isLeapMonth ?? false, dayOfMonth)
    }

    @Test(.enabled(if: available, missing))
    func everyDayOf50YearsIsTheSameDayInFoundationAndInTheIndependentLibraries() throws {
        let months = try Months.load()
        let first = LocalDate(year: Self.firstYear, month: 1, day: 1)!
        let last = LocalDate(year: Self.lastYear, month: 12, day: 31)!
        for calendar in [CalendarSystem.chinese, .hebrew, .islamicCivil, .persian] {
            let table = try #require(months[calendar])
            var days = 0
            for (month, next) in zip(table, table.dropFirst()) where next.start > first && month.start <= last {
                let length = month.start.days(to: next.start)
                #expect((29...31).contains(length), "\(calendar) \(month.libraryYear)/\(month.libraryMonth): \(length) days")
                let opening = try #require(Self.foundation(calendar, month.start))
                let closing = try #require(Self.foundation(calendar, next.start.adding(days: -1)))
                let label = "\(calendar.rawValue) \(month.libraryYear)/\(month.libraryMonth)\(month.libraryLeap ? "L" : "") from \(month.start)"
                #expect(
                    opening.year == month.linearYear && opening.month == month.month && opening.leap == month.leap && opening.day == 1,
                    "\(label)"
                )
                #expect(
                    closing.year == month.linearYear && closing.month == month.month && closing.leap == month.leap && closing.day == length,
                    "\(label): Foundation ends it on day \(closing.day), the library after \(length) days"
                )
                days += length
            }
            // Every day of the 50 years lies in one of the months compared.
            #expect(days >= first.days(to: last) + 1, "\(calendar)")
        }
    }

    /// The occurrence rule applied to the libraries' months: the start of the
    /// month (the ordinary month when the leap month is missing; Adar when
    /// Adar I is), plus the day, at most the month's last.
    @Test(.enabled(if: available, missing))
    func occurrencesFollowTheRuleOnTheIndependentLibrariesMonths() throws {
        let months = try Months.load()
        let first = LocalDate(year: Self.firstYear, month: 1, day: 1)!
        let last = LocalDate(year: Self.lastYear, month: 12, day: 31)!
        let cases: [(CalendarSystem, [(month: Int, leap: Bool, day: Int)])] = [
            (.chinese, (1...12).flatMap { m in [1, 15, 29, 30].map { (m, false, $0) } + [1, 30].map { (m, true, $0) } }),
            (.hebrew, (1...13).flatMap { m in [1, 29, 30].map { (m, false, $0) } }),
            (.islamicCivil, (1...12).flatMap { m in [1, 29, 30].map { (m, false, $0) } }),
            (.persian, (1...12).flatMap { m in [1, 30, 31].map { (m, false, $0) } }),
        ]
        var compared = 0
        for (calendar, dates) in cases {
            let table = try #require(months[calendar])
            let years = Set(table.map(\.linearYear)).sorted()
            for (month, leap, day) in dates {
                let date = CalendarDate(stored: calendar, era: nil, year: nil, month: month, isLeapMonth: leap, day: day)
                for year in years {
                    let inYear = table.enumerated().filter { $0.element.linearYear == year && $0.element.month == month }
                    guard let found = inYear.first(where: { $0.element.leap == leap }) ?? inYear.first(where: { !$0.element.leap }),
                        found.offset + 1 < table.count
                    else { continue }
                    let start = found.element.start
                    let length = start.days(to: table[found.offset + 1].start)
                    let expected = start.adding(days: min(day, length) - 1)
                    guard expected >= first, expected <= last else { continue }
                    #expect(date.occurrence(inYear: year) == expected, "\(date) in \(calendar.rawValue) year \(year)")
                    compared += 1
                }
            }
        }
        // 50 years of 72 Chinese, 39 Hebrew, 36 Islamic and 36 Persian dates, less the edges of the range.
        #expect(compared > 8_500)
    }

    @Test(.enabled(if: available, missing))
    func applesExamplesAreTheLibrariesDays() throws {
        let months = try Months.load()
        // 007800021101 (the issue's example) and 0078003704L10: lunardate puts 11/1 of the year
        // starting in 1985 on 1985-12-12, and the leap 4th month's 10th of 2020 on 2020-06-01.
        let chinese = try #require(months[.chinese])
        #expect(chinese.first { $0.libraryYear == 1985 && $0.libraryMonth == 11 && !$0.libraryLeap }?.start == LocalDate(iso: "1985-12-12"))
        #expect(
            chinese.first { $0.libraryYear == 2020 && $0.libraryMonth == 4 && $0.libraryLeap }?.start.adding(days: 9) == LocalDate(iso: "2020-06-01")
        )
        let date = try #require(
            { if case .date(let d) = CalendarDateValue.read("007800021101", calscale: "chinese") { return d } else { return nil } }()
        )
        #expect(date.gregorian == LocalDate(iso: "1985-12-12"))
        let leap = try #require(
            { if case .date(let d) = CalendarDateValue.read("0078003704L10", calscale: "chinese") { return d } else { return nil } }()
        )
        #expect(leap.gregorian == LocalDate(iso: "2020-06-01"))
    }
}
