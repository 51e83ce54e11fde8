import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore
@testable import BirthdayText

@Suite struct NotificationSchedulerTests {
    /// One scheduling case: a single person's birthday, the clock, the zone
    /// and the settings, and the requests expected as "timing@fire_at".
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var zone: String
        /// ISO 8601 with an offset.
        var now: String
        var birthday: String
        var delivery = "09:00"
        var leapDay = LeapDayPolicy.feb28
        var dayBefore = true
        var expected: [String]

        var testDescription: String { label }
    }

    static let cases: [Case] = [
        // Today, before and after the delivery time.
        Case(
            label: "today before delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T08:00:00+01:00",
            birthday: "1990-03-10",
            expected: ["day-of@2026-03-10T09:00:00+01:00"]
        ),
        Case(
            label: "today at the delivery time (not in the future)",
            zone: "Europe/Berlin",
            now: "2026-03-10T09:00:00+01:00",
            birthday: "1990-03-10",
            expected: []
        ),
        Case(
            label: "today after delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T09:30:00+01:00",
            birthday: "1990-03-10",
            expected: []
        ),
        // Tomorrow.
        Case(
            label: "tomorrow, before delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T08:00:00+01:00",
            birthday: "1990-03-11",
            expected: ["day-before@2026-03-10T09:00:00+01:00", "day-of@2026-03-11T09:00:00+01:00"]
        ),
        Case(
            label: "tomorrow, after delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T10:00:00+01:00",
            birthday: "1990-03-11",
            expected: ["day-of@2026-03-11T09:00:00+01:00"]
        ),
        Case(
            label: "tomorrow, day-before off",
            zone: "Europe/Berlin",
            now: "2026-03-10T08:00:00+01:00",
            birthday: "1990-03-11",
            dayBefore: false,
            expected: ["day-of@2026-03-11T09:00:00+01:00"]
        ),
        // Year end.
        Case(
            label: "Dec 30 for Jan 1",
            zone: "Europe/Berlin",
            now: "2026-12-30T10:00:00+01:00",
            birthday: "--01-01",
            expected: ["day-before@2026-12-31T09:00:00+01:00", "day-of@2027-01-01T09:00:00+01:00"]
        ),
        Case(
            label: "Dec 31 after delivery for Jan 1",
            zone: "Europe/Berlin",
            now: "2026-12-31T10:00:00+01:00",
            birthday: "--01-01",
            expected: ["day-of@2027-01-01T09:00:00+01:00"]
        ),
        Case(
            label: "Dec 31 birthday on Dec 31 after delivery",
            zone: "Europe/Berlin",
            now: "2026-12-31T10:00:00+01:00",
            birthday: "1980-12-31",
            expected: []
        ),
        Case(
            label: "Dec 30 for Dec 31",
            zone: "Europe/Berlin",
            now: "2026-12-30T08:00:00+01:00",
            birthday: "1980-12-31",
            expected: ["day-before@2026-12-30T09:00:00+01:00", "day-of@2026-12-31T09:00:00+01:00"]
        ),
        // Feb 29 in common and leap years, both policies.
        Case(
            label: "Feb 29, common year, feb28",
            zone: "Europe/Berlin",
            now: "2027-02-01T10:00:00+01:00",
            birthday: "2000-02-29",
            leapDay: .feb28,
            expected: ["day-before@2027-02-27T09:00:00+01:00", "day-of@2027-02-28T09:00:00+01:00"]
        ),
        Case(
            label: "Feb 29, common year, mar1",
            zone: "Europe/Berlin",
            now: "2027-02-01T10:00:00+01:00",
            birthday: "2000-02-29",
            leapDay: .mar1,
            expected: ["day-before@2027-02-28T09:00:00+01:00", "day-of@2027-03-01T09:00:00+01:00"]
        ),
        Case(
            label: "Feb 29, leap year, feb28",
            zone: "Europe/Berlin",
            now: "2028-02-01T10:00:00+01:00",
            birthday: "2000-02-29",
            leapDay: .feb28,
            expected: ["day-before@2028-02-28T09:00:00+01:00", "day-of@2028-02-29T09:00:00+01:00"]
        ),
        Case(
            label: "Feb 29, leap year, mar1",
            zone: "Europe/Berlin",
            now: "2028-02-01T10:00:00+01:00",
            birthday: "--02-29",
            leapDay: .mar1,
            expected: ["day-before@2028-02-28T09:00:00+01:00", "day-of@2028-02-29T09:00:00+01:00"]
        ),
        Case(
            label: "Feb 29 year-less, Feb 28 of a common year after delivery, mar1",
            zone: "Europe/Berlin",
            now: "2027-02-28T10:00:00+01:00",
            birthday: "--02-29",
            leapDay: .mar1,
            expected: ["day-of@2027-03-01T09:00:00+01:00"]
        ),
        Case(
            label: "Feb 28 birthday, leap year, mar1 policy untouched",
            zone: "Europe/Berlin",
            now: "2028-02-01T10:00:00+01:00",
            birthday: "1999-02-28",
            leapDay: .mar1,
            expected: ["day-before@2028-02-27T09:00:00+01:00", "day-of@2028-02-28T09:00:00+01:00"]
        ),
        // Year-less dates schedule the same.
        Case(
            label: "year-less",
            zone: "Europe/Berlin",
            now: "2026-05-01T10:00:00+02:00",
            birthday: "--05-12",
            expected: ["day-before@2026-05-11T09:00:00+02:00", "day-of@2026-05-12T09:00:00+02:00"]
        ),
        // DST gap (spring forward): a missing wall time fires an hour later.
        Case(
            label: "Berlin gap 02:30 -> 03:30",
            zone: "Europe/Berlin",
            now: "2026-03-20T10:00:00+01:00",
            birthday: "--03-29",
            delivery: "02:30",
            expected: ["day-before@2026-03-28T02:30:00+01:00", "day-of@2026-03-29T03:30:00+02:00"]
        ),
        Case(
            label: "New York gap 02:30 -> 03:30",
            zone: "America/New_York",
            now: "2026-03-01T10:00:00-05:00",
            birthday: "--03-08",
            delivery: "02:30",
            expected: ["day-before@2026-03-07T02:30:00-05:00", "day-of@2026-03-08T03:30:00-04:00"]
        ),
        Case(
            label: "Berlin gap, day-before on the gap day",
            zone: "Europe/Berlin",
            now: "2026-03-20T10:00:00+01:00",
            birthday: "--03-30",
            delivery: "02:00",
            expected: ["day-before@2026-03-29T03:00:00+02:00", "day-of@2026-03-30T02:00:00+02:00"]
        ),
        // DST overlap (fall back): an ambiguous wall time fires at its first occurrence.
        Case(
            label: "Berlin overlap 02:30 first",
            zone: "Europe/Berlin",
            now: "2026-10-20T10:00:00+02:00",
            birthday: "--10-25",
            delivery: "02:30",
            expected: ["day-before@2026-10-24T02:30:00+02:00", "day-of@2026-10-25T02:30:00+02:00"]
        ),
        Case(
            label: "New York overlap 01:30 first",
            zone: "America/New_York",
            now: "2026-10-25T10:00:00-04:00",
            birthday: "--11-01",
            delivery: "01:30",
            expected: ["day-before@2026-10-31T01:30:00-04:00", "day-of@2026-11-01T01:30:00-04:00"]
        ),
        Case(
            label: "today at 01:30 in the overlap, between the two occurrences",
            zone: "America/New_York",
            now: "2026-11-01T01:45:00-04:00",
            birthday: "--11-01",
            delivery: "01:30",
            expected: []
        ),
        // The same instant on both sides of the date line (08:00 UTC on Mar 10).
        Case(
            label: "Kiritimati (UTC+14): already Mar 10 22:00",
            zone: "Pacific/Kiritimati",
            now: "2026-03-10T08:00:00Z",
            birthday: "--03-10",
            expected: []
        ),
        Case(
            label: "Kiritimati (UTC+14): Mar 11 is tomorrow",
            zone: "Pacific/Kiritimati",
            now: "2026-03-10T08:00:00Z",
            birthday: "--03-11",
            expected: ["day-of@2026-03-11T09:00:00+14:00"]
        ),
        Case(
            label: "Pago Pago (UTC-11): still Mar 9 21:00",
            zone: "Pacific/Pago_Pago",
            now: "2026-03-10T08:00:00Z",
            birthday: "--03-10",
            expected: ["day-of@2026-03-10T09:00:00-11:00"]
        ),
        Case(
            label: "Pago Pago (UTC-11): Mar 11 in two days",
            zone: "Pacific/Pago_Pago",
            now: "2026-03-10T08:00:00Z",
            birthday: "--03-11",
            expected: ["day-before@2026-03-10T09:00:00-11:00", "day-of@2026-03-11T09:00:00-11:00"]
        ),
        // Edges of the day.
        Case(
            label: "23:59 delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T23:00:00+01:00",
            birthday: "--03-11",
            delivery: "23:59",
            expected: ["day-before@2026-03-10T23:59:00+01:00", "day-of@2026-03-11T23:59:00+01:00"]
        ),
        Case(
            label: "23:59 delivery, today's birthday late in the evening",
            zone: "Europe/Berlin",
            now: "2026-03-10T23:58:00+01:00",
            birthday: "--03-10",
            delivery: "23:59",
            expected: ["day-of@2026-03-10T23:59:00+01:00"]
        ),
        Case(
            label: "00:00 delivery",
            zone: "Europe/Berlin",
            now: "2026-03-10T08:00:00+01:00",
            birthday: "--03-11",
            delivery: "00:00",
            expected: ["day-of@2026-03-11T00:00:00+01:00"]
        ),
        Case(
            label: "00:00 delivery, today",
            zone: "Europe/Berlin",
            now: "2026-03-10T00:00:00+01:00",
            birthday: "--03-10",
            delivery: "00:00",
            expected: []
        ),
        Case(
            label: "00:00 delivery, two days away",
            zone: "America/New_York",
            now: "2026-03-10T08:00:00-04:00",
            birthday: "--03-12",
            delivery: "00:00",
            expected: ["day-before@2026-03-11T00:00:00-04:00", "day-of@2026-03-12T00:00:00-04:00"]
        ),
    ]

    @Test(arguments: cases)
    func schedulesOnePerson(_ c: Case) async throws {
        // Given one person, notifications authorized, and the case's settings
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople([Fixture.person("p1", "Ada", birthday: c.birthday)], now: Date(timeIntervalSince1970: 0))
        let now = Date(timeIntervalSince1970: 0)
        try await db.setSetting(.timeZone, to: c.zone, now: now)
        try await db.setSetting(.deliveryTime, to: c.delivery, now: now)
        try await db.setSetting(.leapDay, to: c.leapDay.rawValue, now: now)
        try await db.setSetting(.dayBefore, to: c.dayBefore ? "on" : "off", now: now)
        try PendingNotificationStore(database: db).setAuthorizationStatus(.authorized)

        // When rescheduling (with a different system zone, which the setting overrides)
        let zone = try Fixture.zone(c.zone)
        let result = try await Fixture.scheduler(db, now: try Fixture.instant(c.now), zone: try Fixture.zone("Asia/Tokyo")).reschedule()

        // Then the pending requests are exactly the expected ones, soonest first
        let pending = try PendingNotificationStore(database: db).pending()
        #expect(pending.map { "\($0.timing.rawValue)@\(ISOInstant.format($0.fireAt, in: zone))" } == c.expected)
        #expect(result.requests == pending)
        #expect(pending.allSatisfy { $0.fireAt > (try? Fixture.instant(c.now)) ?? .distantFuture })
    }

    // MARK: - Content and ids

    @Test func requestsCarryIdsContentAndUserInfo() async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople(
            [
                Fixture.person("ada", "Ada", birthday: "1990-03-11", anniversary: "2016-03-12"),
                Fixture.person("bob", "Bob", birthday: "--03-13"),
            ],
            now: Date(timeIntervalSince1970: 0)
        )
        try PendingNotificationStore(database: db).setAuthorizationStatus(.authorized)
        try await Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin")).reschedule()

        let pending = try PendingNotificationStore(database: db).pending()
        #expect(
            pending.map(\.id) == [
                "ada-birthday-daybefore", "ada-birthday-dayof", "ada-anniversary-daybefore", "ada-anniversary-dayof",
                "bob-birthday-daybefore", "bob-birthday-dayof",
            ]
        )
        #expect(
            pending.map(\.title) == [
                "Birthday Tomorrow", "Ada's Birthday!", "Anniversary Tomorrow", "Ada's Anniversary!", "Birthday Tomorrow", "Bob's Birthday!",
            ]
        )
        #expect(
            pending.map(\.body) == [
                "Ada turns 36 tomorrow!", "Ada turns 36 today!", "Ada's 10th anniversary is tomorrow!", "Today is Ada's 10th anniversary!",
                "Bob's birthday is tomorrow!", "Today is Bob's birthday!",
            ]
        )
        let first = try #require(pending.first)
        #expect(first.userInfo == ["person_id": "ada", "kind": "birthday", "when": "day-before", "occurrence": "2026-03-11"])
        #expect(first.occurrenceDate == LocalDate(year: 2026, month: 3, day: 11))
    }

    @Test func anniversariesOffAndExcludedPeopleGetNothing() async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople(
            [
                Fixture.person("ada", "Ada", anniversary: "2016-03-12"),
                Fixture.person("eve", "Eve", birthday: "--03-12", excluded: true),
                Fixture.person("bob", "Bob", birthday: "--03-13"),
            ],
            now: Date(timeIntervalSince1970: 0)
        )
        try await db.setSetting(.anniversaries, to: "off", now: Date(timeIntervalSince1970: 0))
        try PendingNotificationStore(database: db).setAuthorizationStatus(.authorized)
        let result = try await Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
            .reschedule()
        #expect(result.requests.map(\.personID) == ["bob", "bob"])
    }

    // MARK: - The cap

    /// 100 people, one a day from tomorrow on: person i has their birthday in i days.
    static func hundredPeople() throws -> [Person] {
        let start = try #require(LocalDate(year: 2026, month: 3, day: 10))
        return try (1...100).map { i in
            let day = start.adding(days: i)
            return try Fixture.person(String(format: "p%03d", i), "Person \(i)", birthday: String(format: "--%02d-%02d", day.month, day.day))
        }
    }

    @Test func hundredPeopleGiveTheSoonest64ThenBackfill() async throws {
        // Given 100 people with birthdays on the next 100 days
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople(Self.hundredPeople(), now: Date(timeIntervalSince1970: 0))
        let center = PendingNotificationStore(database: db)
        try center.setAuthorizationStatus(.authorized)
        let zone = try Fixture.zone("Europe/Berlin")

        // When rescheduling before today's delivery time
        let morning = try Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: zone)
        let first = try await morning.reschedule()

        // Then exactly 64 are pending: both reminders of the 32 nearest people
        #expect(first.scheduled == 64)
        #expect(first.people == 32)
        #expect(try center.count() == 64)
        let nearest = (1...32).map { String(format: "p%03d", $0) }
        #expect(Set(first.requests.map(\.personID)) == Set(nearest))
        #expect(first.first.map { ISOInstant.format($0, in: zone) } == "2026-03-10T09:00:00+01:00")
        #expect(first.last.map { ISOInstant.format($0, in: zone) } == "2026-04-11T09:00:00+02:00")

        // When time moves past the first fire and it is rescheduled
        let later = try Fixture.scheduler(db, now: Fixture.instant("2026-03-10T09:30:00+01:00"), zone: zone)
        let second = try await later.reschedule()

        // Then the freed slot is backfilled by the next person's day-before
        #expect(second.scheduled == 64)
        #expect(!second.requests.contains { $0.id == "p001-birthday-daybefore" })
        #expect(second.requests.contains { $0.id == "p001-birthday-dayof" })
        #expect(second.requests.last?.id == "p033-birthday-daybefore")
        #expect(try center.pending() == second.requests)
    }

    @Test func anUnchangedPlanWritesNothing() async throws {
        // Given 100 people whose soonest 64 reminders are pending
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople(Self.hundredPeople(), now: Date(timeIntervalSince1970: 0))
        let center = PendingNotificationStore(database: db)
        try center.setAuthorizationStatus(.authorized)
        let zone = try Fixture.zone("Europe/Berlin")
        let morning = try Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: zone)
        let first = try await morning.reschedule()
        let changes = try await db.write { db in db.totalChangesCount }

        // When the same plan is made again
        let again = try await morning.reschedule()

        // Then no row is written, and the same requests are pending
        #expect(try await db.write { db in db.totalChangesCount } == changes)
        #expect(again.requests == first.requests)
        #expect(try center.pending() == first.requests)

        // When time moves past the first fire, the plan differs: what changed is written
        let later = try Fixture.scheduler(db, now: Fixture.instant("2026-03-10T09:30:00+01:00"), zone: zone)
        let second = try await later.reschedule()
        #expect(try await db.write { db in db.totalChangesCount } > changes)
        #expect(try center.pending() == second.requests)
        #expect(second.requests != first.requests)
    }

    @Test func tiesAtTheCapAreBrokenByPersonID() async throws {
        // Given 70 people all born on the same day, two days away
        let store = try TemporaryDatabase()
        let db = store.database
        let people = try (1...70).reversed().map { try Fixture.person(String(format: "same%02d", $0), "Same \($0)", birthday: "--03-12") }
        try db.insertPeople(people, now: Date(timeIntervalSince1970: 0))
        try PendingNotificationStore(database: db).setAuthorizationStatus(.authorized)
        let result = try await Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
            .reschedule()

        // Then the day-before reminders (sooner) of the first 64 ids win
        #expect(result.scheduled == 64)
        #expect(result.requests.allSatisfy { $0.timing == .dayBefore })
        #expect(result.requests.map(\.personID) == (1...64).map { String(format: "same%02d", $0) })
    }

    @Test func theSchedulerKeepsWhatTheStoreWouldKeep() async throws {
        // Adding every candidate to the store one by one, in any order, leaves
        // the same 64 as a reschedule: the cap rule and the selection agree.
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople(Self.hundredPeople(), now: Date(timeIntervalSince1970: 0))
        let center = PendingNotificationStore(database: db)
        try center.setAuthorizationStatus(.authorized)
        let now = try Fixture.instant("2026-03-10T09:30:00+01:00")
        let zone = try Fixture.zone("Europe/Berlin")
        let scheduled = try await Fixture.scheduler(db, now: now, zone: zone).reschedule().requests

        var settings = Settings()
        settings.timeZone = "Europe/Berlin"
        var planner = ReminderPlanner(settings: settings, timeZone: zone, now: now, capacity: 1_000)
        for item in try await db.feedContents().events {
            if case .gregorian(let birthday, .birthday) = item.event.date {
                planner.offer(birthday, kind: .birthday, treatment: EventTreatment(reminderDays: .standard)) {
                    (item.person.id, item.person.name, "")
                }
            }
        }
        let all = planner.requests()
        #expect(all.count == 199)
        try center.removeAll()
        var generator = SplitMix64(seed: 42)
        for request in all.shuffled(using: &generator) {
            try center.add(request, now: now)
        }
        #expect(try center.pending() == scheduled)
    }

    // MARK: - Authorization

    @Test(arguments: [AuthorizationStatus.notDetermined, .denied])
    func nothingPendingUnlessAllowed(_ status: AuthorizationStatus) async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople([Fixture.person("ada", "Ada", birthday: "--03-11")], now: Date(timeIntervalSince1970: 0))
        let center = PendingNotificationStore(database: db)
        try center.setAuthorizationStatus(status)
        let result = try await Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
            .reschedule()
        #expect(result.status == status)
        #expect(result.scheduled == 0)
        #expect(try center.count() == 0)
    }

    @Test func deniedAfterAuthorizedClearsEverything() async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople([Fixture.person("ada", "Ada", birthday: "--03-11")], now: Date(timeIntervalSince1970: 0))
        let center = PendingNotificationStore(database: db)
        let scheduler = try Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
        try center.setAuthorizationStatus(.authorized)
        #expect(try await scheduler.reschedule().scheduled == 2)
        try center.setAuthorizationStatus(.denied)
        #expect(try await scheduler.reschedule().scheduled == 0)
        #expect(try center.count() == 0)
    }

    @Test func provisionalSchedules() async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople([Fixture.person("ada", "Ada", birthday: "--03-11")], now: Date(timeIntervalSince1970: 0))
        try PendingNotificationStore(database: db).setAuthorizationStatus(.provisional)
        let result = try await Fixture.scheduler(db, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
            .reschedule()
        #expect(result.scheduled == 2)
    }

    // MARK: - Logging

    @Test func logsCountsNeverNamesOrDates() async throws {
        let store = try TemporaryDatabase()
        let db = store.database
        try db.insertPeople([Fixture.person("ada", "Ada Lovelace", birthday: "1815-12-10")], now: Date(timeIntervalSince1970: 0))
        let recorder = LogRecorder()
        let center = PendingNotificationStore(database: db)
        let scheduler = try Fixture.scheduler(
            db,
            now: Fixture.instant("2026-12-01T08:00:00+01:00"),
            zone: Fixture.zone("Europe/Berlin"),
            logger: recorder.logger
        )
        try await scheduler.reschedule()
        try center.setAuthorizationStatus(.authorized)
        try await scheduler.reschedule()

        #expect(recorder.all.count == 2)
        #expect(recorder.all[0].contains("status=notDetermined"))
        #expect(recorder.all[1].contains("scheduled=2"))
        #expect(recorder.all[1].contains("people=1"))
        for line in recorder.all {
            #expect(!line.contains("Ada"))
            #expect(!line.contains("Lovelace"))
            #expect(!line.contains("1815"))
            #expect(!line.contains("12-10"))
        }
    }
}
