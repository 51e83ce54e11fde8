import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// When a friend's greeting goes out (issue 44): the `greeting-time` on
/// their clock in their zone, on time, late while it is still their day,
/// missed once it has ended; Feb 29, a skipped year, a DST day (pure, no I/O).
@Suite struct GreetingPlanTests {
    static func zone(_ name: String) throws -> TimeZone { try #require(TimeZone(identifier: name)) }
    static func instant(_ text: String) throws -> Date { try #require(ReferenceTime.parse(text, timeZone: TimeZone(identifier: "UTC")!)) }
    static func utc(_ date: Date) -> String { ISOInstant.format(date, in: TimeZone(identifier: "UTC")!) }

    // MARK: - The instant, in their zone

    /// Ana born 10 March: 09:00 where she is, whatever zone, and her day's span there.
    @Test(arguments: [
        ("UTC", "2026-03-10T09:00:00+00:00", "2026-03-10T00:00:00+00:00", "2026-03-11T00:00:00+00:00"),
        ("Asia/Tokyo", "2026-03-10T00:00:00+00:00", "2026-03-09T15:00:00+00:00", "2026-03-10T15:00:00+00:00"),
        ("Pacific/Kiritimati", "2026-03-09T19:00:00+00:00", "2026-03-09T10:00:00+00:00", "2026-03-10T10:00:00+00:00"),
    ])
    func theGreetingComesAtNineOnTheirClock(zone: String, instant: String, begins: String, ends: String) throws {
        let plan = GreetingPlan()
        let occurrence = try #require(plan.occurrence(of: event(1990, 3, 10), in: 2026, zone: try Self.zone(zone)))
        #expect(Self.utc(occurrence.instant) == instant)
        #expect(Self.utc(occurrence.begins) == begins)
        #expect(Self.utc(occurrence.ends) == ends)
        #expect(occurrence.day == LocalDate(year: 2026, month: 3, day: 10))
        #expect(occurrence.age == 36)
    }

    /// The `greeting-time` setting moves it, still on their clock.
    @Test func theGreetingTimeSettingMovesIt() throws {
        var settings = Settings()
        try settings.set(.greetingTime, to: "07:30")
        #expect(settings.text(for: .greetingTime) == "07:30")
        let plan = GreetingPlan(settings: settings)
        let occurrence = try #require(plan.occurrence(of: event(nil, 3, 10), in: 2026, zone: try Self.zone("Asia/Tokyo")))
        #expect(ISOInstant.format(occurrence.instant, in: try Self.zone("Asia/Tokyo")) == "2026-03-10T07:30:00+09:00")
        #expect(occurrence.age == nil, "no year, no age")
        #expect(throws: SettingsError.self) { try settings.set(.greetingTime, to: "25:00") }
    }

    // MARK: - DST

    /// Berlin's spring-forward Sunday (29 March 2026, 02:00 → 03:00): a
    /// 02:30 greeting comes at 03:30 CEST, and the day is 23 hours long.
    @Test func aTimeInTheSpringGapComesAsFarAfterIt() throws {
        let plan = GreetingPlan(time: try #require(TimeOfDay("02:30")))
        let berlin = try Self.zone("Europe/Berlin")
        let occurrence = try #require(plan.occurrence(of: event(1980, 3, 29), in: 2026, zone: berlin))
        #expect(ISOInstant.format(occurrence.instant, in: berlin) == "2026-03-29T03:30:00+02:00")
        #expect(occurrence.ends.timeIntervalSince(occurrence.begins) == 23 * 3600)
        // 09:00 that day is 07:00 UTC (CEST), not 08:00.
        let nine = try #require(GreetingPlan().occurrence(of: event(1980, 3, 29), in: 2026, zone: berlin))
        #expect(Self.utc(nine.instant) == "2026-03-29T07:00:00+00:00")
    }

    /// New York's fall-back Sunday (1 November 2026): the day lasts 25
    /// hours, so a greeting is late, not missed, at 23:30 EST.
    @Test func aFallBackDayIsTwentyFiveHoursOfTheirs() throws {
        let newYork = try Self.zone("America/New_York")
        let plan = GreetingPlan()
        let occurrence = try #require(plan.occurrence(of: event(1970, 11, 1), in: 2026, zone: newYork))
        #expect(ISOInstant.format(occurrence.instant, in: newYork) == "2026-11-01T09:00:00-05:00")
        #expect(occurrence.ends.timeIntervalSince(occurrence.begins) == 25 * 3600)
        #expect(plan.timing(of: occurrence, at: try Self.instant("2026-11-02T04:30:00Z")) == .late)
        #expect(plan.timing(of: occurrence, at: try Self.instant("2026-11-02T05:00:00Z")) == .missed)
    }

    // MARK: - On time, late, missed

    /// Tokyo: due at 00:00 UTC; on time for the late margin, late until
    /// 15:00 UTC (midnight in Tokyo), missed from then on; before it, not yet.
    @Test(arguments: [
        ("2026-03-09T23:59:59Z", GreetingPlan.Timing.notYet),
        ("2026-03-10T00:00:00Z", .onTime),
        ("2026-03-10T00:01:00Z", .onTime),
        ("2026-03-10T00:01:01Z", .late),
        ("2026-03-10T14:59:59Z", .late),
        ("2026-03-10T15:00:00Z", .missed),
    ])
    func lateWhileItIsTheirDayMissedAfter(at text: String, timing: GreetingPlan.Timing) throws {
        let plan = GreetingPlan()
        let occurrence = try #require(plan.occurrence(of: event(1990, 3, 10), in: 2026, zone: try Self.zone("Asia/Tokyo")))
        #expect(plan.timing(of: occurrence, at: try Self.instant(text)) == timing)
    }

    /// Kiritimati (UTC+14): at 09:30 UTC on the 10th it is still the 10th
    /// there (late); at 10:00 UTC it is the 11th (missed). The same instant
    /// in UTC is on time's side of the day.
    @Test func kiritimatiEndsItsDayFirst() throws {
        let plan = GreetingPlan()
        let kiritimati = try #require(plan.occurrence(of: event(nil, 3, 10), in: 2026, zone: try Self.zone("Pacific/Kiritimati")))
        let utc = try #require(plan.occurrence(of: event(nil, 3, 10), in: 2026, zone: try Self.zone("UTC")))
        #expect(plan.timing(of: kiritimati, at: try Self.instant("2026-03-10T09:30:00Z")) == .late)
        #expect(plan.timing(of: kiritimati, at: try Self.instant("2026-03-10T10:00:00Z")) == .missed)
        #expect(plan.timing(of: utc, at: try Self.instant("2026-03-10T09:00:30Z")) == .onTime)
    }

    // MARK: - The next greeting

    /// Today's while it is still their birthday (even after 09:00: due,
    /// late), next year's once their day has ended there.
    @Test func theNextGreetingIsTodaysUntilTheirDayEnds() throws {
        let plan = GreetingPlan()
        let tokyo = try Self.zone("Asia/Tokyo")
        let during = try #require(plan.next(of: event(1990, 3, 10), zone: tokyo, at: try Self.instant("2026-03-10T12:00:00Z")))
        #expect(during.day == LocalDate(year: 2026, month: 3, day: 10))
        let after = try #require(plan.next(of: event(1990, 3, 10), zone: tokyo, at: try Self.instant("2026-03-10T15:00:00Z")))
        #expect(after.day == LocalDate(year: 2027, month: 3, day: 10))
        #expect(after.age == 37)
        // At the same instant it is still the 10th in UTC.
        let inUTC = try #require(plan.next(of: event(1990, 3, 10), zone: try Self.zone("UTC"), at: try Self.instant("2026-03-10T15:00:00Z")))
        #expect(inUTC.day == LocalDate(year: 2026, month: 3, day: 10))
    }

    /// A skipped year is passed over; only that one.
    @Test func aSkippedYearIsPassedOver() throws {
        let plan = GreetingPlan()
        let now = try Self.instant("2026-01-05T12:00:00Z")
        let next = try #require(plan.next(of: event(1990, 3, 10), zone: try Self.zone("UTC"), at: now, skipping: [2026]))
        #expect(next.day == LocalDate(year: 2027, month: 3, day: 10))
        let unskipped = try #require(plan.next(of: event(1990, 3, 10), zone: try Self.zone("UTC"), at: now, skipping: [2025]))
        #expect(unskipped.day == LocalDate(year: 2026, month: 3, day: 10))
    }

    /// Feb 29 in a common year: Feb 28 (or Mar 1 under `leap-day mar1`),
    /// and Feb 29 itself in a leap year; the age counts the years.
    @Test(arguments: [
        (LeapDayPolicy.feb28, 2027, "2027-02-28"),
        (.mar1, 2027, "2027-03-01"),
        (.feb28, 2028, "2028-02-29"),
    ])
    func february29FollowsTheLeapDaySetting(policy: LeapDayPolicy, year: Int, day: String) throws {
        let plan = GreetingPlan(leapDay: policy)
        let occurrence = try #require(plan.occurrence(of: event(2000, 2, 29), in: year, zone: try Self.zone("UTC")))
        #expect(occurrence.day.description == day)
        #expect(occurrence.age == year - 2000)
    }

    /// A known year after the greeting's year has no greeting before it.
    @Test func aBirthdayYearInTheFutureHasNoGreetingBeforeIt() throws {
        let plan = GreetingPlan()
        #expect(plan.occurrence(of: event(2030, 3, 10), in: 2026, zone: try Self.zone("UTC")) == nil)
        let next = try #require(plan.next(of: event(2030, 3, 10), zone: try Self.zone("UTC"), at: try Self.instant("2026-01-01T00:00:00Z")))
        #expect(next.day.year == 2030)
    }

    /// A batch (the scheduler's loop over thousands of friends, each day's
    /// instants in each zone worked out once) plans what ``GreetingPlan/next(of:zone:at:skipping:)``
    /// plans for each friend, age included: friends sharing a day and a zone
    /// (who reuse its instants), Feb 29 under both leap-day settings, a spring-forward
    /// day, today after its time, a skipped year, a year of birth in the future.
    @Test(arguments: [LeapDayPolicy.feb28, .mar1])
    func aBatchPlansAsEachFriendAlone(leapDay: LeapDayPolicy) throws {
        var settings = Settings()
        try settings.set(.greetingTime, to: "02:30")
        let plan = GreetingPlan(time: settings.greetingTime, leapDay: leapDay)
        let now = try Self.instant("2027-03-28T00:30:00Z")
        let zones = try ["UTC", "Europe/Berlin", "Asia/Tokyo", "Pacific/Kiritimati", "America/New_York"].map(Self.zone)
        let birthdays = [
            event(1990, 3, 28), event(1985, 3, 28), event(nil, 3, 28), event(2000, 2, 29), event(1970, 1, 1), event(2030, 3, 29), event(1990, 12, 31),
        ]
        let skips: [Set<Int>] = [[], [2027], [2027, 2028]]
        var batch = GreetingPlan.Batch(plan: plan, now: now)
        var planned = 0
        for _ in 0..<2 {
            for zone in zones {
                for birthday in birthdays {
                    for skipping in skips {
                        let alone = plan.next(of: birthday, zone: zone, at: now, skipping: skipping)
                        #expect(
                            batch.next(of: birthday, zone: zone, skipping: skipping) == alone,
                            "\(birthday) in \(zone.identifier) skipping \(skipping)"
                        )
                        if alone != nil { planned += 1 }
                    }
                }
            }
        }
        #expect(planned == 2 * zones.count * birthdays.count * skips.count)
    }

    /// Their zone: the choice, else the card's, else the owner's.
    @Test func theirZoneIsTheChoiceElseTheCardElseTheOwners() throws {
        let owner = try Self.zone("Europe/Berlin")
        var person = Person(id: "ana", name: "Ana", source: ContactSource(file: "x", index: 0, line: 1), birthday: event(1990, 3, 10))
        #expect(GreetingPlan.zone(of: person, owner: owner) == owner)
        person.cardZone = PersonZone(name: "Asia/Tokyo")
        #expect(GreetingPlan.zone(of: person, owner: owner).identifier == "Asia/Tokyo")
        person.zoneChoice = .zone(try #require(PersonZone(name: "Pacific/Kiritimati")))
        #expect(GreetingPlan.zone(of: person, owner: owner).identifier == "Pacific/Kiritimati")
        person.zoneChoice = .local
        #expect(GreetingPlan.zone(of: person, owner: owner) == owner)
    }

    // MARK: - A greeting's ledger row

    /// Ana's greeting row (Asia/Tokyo, due 00:00 UTC on 10 March): it waits
    /// before its instant, goes on time, late while it is her day, is missed
    /// after; a retry stops at the end of her day; a greeting removed or a
    /// year skipped since it was planned is dismissed, never sent.
    @Test func aGreetingRowIsJudgedByTheirDay() throws {
        let plan = GreetingPlan()
        let occurrence = try #require(plan.occurrence(of: event(1990, 3, 10), in: 2026, zone: try Self.zone("Asia/Tokyo")))
        let request = occurrence.request(personID: "ana", title: "Ana", body: "")
        #expect(request.id == "greet:ana")
        #expect(request.deliveryKind == .greeting(personID: "ana"))
        let entry = DeliveryEntry(queued: request, at: occurrence.instant)
        func decide(_ at: String, greeted: Bool = true, skipped: Bool = false, _ row: DeliveryEntry = entry) throws -> DueDecision {
            plan.decision(for: row, occurrence: occurrence, greeted: greeted, skipped: skipped, now: try Self.instant(at))
        }
        #expect(try decide("2026-03-09T23:59:00Z") == .wait(until: occurrence.instant))
        #expect(try decide("2026-03-10T00:00:30Z") == .deliver(late: false))
        #expect(try decide("2026-03-10T14:59:00Z") == .deliver(late: true))
        #expect(try decide("2026-03-10T15:00:00Z") == .missed)
        var retrying = entry
        retrying.state = .retrying
        #expect(try decide("2026-03-10T14:00:00Z", retrying) == .deliver(late: true))
        #expect(try decide("2026-03-10T15:00:00Z", retrying) == .expire)
        guard case .dismiss = try decide("2026-03-10T00:00:30Z", greeted: false) else {
            Issue.record("a friend no longer greeted is dismissed")
            return
        }
        guard case .dismiss = try decide("2026-03-10T00:00:30Z", skipped: true) else {
            Issue.record("a skipped year is dismissed")
            return
        }
    }

    // MARK: - The owner's reminder may skip it

    /// Ana's greeting goes on 10 March and has not gone: her birthday's
    /// reminders of the day before and of the day offer to skip it; a week
    /// before, another day's, her anniversary's, a labelled date's, another
    /// calendar's date and a greeting that has gone (no day) do not.
    @Test func theDayBeforeAndTheDayOfReminderMaySkipAGreetingNotSentYet() throws {
        let day = try #require(LocalDate(year: 2026, month: 3, day: 10))
        let nextYear = try #require(LocalDate(year: 2027, month: 3, day: 10))
        let at = try Self.instant("2026-03-09T08:00:00Z")
        func entry(
            _ kind: EventKind = .birthday,
            _ timing: NotificationRequest.Timing = .dayBefore,
            on occurrence: LocalDate? = nil,
            calendar: CalendarSystem? = nil,
            labelled: (label: String, id: String)? = nil
        ) -> DeliveryEntry {
            let request = NotificationRequest(
                personID: "ana",
                kind: kind,
                timing: timing,
                fireAt: at,
                occurrenceDate: occurrence ?? day,
                title: "Ana",
                body: "",
                calendar: calendar,
                labelled: labelled
            )
            return DeliveryEntry(queued: request, at: at)
        }
        #expect(GreetingPlan.skippable(entry(), greetingDay: day) == day)
        #expect(GreetingPlan.skippable(entry(.birthday, .dayOf), greetingDay: day) == day)
        #expect(GreetingPlan.skippable(entry(), greetingDay: nil) == nil, "gone, or not greeted")
        #expect(GreetingPlan.skippable(entry(.birthday, NotificationRequest.Timing(daysBefore: 7)), greetingDay: day) == nil)
        #expect(GreetingPlan.skippable(entry(on: nextYear), greetingDay: day) == nil)
        #expect(GreetingPlan.skippable(entry(.anniversary), greetingDay: day) == nil)
        #expect(GreetingPlan.skippable(entry(labelled: ("Name day", "nd")), greetingDay: day) == nil)
        #expect(GreetingPlan.skippable(entry(calendar: .hebrew), greetingDay: day) == nil)
        // A greeting's own row is not a reminder of it.
        let greeting = try #require(GreetingPlan().occurrence(on: day, age: nil, zone: try Self.zone("Asia/Tokyo")))
        let row = DeliveryEntry(queued: greeting.request(personID: "ana", title: "Ana", body: ""), at: at)
        #expect(GreetingPlan.skippable(row, greetingDay: day) == nil)
    }

    // MARK: - A plan that holds (issue 44)

    /// A reschedule's greetings hold until the soonest of them is due, at
    /// most a day, only with the same inputs and a clock that went forward:
    /// any of these failing is a plan made again.
    @Test func aPlanHoldsUntilItsFirstGreetingForADayAtMost() throws {
        let at = try Self.instant("2026-03-01T12:00")
        let soonest = at.addingTimeInterval(3 * 3600)
        let stamp = GreetingPlan.Stamp(inputs: 7, plannedAt: at, instants: [at.addingTimeInterval(9 * 3600), soonest], saved: [soonest])
        #expect(stamp.holds(inputs: 7, at: at))
        #expect(stamp.holds(inputs: 7, at: soonest.addingTimeInterval(-1)))
        #expect(!stamp.holds(inputs: 7, at: soonest), "the soonest greeting is due: it goes into the ledger, its friend's next is next year's")
        #expect(!stamp.holds(inputs: 8, at: at.addingTimeInterval(60)), "another input")
        #expect(!stamp.holds(inputs: 7, at: at.addingTimeInterval(-1)), "a clock set back, a pretend time before it")
        let far = GreetingPlan.Stamp(inputs: 7, plannedAt: at, instants: [at.addingTimeInterval(90 * 86_400)], saved: [])
        #expect(far.holds(inputs: 7, at: at.addingTimeInterval(86_399)))
        #expect(!far.holds(inputs: 7, at: at.addingTimeInterval(86_400)), "a day at most")
        let none = GreetingPlan.Stamp(inputs: 7, plannedAt: at, instants: [], saved: [])
        #expect(none.validUntil == at.addingTimeInterval(86_400))
        // As the store keeps it, and what it counts of the greetings saved.
        #expect(GreetingPlan.Stamp(text: stamp.text) == stamp)
        #expect(GreetingPlan.Stamp(text: none.text) == none)
        #expect(stamp.saved == 1 && stamp.first == soonest && stamp.last == soonest)
        #expect(GreetingPlan.Stamp(text: "") == nil)
        #expect(GreetingPlan.Stamp(text: "7 x 1 0 - -") == nil)
    }

    /// Every input of a plan is in its value: the
    /// migrations applied, the `greeting-time` and `leap-day`, the owner's zone, the choices, the
    /// skipped years, the birthdays chosen among linked cards.
    @Test func everyInputOfAPlanIsInItsValue() throws {
        let utc = try Self.zone("UTC")
        let greetings = [Greeting(target: .group("Family")), Greeting(target: .person("ana"), way: .apprise)]
        func inputs(
            schema: Set<String> = ["v1-people", "v2-notifications"],
            plan: GreetingPlan = GreetingPlan(),
            owner: TimeZone = utc,
            greetings: [Greeting] = greetings,
            skips: [String: Set<Int>] = ["ana": [2026]],
            birthdays: [String: EventDate] = ["bo": EventDate(year: 1980, month: 2, day: 3)!]
        ) -> UInt64 {
            GreetingPlan.Stamp.inputs(
                schema: schema,
                plan: plan,
                owner: owner,
                greetings: greetings,
                skips: skips,
                birthdays: birthdays
            )
        }
        let base = inputs()
        #expect(inputs() == base, "the same inputs, the same value")
        #expect(inputs(schema: ["v1-people", "v2-notifications", "v3-delivery"]) != base, "a migration applied since")
        #expect(inputs(schema: ["v2-notifications", "v1-people"]) == base, "a set")
        #expect(inputs(plan: GreetingPlan(time: try #require(TimeOfDay("09:01")))) != base)
        #expect(inputs(plan: GreetingPlan(leapDay: .mar1)) != base)
        #expect(inputs(owner: try Self.zone("Asia/Tokyo")) != base)
        #expect(inputs(greetings: [greetings[0]]) != base)
        #expect(inputs(greetings: [greetings[0], Greeting(target: .person("ana"), way: .email(address: "a@example.org"))]) != base)
        // Every field of a choice, each told apart from the next.
        let family = greetings[1]
        #expect(inputs(greetings: [Greeting(target: .person("Family")), family]) != base, "a person of the group's name")
        #expect(inputs(greetings: [Greeting(id: 3, target: .group("Family")), family]) != base)
        #expect(inputs(greetings: [Greeting(target: .group("Family"), message: try GreetingTemplate("Hi {first}!")), family]) != base)
        #expect(inputs(greetings: [Greeting(target: .group("Family"), language: "de"), family]) != base)
        let split = [Greeting(target: .person("ana"), way: .email(address: "a|-"), language: "de")]
        #expect(inputs(greetings: split) != inputs(greetings: [Greeting(target: .person("ana"), way: .email(address: "a"), language: "-|de")]))
        #expect(inputs(skips: ["ana": [2026, 2027]]) != base)
        #expect(inputs(skips: [:]) != base)
        #expect(inputs(birthdays: ["bo": EventDate(year: 1980, month: 2, day: 4)!]) != base)
    }

    /// A plan that holds is kept when no change named anyone, planned
    /// again for the cards named when they are few, and whole otherwise:
    /// when it no longer holds, or more cards were named than
    /// ``GreetingPlan/Stamp/replanLimit``.
    @Test func aPlanIsKeptPlannedAgainForTheFewNamedOrWhole() throws {
        let at = try Self.instant("2026-03-01T12:00")
        let stamp = GreetingPlan.Stamp(
            inputs: 7,
            plannedAt: at,
            instants: [at.addingTimeInterval(9 * 3600)],
            saved: [at.addingTimeInterval(9 * 3600)]
        )
        let later = at.addingTimeInterval(3600)
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 7, at: later, changed: []) == .keep(stamp))
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 7, at: later, changed: ["ana", "bob"]) == .replan(stamp, cards: ["ana", "bob"]))
        #expect(GreetingPlan.Stamp.verdict(stored: nil, inputs: 7, at: later, changed: ["ana"]) == .planAll, "the stamp taken away")
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 8, at: later, changed: ["ana"]) == .planAll, "another input")
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 7, at: at.addingTimeInterval(9 * 3600), changed: []) == .planAll, "a greeting due")
        let many = Set((0...GreetingPlan.Stamp.replanLimit).map { "p\($0)" })
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 7, at: later, changed: Set(many.dropFirst())) != .planAll, "the limit itself")
        #expect(GreetingPlan.Stamp.verdict(stored: stamp, inputs: 7, at: later, changed: many) == .planAll, "past the limit")
    }

    /// A plan made again for a few friends keeps its inputs and the instant
    /// it was made at (it still ends a day after it), ends sooner at a new
    /// greeting before its end, and counts the greetings pending as they are now.
    @Test func aPlanMadeAgainForAFewEndsNoLaterAndCountsWhatIsPending() throws {
        let at = try Self.instant("2026-03-01T12:00")
        let soonest = at.addingTimeInterval(9 * 3600)
        let stamp = GreetingPlan.Stamp(inputs: 7, plannedAt: at, instants: [soonest, at.addingTimeInterval(40 * 3600)], saved: [soonest])
        let sooner = at.addingTimeInterval(5 * 3600)
        let replanned = stamp.replanned(instants: [sooner], removed: 1, added: 2, first: sooner, last: soonest)
        #expect(replanned.inputs == 7 && replanned.plannedAt == at)
        #expect(replanned.validUntil == sooner)
        #expect(replanned.saved == 2 && replanned.first == sooner && replanned.last == soonest)
        let later = stamp.replanned(instants: [at.addingTimeInterval(30 * 3600)], removed: 1, added: 0, first: nil, last: nil)
        #expect(later.validUntil == soonest, "a later greeting ends nothing later")
        #expect(later.saved == 0 && later.first == nil)
        #expect(stamp.replanned(instants: [], removed: 0, added: 0, first: stamp.first, last: stamp.last) == stamp)
    }

    /// Which changes reach a few people, whose greetings alone are planned
    /// again, and which reach anyone, so that every greeting is.
    @Test func aChangeReachesItsPeopleOrEveryone() {
        let few: [GreetingPlan.Change] = [.friend, .emailAddress, .membership, .link, .holding]
        for change in GreetingPlan.Change.allCases {
            #expect(change.reach == (few.contains(change) ? .itsPeople : .everyone), "\(change)")
        }
        #expect(GreetingPlan.Change.rule.reach == .everyone)
        #expect(GreetingPlan.Change.setting.reach == .everyone)
    }
}
