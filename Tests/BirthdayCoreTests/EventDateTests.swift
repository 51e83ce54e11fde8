import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct EventDateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var birthday: EventDate
        var today: LocalDate
        var policy: LeapDayPolicy
        var next: LocalDate
        var age: Int?
        var testDescription: String { "\(birthday) on \(today) (\(policy)) -> \(next)" }
    }

    static let cases: [Case] = [
        Case(birthday: event(1990, 5, 12), today: date(2026, 5, 12), policy: .feb28, next: date(2026, 5, 12), age: 36),
        Case(birthday: event(1990, 5, 12), today: date(2026, 5, 13), policy: .feb28, next: date(2027, 5, 12), age: 37),
        Case(birthday: event(1990, 1, 1), today: date(2026, 12, 31), policy: .feb28, next: date(2027, 1, 1), age: 37),
        Case(birthday: event(1990, 12, 31), today: date(2026, 12, 31), policy: .feb28, next: date(2026, 12, 31), age: 36),
        Case(birthday: event(nil, 8, 4), today: date(2026, 11, 21), policy: .feb28, next: date(2027, 8, 4), age: nil),
        // Feb 29 in common and leap years, under both policies.
        Case(birthday: event(1996, 2, 29), today: date(2026, 11, 21), policy: .feb28, next: date(2027, 2, 28), age: 31),
        Case(birthday: event(1996, 2, 29), today: date(2026, 11, 21), policy: .mar1, next: date(2027, 3, 1), age: 31),
        Case(birthday: event(1996, 2, 29), today: date(2027, 3, 1), policy: .feb28, next: date(2028, 2, 29), age: 32),
        Case(birthday: event(1996, 2, 29), today: date(2027, 3, 1), policy: .mar1, next: date(2027, 3, 1), age: 31),
        Case(birthday: event(1996, 2, 29), today: date(2028, 1, 10), policy: .mar1, next: date(2028, 2, 29), age: 32),
        Case(birthday: event(nil, 2, 29), today: date(2026, 2, 28), policy: .feb28, next: date(2026, 2, 28), age: nil),
        // Born today: no age 0.
        Case(birthday: event(2026, 11, 21), today: date(2026, 11, 21), policy: .feb28, next: date(2026, 11, 21), age: nil),
    ]

    @Test(arguments: cases)
    func nextOccurrenceAndAge(_ c: Case) {
        let next = c.birthday.nextOccurrence(onOrAfter: c.today, leapDay: c.policy)
        #expect(next == c.next)
        #expect(c.birthday.age(in: next.year) == c.age)
    }

    @Test func placeholderYearsMeanNoYear() {
        #expect(EventDate(year: 1604, month: 2, day: 2)?.year == nil)
        #expect(EventDate(year: 0, month: 6, day: 1)?.year == nil)
        #expect(EventDate(year: 1900, month: 6, day: 1)?.year == 1900)
    }

    @Test func yearlessFeb29IsValidButNotInACommonYear() {
        #expect(EventDate(year: nil, month: 2, day: 29) != nil)
        #expect(EventDate(year: 1990, month: 2, day: 29) == nil)
        #expect(EventDate(year: 1990, month: 2, day: 30) == nil)
    }

    @Test func description() {
        #expect(event(1990, 5, 2).description == "1990-05-02")
        #expect(event(nil, 12, 25).description == "--12-25")
    }
}
