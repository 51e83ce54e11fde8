import Foundation
import Testing

@testable import BirthdayCore

/// ``CalendarDate``: which dates exist, where each year's occurrence falls
/// (missing days, missing leap months, Adar), ages, and which of
/// Foundation's calendars work on Linux. The day tables below were
/// cross-checked against python3-lunardate and python3-pyluach in the
/// research notes; ``CalendarConversionTests`` checks 50 years of every day
/// against them whenever they are installed.
@Suite struct CalendarDateTests {
    static func day(_ text: String) -> LocalDate { LocalDate(iso: text)! }

    static func date(_ calendar: CalendarSystem, _ era: Int?, _ year: Int?, _ month: Int, leap: Bool = false, _ day: Int) -> CalendarDate? {
        CalendarDate(calendar: calendar, era: era, year: year, month: month, isLeapMonth: leap, day: day)
    }

    /// Consecutive occurrences: the first on or after `start`, then each on or after the day after the previous one.
    static func chain(_ date: CalendarDate, from start: String, count: Int) -> [String] {
        var result: [String] = []
        var from = day(start)
        while result.count < count, let next = date.nextOccurrence(onOrAfter: from) {
            result.append(next.date.description)
            from = next.date.adding(days: 1)
        }
        return result
    }

    // MARK: - Apple's examples

    /// The values Apple's Contacts writes for these days (research notes §1.2), read back to the same days.
    @Test(arguments: [
        ("chinese", 78, 2, 11, false, 1, "1985-12-12"),
        ("chinese", 78, 37, 4, true, 10, "2020-06-01"),
        ("chinese", 78, 40, 2, true, 1, "2023-03-22"),
        ("hebrew", 0, 5784, 6, false, 14, "2024-02-23"),
        ("hebrew", 0, 5784, 7, false, 14, "2024-03-24"),
        ("islamic", 0, 1406, 3, false, 30, "1985-12-12"),
        ("islamic-civil", 0, 1406, 3, false, 29, "1985-12-12"),
        ("islamic-umalqura", 0, 1406, 3, false, 29, "1985-12-12"),
        ("islamic-tbla", 0, 1406, 3, false, 30, "1985-12-12"),
        ("persian", 0, 1364, 9, false, 21, "1985-12-12"),
        ("indian", 0, 1907, 9, false, 21, "1985-12-12"),
        ("ethiopic", 1, 1978, 4, false, 3, "1985-12-12"),
        ("coptic", 1, 1702, 4, false, 3, "1985-12-12"),
        ("japanese", 234, 60, 12, false, 12, "1985-12-12"),
        ("buddhist", 0, 2528, 12, false, 12, "1985-12-12"),
        ("roc", 1, 74, 12, false, 12, "1985-12-12"),
        ("dangi", 78, 2, 11, false, 1, "1985-12-12"),
    ])
    func applesValuesAreTheirDays(calendar: String, era: Int, year: Int, month: Int, leap: Bool, day: Int, expected: String) throws {
        let system = try #require(CalendarSystem(calscale: calendar))
        let date = try #require(Self.date(system, era, year, month, leap: leap, day))
        #expect(date.gregorian == Self.day(expected))
        #expect(date.nextOccurrence(onOrAfter: Self.day(expected))?.date == Self.day(expected))
    }

    // MARK: - Which dates exist

    @Test func datesThatDoNotExistAreRefused() {
        // Chinese month 2 of 78/42 (2025) has 29 days; 2020 (78/37) has a leap 4th month, not a leap 5th.
        #expect(Self.date(.chinese, 78, 42, 2, 30) == nil)
        #expect(Self.date(.chinese, 78, 42, 2, 29) != nil)
        #expect(Self.date(.chinese, 78, 37, 5, leap: true, 1) == nil)
        #expect(Self.date(.chinese, 78, 38, 4, leap: true, 1) == nil)
        // Adar I exists in leap years only (5784 is one, 5785 is not).
        #expect(Self.date(.hebrew, 0, 5785, 6, 14) == nil)
        #expect(Self.date(.hebrew, 0, 5784, 6, 14) != nil)
        // 30 Cheshvan: 5785 has it, 5784 does not.
        #expect(Self.date(.hebrew, 0, 5785, 2, 30) != nil)
        #expect(Self.date(.hebrew, 0, 5784, 2, 30) == nil)
        // Reiwa began on 2019-05-01: Reiwa 1, March 1 was Heisei 31.
        #expect(Self.date(.japanese, 236, 1, 3, 1) == nil)
        #expect(Self.date(.japanese, 236, 1, 5, 1)?.gregorian == Self.day("2019-05-01"))
        // Leap months only where the calendar has them; an era needs a year and a year an era.
        #expect(Self.date(.hebrew, 0, 5784, 6, leap: true, 14) == nil)
        #expect(Self.date(.chinese, 78, nil, 11, 1) == nil)
        #expect(Self.date(.chinese, nil, 2, 11, 1) == nil)
        #expect(Self.date(.islamicCivil, 0, 1447, 13, 1) == nil)
        #expect(Self.date(.islamicCivil, 0, 1447, 1, 31) == nil)
    }

    @Test func aDateWithoutAYearMustExistInSomeYear() {
        #expect(Self.date(.chinese, nil, nil, 11, 1) != nil)
        #expect(Self.date(.chinese, nil, nil, 4, leap: true, 30) != nil)
        // The 11th month's leap month: 2033 has one; no year from 1900 to 2100 has a leap 12th or 1st (lunardate agrees).
        #expect(Self.date(.chinese, nil, nil, 11, leap: true, 1) != nil)
        #expect(Self.date(.chinese, nil, nil, 12, leap: true, 1) == nil)
        #expect(Self.date(.chinese, nil, nil, 1, leap: true, 1) == nil)
        // Tevet (4) always has 29 days; Safar (2) of the arithmetical Hijri calendar too.
        #expect(Self.date(.hebrew, nil, nil, 4, 30) == nil)
        #expect(Self.date(.hebrew, nil, nil, 2, 30) != nil)
        #expect(Self.date(.islamicCivil, nil, nil, 2, 30) == nil)
        #expect(Self.date(.islamicCivil, nil, nil, 12, 30) != nil)
        #expect(Self.date(.japanese, nil, nil, 2, 29) != nil)
        #expect(Self.date(.japanese, nil, nil, 2, 30) == nil)
    }

    @Test func aBirthOutsideTheYearsAFeedCarriesIsRefused() {
        // Hebrew 9000 is after 3000 in the Gregorian calendar.
        #expect(Self.date(.hebrew, 0, 9000, 1, 1) == nil)
        #expect(Self.date(.hebrew, 0, 5000, 1, 1)?.gregorian?.year == 1239)
    }

    // MARK: - Occurrences

    /// Research notes §5.3, cross-checked there against lunardate and pyluach.
    @Test func lunarBirthdaysFallOnTheirDayEachYear() throws {
        let born = try #require(Self.date(.chinese, 78, 2, 11, 1))
        #expect(
            Self.chain(born, from: "2025-01-01", count: 6) == ["2025-12-20", "2026-12-09", "2027-11-28", "2028-12-16", "2029-12-05", "2030-11-25"]
        )
    }

    @Test func aMissingLeapMonthFallsInTheOrdinaryMonthOfTheSameNumber() throws {
        // Leap 4th month, day 10 (2020-06-01); only 2020 (and 2058…) have that leap month.
        let born = try #require(Self.date(.chinese, 78, 37, 4, leap: true, 10))
        #expect(
            Self.chain(born, from: "2021-01-01", count: 6) == ["2021-05-21", "2022-05-10", "2023-05-28", "2024-05-17", "2025-05-07", "2026-05-26"]
        )
        // 2023 has a leap 2nd month, earlier in the year: the birthday stays in the ordinary 4th month.
        let ordinary = try #require(Self.date(.chinese, nil, nil, 4, 10))
        #expect(born.nextOccurrence(onOrAfter: Self.day("2023-01-01"))?.date == ordinary.nextOccurrence(onOrAfter: Self.day("2023-01-01"))?.date)
        // A birthday in an ordinary month never moves into a leap month (2020's leap 4th followed the 4th).
        #expect(ordinary.nextOccurrence(onOrAfter: Self.day("2020-01-01"))?.date == Self.day("2020-05-02"))
    }

    @Test func aMissingDayFallsOnTheMonthsLastDay() throws {
        // Chinese 1st month, day 30: 2027 has it, 2030's 1st month has 29 days.
        let thirtieth = try #require(Self.date(.chinese, nil, nil, 1, 30))
        let days = Self.chain(thirtieth, from: "2026-01-01", count: 5)
        #expect(days == ["2026-03-18", "2027-03-07", "2028-02-24", "2029-03-14", "2030-03-03"])
        let last = try #require(Self.date(.chinese, nil, nil, 1, 29))
        #expect(last.nextOccurrence(onOrAfter: Self.day("2030-01-01"))?.date == Self.day("2030-03-03"))
        // 30 Cheshvan: 5784 and 5786 lack it.
        let cheshvan = try #require(Self.date(.hebrew, nil, nil, 2, 30))
        #expect(Self.chain(cheshvan, from: "2023-01-01", count: 4) == ["2023-11-13", "2024-12-01", "2025-11-20", "2026-11-10"])
        // Esfand 30 exists in Persian leap years only.
        let esfand = try #require(Self.date(.persian, nil, nil, 12, 30))
        #expect(esfand.nextOccurrence(onOrAfter: Self.day("2025-01-01"))?.date == Self.day("2025-03-20"))
        #expect(esfand.nextOccurrence(onOrAfter: Self.day("2026-01-01"))?.date == Self.day("2026-03-20"))
        // February 29 in the Japanese calendar: February 28 in common years.
        let leapDay = try #require(Self.date(.japanese, 235, 8, 2, 29))
        #expect(leapDay.gregorian == Self.day("1996-02-29"))
        #expect(Self.chain(leapDay, from: "2027-01-01", count: 2) == ["2027-02-28", "2028-02-29"])
    }

    @Test func adarIFallsInAdarAndAdarInAdarII() throws {
        let adarI = try #require(Self.date(.hebrew, 0, 5784, 6, 14))
        #expect(Self.chain(adarI, from: "2025-01-01", count: 4) == ["2025-03-14", "2026-03-03", "2027-02-21", "2028-03-12"])
        let adar = try #require(Self.date(.hebrew, nil, nil, 7, 14))
        #expect(Self.chain(adar, from: "2025-01-01", count: 4) == ["2025-03-14", "2026-03-03", "2027-03-23", "2028-03-12"])
    }

    @Test func aDateCanFallTwiceInOneGregorianYearAndNotAtAllInTheNext() throws {
        let eighth = try #require(Self.date(.chinese, nil, nil, 12, 8))
        #expect(Self.chain(eighth, from: "1908-01-01", count: 3) == ["1908-01-11", "1908-12-30", "1910-01-18"])
        let muharram = try #require(Self.date(.islamicUmmAlQura, nil, nil, 1, 1))
        #expect(Self.chain(muharram, from: "2008-01-01", count: 3) == ["2008-01-10", "2008-12-29", "2009-12-18"])
    }

    @Test func nextOccurrenceIsTodayOnTheDay() throws {
        let born = try #require(Self.date(.chinese, 78, 2, 11, 1))
        #expect(born.nextOccurrence(onOrAfter: Self.day("2026-12-09"))?.date == Self.day("2026-12-09"))
        #expect(born.nextOccurrence(onOrAfter: Self.day("2026-12-10"))?.date == Self.day("2027-11-28"))
    }

    // MARK: - Years and ages

    @Test func agesCountTheCalendarsYears() throws {
        let born = try #require(Self.date(.chinese, 78, 2, 11, 1))
        let next = try #require(born.nextOccurrence(onOrAfter: Self.day("2026-03-01")))
        #expect(next.date == Self.day("2026-12-09"))
        #expect(born.age(inYear: next.year) == 41)
        // An Islamic year is 11 days shorter: born 1406, 1447 began in 2025.
        let hijri = try #require(Self.date(.islamicCivil, 0, 1406, 3, 29))
        let hijriNext = try #require(hijri.nextOccurrence(onOrAfter: Self.day("2026-03-01")))
        #expect(hijri.age(inYear: hijriNext.year) == 42)
        // The cycle turns over: era 78 year 60 (2043) is followed by era 79 year 1.
        #expect(CalendarDate.eraAndYear(.chinese, linear: CalendarDate.linear(.chinese, era: 78, year: 60) + 1) == (79, 1))
        #expect(CalendarDate.eraAndYear(.chinese, linear: CalendarDate.linear(.chinese, era: 79, year: 1) - 1) == (78, 60))
        #expect(Self.date(.chinese, nil, nil, 11, 1)?.age(inYear: 4700) == nil)
    }

    @Test func aBirthInTheFutureIsItsOwnFirstOccurrenceWithoutAnAge() throws {
        let born = try #require(Self.date(.chinese, 78, 44, 1, 1))  // 2027-02-06
        let next = try #require(born.nextOccurrence(onOrAfter: Self.day("2026-03-01")))
        #expect(next.date == Self.day("2027-02-06"))
        #expect(born.age(inYear: next.year) == nil)
        #expect(born.isInFuture(of: Self.day("2026-03-01")))
        #expect(born.occurrences(from: Self.day("2026-01-01"), count: 2).map(\.date) == [Self.day("2027-02-06"), Self.day("2028-01-26")])
    }

    @Test func occurrencesAreOnePerCalendarYear() throws {
        let muharram = try #require(Self.date(.islamicCivil, nil, nil, 1, 1))
        let ten = muharram.occurrences(from: Self.day("2008-01-01"), count: 10)
        #expect(ten.count == 10)
        #expect(Set(ten.map(\.year)).count == 10)
        #expect(ten.map(\.year) == Array(ten[0].year..<(ten[0].year + 10)))
        #expect(ten.first?.date == Self.day("2008-01-10"))
        #expect(zip(ten, ten.dropFirst()).allSatisfy { $0.date < $1.date })
    }

    @Test func writtenFormsNameTheEraOnlyWhereAYearNeedsIt() throws {
        #expect(try #require(Self.date(.chinese, 78, 37, 4, leap: true, 10)).description == "chinese 0078-0037-04L-10")
        #expect(try #require(Self.date(.hebrew, 0, 5784, 6, 14)).description == "hebrew 5784-06-14")
        #expect(try #require(Self.date(.chinese, nil, nil, 11, 1)).written == "--11-01")
        #expect(try #require(Self.date(.japanese, 236, 1, 5, 1)).written == "0236-0001-05-01")
    }

    @Test func sharedOccurrencesAreComputedOnceAndGiveTheSameDays() throws {
        var shared = CalendarOccurrences(today: Self.day("2026-03-01"))
        for date in [Self.date(.chinese, 78, 2, 11, 1), Self.date(.chinese, nil, nil, 11, 1), Self.date(.chinese, 78, 44, 11, 1)].compactMap({ $0 }) {
            #expect(shared.next(date) == date.nextOccurrence(onOrAfter: Self.day("2026-03-01")))
        }
    }

    // MARK: - Foundation on Linux

    /// Every calendar offered converts every day of 60 years back to itself;
    /// the ones refused do not (``CalendarSystem`` says why).
    @Test(arguments: CalendarSystem.allCases)
    func everyOfferedCalendarConvertsBothWays(calendar: CalendarSystem) {
        let utc = calendar.utc
        var mismatches = 0
        let start = Self.day("1975-01-01")
        for offset in stride(from: 0, to: 60 * 365, by: calendar.hasLeapMonths ? 3 : 1) {
            let day = start.adding(days: offset)
            let parts = utc.dateComponents([.era, .year, .month, .day], from: CalendarDate.noon(day))
            var back = parts
            back.hour = 12
            if utc.date(from: back).map(CalendarDate.localDate) != day { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(calendar)")
    }

    @Test(arguments: [
        (Calendar.Identifier.bangla, "bangla"), (.gujarati, "gujarati"), (.kannada, "kannada"), (.malayalam, "malayalam"),
        (.marathi, "marathi"), (.odia, "odia"), (.tamil, "tamil"), (.telugu, "telugu"), (.vikram, "vikram"),
        (.ethiopicAmeteAlem, "ethiopic-amete-alem"), (.vietnamese, "vietnamese"),
    ])
    func theRefusedCalendarsAreStillBrokenOnThisFoundation(identifier: Calendar.Identifier, calscale: String) {
        var utc = Calendar(identifier: identifier)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        let day = Self.day("1985-12-12")
        let parts = utc.dateComponents([.era, .year, .month, .day], from: CalendarDate.noon(day))
        var back = parts
        back.hour = 12
        let roundTrips = utc.date(from: back).map(CalendarDate.localDate) == day
        let gregorianFields = parts.year == 1985 && parts.month == 12 && parts.day == 12
        // When this fails, Foundation has fixed the calendar: offer it (CalendarSystem) and say so in docs/dates.md.
        #expect(!roundTrips || gregorianFields, "\(calscale) now converts both ways")
        #expect(CalendarSystem(calscale: calscale) == nil)
        #expect(CalendarSystem.unsupportedReason(calscale).hasPrefix("Foundation on Linux"))
    }

    /// ICU 76 (Swift 6.3's Foundation) puts Rosh Hashanah 5807 on 2046-10-02;
    /// pyluach, convertdate and the molad put it on 2046-10-01 (fixed upstream
    /// in ICU-23069). When this fails, Foundation has the fix.
    @Test func foundationsKnownHebrewErrorIn5807IsStillThere() {
        let parts = CalendarSystem.hebrew.utc.dateComponents([.year, .month, .day], from: CalendarDate.noon(Self.day("2046-10-01")))
        #expect(parts.year == 5806 && parts.month == 13 && parts.day == 29)
    }
}
