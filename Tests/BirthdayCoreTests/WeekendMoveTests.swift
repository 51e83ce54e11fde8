import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// `birthdays remind PERSON --weekend friday` (issue 20): the planner moves a
/// person's Saturday and Sunday reminders to the Friday before (pure, no I/O).
@Suite struct WeekendMoveTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let friday = EventTreatment(reminderDays: .standard, weekend: .friday)

    private func planner(now text: String, capacity: Int = NotificationRequest.pendingLimit) throws -> ReminderPlanner {
        let now = try #require(ReferenceTime.parse(text, timeZone: Self.berlin))
        return ReminderPlanner(settings: Settings(), timeZone: Self.berlin, now: now, capacity: capacity)
    }

    private func fires(_ request: NotificationRequest) -> String { ISOInstant.format(request.fireAt, in: Self.berlin) }

    @Test func weekdaysCountFromAThursday() {
        #expect(date(1970, 1, 1).weekday == .thursday)
        #expect(date(2026, 3, 14).weekday == .saturday)
        #expect(date(2026, 3, 15).weekday == .sunday)
        #expect(date(1969, 12, 28).weekday == .sunday)
        #expect(WeekendRule.friday.fireDay(for: date(2026, 3, 14)) == date(2026, 3, 13))
        #expect(WeekendRule.friday.fireDay(for: date(2026, 3, 15)) == date(2026, 3, 13))
        #expect(WeekendRule.friday.fireDay(for: date(2026, 3, 16)) == date(2026, 3, 16))
        #expect(WeekendRule.friday.fireDay(for: date(2026, 3, 13)) == date(2026, 3, 13))
    }

    /// A Sunday birthday on November 1st: its day-of moves back into October,
    /// and the day-before (Saturday) lands on the same Friday and is dropped.
    @Test func aSundayAcrossAMonthMovesToFridayOnceWithHonestWords() throws {
        var planner = try planner(now: "2026-10-26T08:00:00+01:00")
        planner.offer(event(1989, 11, 1), kind: .birthday, treatment: Self.friday) { ("ada", "Ada", "") }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["ada-birthday-dayof"])
        let request = try #require(requests.first)
        #expect(fires(request) == "2026-10-30T09:00:00+01:00")
        #expect(request.occurrenceDate == date(2026, 11, 1))
        #expect(request.timing == .dayOf)
        #expect(request.movedTo == date(2026, 10, 30))
        #expect(request.dueDay == date(2026, 10, 30))
        #expect(request.title == "Birthday in 2 days")
        #expect(request.body == "Ada turns 37 in 2 days!")
        #expect(!request.body.contains("today"))
    }

    /// A Saturday birthday on January 2nd: the day-of goes back to Friday
    /// December 31st of the year before; the day-before is that Friday already.
    @Test func aSaturdayAcrossTheYearKeepsTheDayOfOnly() throws {
        var planner = try planner(now: "2032-12-27T08:00:00+01:00")
        planner.offer(event(2000, 1, 1), kind: .birthday, treatment: Self.friday) { ("sat", "Sat", "") }
        planner.offer(event(nil, 1, 2), kind: .anniversary, treatment: Self.friday) { ("sun", "Sun", "") }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["sat-birthday-dayof", "sun-anniversary-dayof"])
        #expect(requests.map(fires) == ["2032-12-31T09:00:00+01:00", "2032-12-31T09:00:00+01:00"])
        #expect(requests.map(\.occurrenceDate) == [date(2033, 1, 1), date(2033, 1, 2)])
        #expect(requests[0].body == "Sat turns 33 tomorrow!")
        #expect(requests[0].title == "Birthday Tomorrow")
        #expect(requests[1].body == "Sun's anniversary is in 2 days!")
    }

    /// Daylight saving time ends on Sunday 2026-10-25 in Berlin: the reminder
    /// fires at 09:00 on the Friday in summer time, not at an instant carried over.
    @Test(arguments: [
        ("2026-10-19T08:00:00+02:00", 10, 25, "2026-10-23T09:00:00+02:00"),
        ("2026-03-23T08:00:00+01:00", 3, 29, "2026-03-27T09:00:00+01:00"),
    ])
    func aDSTWeekendMovesToNineOnFriday(now: String, month: Int, day: Int, expected: String) throws {
        var planner = try planner(now: now)
        planner.offer(event(nil, month, day), kind: .birthday, treatment: Self.friday) { ("dst", "Dst", "") }
        #expect(planner.requests().map(fires) == [expected])
    }

    /// On Saturday morning the Friday has passed: the moved reminders are
    /// skipped (never sent late on the weekend); someone without the rule
    /// keeps theirs.
    @Test func aMoveIntoThePastIsSkipped() throws {
        var planner = try planner(now: "2026-03-14T08:00:00+01:00")
        planner.offer(event(1990, 3, 15), kind: .birthday, treatment: Self.friday) { ("work", "Work", "") }
        planner.offer(event(1990, 3, 15), kind: .birthday, treatment: EventTreatment(reminderDays: .standard)) { ("home", "Home", "") }
        #expect(planner.requests().map(\.id) == ["home-birthday-daybefore", "home-birthday-dayof"])
    }

    /// With 7,1,0 and a Sunday birthday, the week-ahead (a Sunday too) moves
    /// to its own Friday; the day-before and day-of share one, the day-of kept.
    @Test func twoRemindersOnOneFridayBecomeTheNearerOne() throws {
        var planner = try planner(now: "2026-03-09T08:00:00+01:00")
        let week = try #require(ReminderDays("7,1,0"))
        planner.offer(event(1990, 3, 22), kind: .birthday, treatment: EventTreatment(reminderDays: week, weekend: .friday)) { ("w", "W", "") }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["w-birthday-7daysbefore", "w-birthday-dayof"])
        #expect(requests.map(fires) == ["2026-03-13T09:00:00+01:00", "2026-03-20T09:00:00+01:00"])
        #expect(requests.map(\.body) == ["W turns 36 in 9 days!", "W turns 36 in 2 days!"])
    }

    /// Weekday reminders do not move, and a memorial keeps its day (the rules
    /// give it no weekend rule, and the planner would not move one anyway).
    @Test func weekdaysAndMemorialsStay() throws {
        let rules = TreatmentRules(deceased: .remember)
        #expect(rules.treatment(of: .birthday, for: PersonTraits(weekend: .friday))?.weekend == .friday)
        #expect(rules.treatment(of: .birthday, for: PersonTraits(deceased: true, weekend: .friday))?.weekend == nil)
        var planner = try planner(now: "2026-03-09T08:00:00+01:00")
        planner.offer(event(1990, 3, 18), kind: .birthday, treatment: Self.friday) { ("wed", "Wed", "") }
        let memorial = EventTreatment(reminderDays: .dayOfOnly, memorial: true, weekend: .friday)
        planner.offer(event(1940, 3, 15), kind: .birthday, treatment: memorial) { ("m", "M", "") }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["m-birthday-dayof", "wed-birthday-daybefore", "wed-birthday-dayof"])
        #expect(requests.allSatisfy { $0.movedTo == nil && !$0.deliveryKind.storedValue.contains("moved_to") })
        #expect(fires(requests[0]) == "2026-03-15T09:00:00+01:00")
        #expect(requests[0].body == "M would have turned 86 today.")
    }

    /// The 64 places go by the day a reminder fires on: a Sunday moved to
    /// Friday comes before a Saturday that stays.
    @Test func theCapRanksByTheMovedDay() throws {
        var planner = try planner(now: "2026-03-09T08:00:00+01:00", capacity: 1)
        planner.offer(event(nil, 3, 14), kind: .birthday, treatment: EventTreatment(reminderDays: .dayOfOnly)) { ("a", "A", "") }
        planner.offer(event(nil, 3, 15), kind: .birthday, treatment: EventTreatment(reminderDays: .dayOfOnly, weekend: .friday)) { ("z", "Z", "") }
        #expect(planner.requests().map(\.id) == ["z-birthday-dayof"])
    }

    /// The ledger judges a moved reminder by its Friday: due and sent then,
    /// not held until Sunday, and missed once that Friday has ended.
    @Test func theLedgerJudgesAMovedReminderByItsFriday() throws {
        var planner = try planner(now: "2026-03-09T08:00:00+01:00")
        planner.offer(event(1990, 3, 15), kind: .birthday, treatment: Self.friday) { ("ada", "Ada", "") }
        let request = try #require(planner.requests().first)
        let entry = DeliveryEntry(queued: request, at: request.fireAt)
        #expect(entry.localDay(in: Self.berlin, deliveryTime: Settings().deliveryTime, quietAfter: Settings().quietAfter) == date(2026, 3, 13))
        let justAfter = request.fireAt.addingTimeInterval(10)
        #expect(
            entry.decision(
                now: justAfter,
                timeZone: Self.berlin,
                deliveryTime: Settings().deliveryTime,
                quietAfter: Settings().quietAfter,
                lateAfter: .seconds(60)
            )
                == .deliver(late: false)
        )
        let saturday = try #require(ReferenceTime.parse("2026-03-14T10:00:00+01:00", timeZone: Self.berlin))
        #expect(
            entry.decision(
                now: saturday,
                timeZone: Self.berlin,
                deliveryTime: Settings().deliveryTime,
                quietAfter: Settings().quietAfter,
                lateAfter: .seconds(60)
            ) == .missed
        )
    }
}
