import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Which events the calendar holds, as values, with no libical: the UIDs,
/// years and ages the feed, the JSON twin and the publisher all read.
@Suite struct CalendarEventPlanTests {
    let lastChange = Date(timeIntervalSince1970: 1_790_000_000)
    let today = LocalDate(year: 2026, month: 11, day: 28)!

    func uids(_ people: [Person], _ change: (inout Settings) -> Void = { _ in }) throws -> [String] {
        var settings = Settings()
        change(&settings)
        return try CalendarEventPlan(settings: settings, today: today).events(for: people, lastChange: lastChange).map(\.uid)
    }

    @Test func aKnownYearGetsThreeAgedYearsThenItsSeries() throws {
        let plan = CalendarEventPlan(settings: Settings(), today: today)
        let events = try plan.events(for: [try Fixture.person("ada", "Ada", birthday: "1990-03-10")], lastChange: lastChange)
        #expect(
            events.map(\.uid) == [
                "ada-birthday-y2026@birthdays", "ada-birthday-y2027@birthdays", "ada-birthday-y2028@birthdays", "ada-birthday@birthdays",
            ]
        )
        #expect(events.map(\.age) == [36, 37, 38, nil])
        #expect(events.last?.start == LocalDate(year: 2029, month: 3, day: 10))
        #expect(try uids([try Fixture.person("ada", "Ada", birthday: "1990-03-10")]) { $0.calendarAges = false } == ["ada-birthday@birthdays"])
    }

    @Test func februaryTwentyNinthUnderMarchFirstIsFourSeries() throws {
        let leap = try Fixture.person("lee", "Lee", birthday: "--02-29")
        #expect(
            try uids([leap]) { $0.leapDay = .mar1 }
                == ["lee-birthday-mar1-1@birthdays", "lee-birthday-mar1-2@birthdays", "lee-birthday-mar1-3@birthdays", "lee-birthday@birthdays"]
        )
        let events = try CalendarEventPlan(settings: Settings(), today: today).events(for: [leap], lastChange: lastChange)
        #expect(events.map(\.start) == [LocalDate(year: CalendarEventPlan.unknownYearBase, month: 2, day: 29)])
        #expect(events.first?.recurrence == .lastDayOfFebruary)
    }

    @Test func anExcludedPersonHasNoneAndTwoPeopleWithOneIDAreAnError() throws {
        #expect(try uids([try Fixture.person("bo", "Bo", birthday: "1980-01-02", excluded: true)]).isEmpty)
        let twice = [try Fixture.person("ada", "Ada", birthday: "--03-10"), try Fixture.person("ada", "Ada Again", birthday: "--04-10")]
        #expect(throws: CalendarPlanError(duplicateID: "ada")) { try uids(twice) }
    }
}
