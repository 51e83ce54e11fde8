import Testing
@testable import BirthdayKit

@Suite struct LocalDateTests {
    @Test(arguments: [(1970, 1, 1, 0), (2000, 2, 29, 11_016), (1969, 12, 31, -1), (2026, 11, 21, 20_413)])
    func dayNumberRoundTrips(year: Int, month: Int, day: Int, number: Int) throws {
        let date = try #require(LocalDate(year: year, month: month, day: day))
        #expect(date.dayNumber == number)
        #expect(LocalDate(dayNumber: number) == date)
    }
}
