import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The digest's days and words (``DigestPeriod``, ``Digest``).
struct DigestTests {
    static func day(_ text: String) throws -> LocalDate { try #require(LocalDate(iso: text)) }

    @Test func weekdaysAgreeWithFoundationsCalendarForTenYears() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let start = try Self.day("2024-01-01")
        for offset in 0..<3653 {
            let date = start.adding(days: offset)
            let instant = Date(timeIntervalSince1970: Double(date.dayNumber) * 86_400 + 43_200)
            // Foundation: 1 is Sunday; ISO: 1 is Monday.
            let iso = (calendar.component(.weekday, from: instant) + 5) % 7 + 1
            #expect(date.weekday.isoNumber == iso, "\(date)")
        }
    }

    @Test func weekdayNamesAreReadWholeOrShort() {
        #expect(Weekday(parsing: "Friday") == .friday)
        #expect(Weekday(parsing: " sun ") == .sunday)
        #expect(Weekday(parsing: "fr") == nil)
        #expect(Weekday(parsing: "someday") == nil)
    }

    @Test(arguments: [
        // (frequency, digest day, first possible day, expected first, expected last)
        ("weekly", "monday", "2026-11-26", "2026-11-30", "2026-12-06"),
        ("weekly", "monday", "2026-11-30", "2026-11-30", "2026-12-06"),
        ("weekly", "thursday", "2026-11-26", "2026-11-26", "2026-12-02"),
        ("weekly", "sunday", "2026-12-28", "2027-01-03", "2027-01-09"),
        ("monthly", "monday", "2026-11-26", "2026-12-01", "2026-12-31"),
        ("monthly", "monday", "2026-12-02", "2027-01-01", "2027-01-31"),
        ("monthly", "monday", "2028-02-01", "2028-02-01", "2028-02-29"),
        ("monthly", "monday", "2027-01-15", "2027-02-01", "2027-02-28"),
    ])
    func theNextPeriod(_ frequency: String, _ weekday: String, _ from: String, _ first: String, _ last: String) throws {
        let kind = try #require(DigestFrequency(rawValue: frequency))
        let day = try #require(Weekday(rawValue: weekday))
        let period = try #require(DigestPeriod.next(kind, day: day, onOrAfter: Self.day(from)))
        #expect(period.first.description == first)
        #expect(period.last.description == last)
    }

    @Test func offHasNoPeriod() throws {
        #expect(DigestPeriod.next(.off, day: .monday, onOrAfter: try Self.day("2026-11-26")) == nil)
    }

    /// The digest day itself: sent today while the delivery time is ahead, else the next period.
    @Test func aDigestDayWhoseDeliveryTimeHasPassedWaitsForTheNextPeriod() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        var settings = Settings()
        settings.digest = .weekly
        let before = try #require(ReferenceTime.parse("2026-11-30T08:59:00+01:00", timeZone: zone))
        let after = try #require(ReferenceTime.parse("2026-11-30T09:00:00+01:00", timeZone: zone))
        let early = try #require(DigestPeriod.next(.weekly, settings: settings, now: before, timeZone: zone))
        #expect(early.period.first.description == "2026-11-30")
        #expect(ISOInstant.format(early.fireAt, in: zone) == "2026-11-30T09:00:00+01:00")
        let late = try #require(DigestPeriod.next(.weekly, settings: settings, now: after, timeZone: zone))
        #expect(late.period.first.description == "2026-12-07")
    }

    static func occurrence(
        _ id: String,
        _ name: String,
        _ date: String,
        kind: EventKind = .birthday,
        age: Int?,
        from first: String
    ) throws
        -> Occurrence
    {
        let day = try Self.day(date)
        return Occurrence(
            personID: id,
            name: name,
            kind: kind,
            date: day,
            eventDate: nil,
            calendarDate: nil,
            age: age,
            daysUntil: try Self.day(first).days(to: day)
        )
    }

    @Test func theTitleNamesThreePeopleOnceAndCountsTheOthers() throws {
        let first = "2026-11-30"
        let period = DigestPeriod(frequency: .weekly, first: try Self.day(first), last: try Self.day("2026-12-06"))
        let events = try [
            Self.occurrence("a", "Ada", "2026-11-30", age: 37, from: first),
            Self.occurrence("a", "Ada", "2026-12-01", kind: .anniversary, age: 10, from: first),
            Self.occurrence("b", "Bob", "2026-12-02", age: nil, from: first),
            Self.occurrence("c", "Zoë\nSubject: x", "2026-12-03", age: 40, from: first),
            Self.occurrence("d", "Dan", "2026-12-04", age: 20, from: first),
            Self.occurrence("e", "Eve", "2026-12-05", age: 30, from: first),
        ]
        let digest = Digest(period: period, events: events)
        #expect(digest.title(in: .english) == "Birthdays and anniversaries in the week ahead: Ada, Bob, Zoë Subject: x +2 more")
        #expect(Digest(period: period, events: events.filter { $0.kind == .birthday }).title(in: .english).hasPrefix("Birthdays in the week ahead: "))
        // One more person: the plural forms of the languages that have them.
        let four = Digest(period: period, events: Array(events.prefix(5)))
        #expect(four.title(in: Localizer(setting: "fr", systemLocale: nil)).hasSuffix(" +1 autre"))
        #expect(digest.title(in: Localizer(setting: "fr", systemLocale: nil)).hasSuffix(" +2 autres"))
        #expect(
            digest.lines(in: .english, readOn: period.first) == [
                "Mon 30 Nov (today): Ada, birthday, turns 37",
                "Tue 1 Dec (tomorrow): Ada, anniversary, 10 years",
                "Wed 2 Dec: Bob, birthday",
                "Thu 3 Dec: Zoë Subject: x, birthday, turns 40",
                "Fri 4 Dec: Dan, birthday, turns 20",
                "Sat 5 Dec: Eve, birthday, turns 30",
            ]
        )
        let request = try #require(digest.request(fireAt: Date(timeIntervalSince1970: 0), in: .english))
        #expect(request.id == "digest-weekly")
        #expect(request.digest == .weekly)
        #expect(request.personID == "")
        #expect(request.occurrenceDate == period.first)
        #expect(request.body.split(separator: "\n").count == events.count)
    }

    /// "(today)" and "(tomorrow)" count from the day the lines are read: the
    /// message sent on Monday marks Monday today; its preview on the Friday
    /// before marks nothing, on the Sunday before marks Monday tomorrow.
    @Test func todayAndTomorrowAreTheReadersOwn() throws {
        let first = "2026-11-30"
        let period = DigestPeriod(frequency: .weekly, first: try Self.day(first), last: try Self.day("2026-12-06"))
        let digest = Digest(
            period: period,
            events: try [
                Self.occurrence("a", "Ada", "2026-11-30", age: 37, from: first),
                Self.occurrence("b", "Bob", "2026-12-01", age: nil, from: first),
            ]
        )
        #expect(
            digest.lines(in: .english, readOn: try Self.day("2026-11-27")) == ["Mon 30 Nov: Ada, birthday, turns 37", "Tue 1 Dec: Bob, birthday"]
        )
        #expect(
            digest.lines(in: .english, readOn: try Self.day("2026-11-29"))
                == ["Mon 30 Nov (tomorrow): Ada, birthday, turns 37", "Tue 1 Dec: Bob, birthday"]
        )
        let sent = try #require(digest.request(fireAt: Date(timeIntervalSince1970: 0), in: .english))
        #expect(sent.body == "Mon 30 Nov (today): Ada, birthday, turns 37\nTue 1 Dec (tomorrow): Bob, birthday", "the message is read on its day")
    }

    /// The pending table's WHEN: a digest is what it is, not "day-of".
    @Test func aPendingDigestIsCalledADigest() throws {
        let period = DigestPeriod(frequency: .weekly, first: try Self.day("2026-11-30"), last: try Self.day("2026-12-06"))
        let events = [try Self.occurrence("a", "Ada", "2026-11-30", age: 37, from: "2026-11-30")]
        let weekly = try #require(Digest(period: period, events: events).request(fireAt: Date(timeIntervalSince1970: 0), in: .english))
        #expect(Localizer.english(.pendingWhen(weekly, snoozed: false)) == "weekly digest")
        #expect(Localizer(language: "de")(.pendingWhen(weekly, snoozed: false)) == "Wochenübersicht")
        #expect(Localizer.english(.pendingWhen(weekly, snoozed: true)) == "snoozed")
        let december = DigestPeriod(frequency: .monthly, first: try Self.day("2026-12-01"), last: try Self.day("2026-12-31"))
        let monthly = try #require(Digest(period: december, events: events).request(fireAt: Date(timeIntervalSince1970: 0), in: .english))
        #expect(Localizer.english(.pendingWhen(monthly, snoozed: false)) == "monthly digest")
        var reminder = weekly
        reminder.deliveryKind = .reminder(DeliveryKind.Occasion())
        #expect(Localizer.english(.pendingWhen(reminder, snoozed: false)) == "day-of", "a reminder about one day says which")
    }

    @Test func aMonthAndAnyOtherSpanHaveTheirOwnTitles() throws {
        let december = DigestPeriod(frequency: .monthly, first: try Self.day("2026-12-01"), last: try Self.day("2026-12-31"))
        let events = [try Self.occurrence("a", "Ada", "2026-12-09", age: 37, from: "2026-12-01")]
        #expect(Digest(period: december, events: events).title(in: .english) == "Birthdays in December: Ada")
        let german = Localizer(setting: "de", systemLocale: nil)
        #expect(Digest(period: december, events: events).title(in: german) == "Geburtstage im Dezember: Ada")
        let span = DigestPeriod(frequency: .weekly, first: try Self.day("2026-12-01"), last: try Self.day("2026-12-10"))
        #expect(Digest(period: span, events: events).title(in: .english) == "Birthdays from Tue 1 Dec to Thu 10 Dec: Ada")
    }

    @Test func anEmptyPeriodHasNoRequest() throws {
        let period = DigestPeriod(frequency: .weekly, first: try Self.day("2026-11-30"), last: try Self.day("2026-12-06"))
        #expect(Digest(period: period, events: []).request(fireAt: Date(timeIntervalSince1970: 0), in: .english) == nil)
    }

    @Test func aDigestReminderKeepsItsLinesAndNamesItsKind() throws {
        let reminder = Reminder(
            id: "digest-weekly",
            personID: "",
            kind: .birthday,
            when: .dayOf,
            fireAt: Date(timeIntervalSince1970: 0),
            timeZone: .gmt,
            title: "Birthdays in the week ahead: Ada",
            body: "Mon 30 Nov: Ada\u{7}, birthday\nTue 1 Dec: Bob, birthday",
            late: false,
            occurrenceDate: try Self.day("2026-11-30"),
            digest: .weekly
        )
        #expect(reminder.kindName == "digest")
        #expect(reminder.safeBody.split(separator: "\n").count == 2)
        #expect(!reminder.safeBody.unicodeScalars.contains("\u{7}"))
        var single = reminder
        single.digest = nil
        #expect(single.kindName == "birthday")
        #expect(!single.safeBody.contains("\n"))
    }
}

/// Which birthdays are round (``Occurrence/isRound``, `round` in `upcoming --json`).
struct RoundBirthdayTests {
    static func occurrence(kind: EventKind = .birthday, age: Int?, memorial: Bool = false) throws -> Occurrence {
        var event = Occurrence(
            personID: "a",
            name: "Ada",
            kind: kind,
            date: try #require(LocalDate(year: 2026, month: 12, day: 10)),
            eventDate: nil,
            calendarDate: nil,
            age: age,
            daysUntil: 3
        )
        event.memorial = memorial
        return event
    }

    @Test(arguments: [(18, true), (10, true), (50, true), (100, true), (101, true), (17, false), (19, false), (45, false), (0, false)])
    func roundAges(_ age: Int, _ round: Bool) throws {
        #expect(try Self.occurrence(age: age).isRound == round)
    }

    @Test func anniversariesMemorialsAndUnknownYearsAreNotRound() throws {
        #expect(try !Self.occurrence(kind: .anniversary, age: 10).isRound)
        #expect(try !Self.occurrence(age: 80, memorial: true).isRound)
        #expect(try !Self.occurrence(age: nil).isRound)
    }
}
