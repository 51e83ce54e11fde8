import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdayStore

/// A round birthday's early reminder (`round-birthdays`, default 14 days).
@Suite struct RoundBirthdaySchedulingTests {
    static let epoch = Date(timeIntervalSince1970: 0)

    static func schedule(
        _ people: [Person],
        now: String,
        zone: String = "Europe/Berlin",
        settings: [(SettingKey, String)] = []
    )
        async throws -> RescheduleResult
    {
        let store = try TemporaryDatabase(file: true)
        try store.database.insertPeople(people, now: epoch)
        try PendingNotificationStore(database: store.database).setAuthorizationStatus(.authorized)
        for (key, value) in settings { _ = try await store.database.setSetting(key, to: value, now: epoch) }
        return try await Fixture.scheduler(store.database, now: Fixture.instant(now), zone: Fixture.zone(zone)).reschedule()
    }

    /// Ada turns 50 on 12 April 2026; two weeks before is 29 March, the day summer time starts in Berlin:
    /// the reminder is at 09:00 summer time all the same.
    @Test func aRoundBirthdayGetsAReminderTwoWeeksAheadAcrossTheClockChange() async throws {
        let result = try await Self.schedule([try Fixture.person("ada", "Ada", birthday: "1976-04-12")], now: "2026-03-20T10:00:00+01:00")
        let round = try #require(result.requests.first { $0.timing.round })
        #expect(round.id == "ada-birthday-round")
        #expect(round.timing.rawValue == "round-14-days-before")
        #expect(ISOInstant.format(round.fireAt, in: try Fixture.zone("Europe/Berlin")) == "2026-03-29T09:00:00+02:00")
        #expect(round.title == "A round birthday ahead")
        #expect(round.body == "Ada turns 50 in 2 weeks! A round birthday: time to plan.")
        #expect(result.requests.map(\.id) == ["ada-birthday-round", "ada-birthday-daybefore", "ada-birthday-dayof"])
    }

    @Test(arguments: [("1977-04-12", false), ("2008-04-12", true), ("1926-04-12", true), ("1921-04-12", true), ("--04-12", false)])
    func onlyRoundAgesWithAKnownYear(_ birthday: String, _ round: Bool) async throws {
        let result = try await Self.schedule([try Fixture.person("ada", "Ada", birthday: birthday)], now: "2026-03-20T10:00:00+01:00")
        #expect(result.requests.contains { $0.timing.round } == round, "\(birthday)")
    }

    @Test func offTheDaysOwnDayAndAnniversariesGetNone() async throws {
        let ada = try Fixture.person("ada", "Ada", birthday: "1976-04-12")
        let off = try await Self.schedule([ada], now: "2026-03-20T10:00:00+01:00", settings: [(.roundBirthdays, "off")])
        #expect(!off.requests.contains { $0.timing.round })
        // A reminder day that fires the same day already says it: no second message.
        let same = try await Self.schedule([ada], now: "2026-03-20T10:00:00+01:00", settings: [(.reminders, "14,1,0")])
        #expect(same.requests.filter { $0.dueDay == (LocalDate(year: 2026, month: 3, day: 29)) }.map(\.id) == ["ada-birthday-14daysbefore"])
        let wedding = try await Self.schedule(
            [try Fixture.person("bob", "Bob", anniversary: "2016-04-12")],
            now: "2026-03-20T10:00:00+01:00"
        )
        #expect(!wedding.requests.contains { $0.timing.round })
        // Another lead: 30 days.
        let month = try await Self.schedule([ada], now: "2026-03-01T10:00:00+01:00", settings: [(.roundBirthdays, "30")])
        let early = try #require(month.requests.first { $0.timing.round })
        #expect(early.dueDay == LocalDate(year: 2026, month: 3, day: 13))
        #expect(early.body.hasPrefix("Ada turns 50 in 30 days!"))
    }

    @Test func theTimingsRawValueRoundTrips() throws {
        for timing in [NotificationRequest.Timing(daysBefore: 14, round: true), .init(daysBefore: 1, round: true), .init(daysBefore: 0, round: true)]
        {
            #expect(NotificationRequest.Timing(rawValue: timing.rawValue) == timing)
        }
        #expect(NotificationRequest.Timing(rawValue: "round-x-days-before") == nil)
        #expect(NotificationRequest.Timing(rawValue: "14-days-before")?.round == false)
    }
}
