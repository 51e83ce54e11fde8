import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct LocalDateTests {
    @Test(arguments: [(1970, 1, 1, 0), (2000, 2, 29, 11_016), (1969, 12, 31, -1), (2026, 11, 21, 20_778), (1604, 2, 29, -133_620)])
    func dayNumberRoundTrips(year: Int, month: Int, day: Int, number: Int) throws {
        let date = try #require(LocalDate(year: year, month: month, day: day))
        #expect(date.dayNumber == number)
        #expect(LocalDate(dayNumber: number) == date)
    }

    @Test func everyDayForFourCenturiesRoundTrips() {
        var previous = LocalDate(dayNumber: -146_097 - 1)
        for number in -146_097...146_097 {
            let date = LocalDate(dayNumber: number)
            #expect(date.dayNumber == number)
            #expect(previous < date)
            previous = date
        }
    }

    @Test(arguments: [(1990, 2, 30), (2023, 2, 29), (1900, 2, 29), (2024, 13, 1), (2024, 4, 31), (2024, 0, 10), (2024, 1, 0)])
    func impossibleDaysAreRejected(year: Int, month: Int, day: Int) {
        #expect(LocalDate(year: year, month: month, day: day) == nil)
    }

    @Test func leapYears() {
        #expect(LocalDate.isLeapYear(2000))
        #expect(LocalDate.isLeapYear(2024))
        #expect(!LocalDate.isLeapYear(1900))
        #expect(!LocalDate.isLeapYear(2027))
    }

    @Test func todayDependsOnTheZone() throws {
        // 2026-11-21T11:30Z is already the 22nd in Kiritimati (UTC+14) and still the 21st in Pago Pago (UTC-11).
        let instant = Date(timeIntervalSince1970: 1_795_260_600)
        #expect(LocalDate.today(at: instant, in: try #require(TimeZone(identifier: "Pacific/Kiritimati"))) == date(2026, 11, 22))
        #expect(LocalDate.today(at: instant, in: try #require(TimeZone(identifier: "Pacific/Pago_Pago"))) == date(2026, 11, 21))
        #expect(LocalDate.today(at: instant, in: try #require(TimeZone(identifier: "UTC"))) == date(2026, 11, 21))
    }

    @Test func descriptionAndParsing() {
        #expect(date(812, 3, 4).description == "0812-03-04")
        #expect(LocalDate(iso: "2026-03-10") == date(2026, 3, 10))
        #expect(LocalDate(iso: "2026-3-10") == nil)
        #expect(LocalDate(iso: "2026-02-30") == nil)
    }
}
