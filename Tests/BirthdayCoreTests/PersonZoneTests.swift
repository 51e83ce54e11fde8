import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// A person's own zone (issue 26): what a card's `TZ` says, and when the
/// day-of reminder of someone in another zone comes on your clock.
@Suite struct PersonZoneTests {
    static let nine = TimeOfDay(hour: 9, minute: 0)!
    static let quiet = TimeOfDay(hour: 21, minute: 0)!

    // MARK: - The card's TZ

    @Test(
        arguments: [
            ("-05:00", -18_000, nil as String?),
            ("-0500", -18_000, nil),
            ("+09", 32_400, nil),
            ("+05:45", 20_700, nil),
            ("Z", 0, nil),
            ("+14:00", 50_400, nil),
            ("-12:00", -43_200, nil),
            ("America/New_York", nil as Int?, "America/New_York"),
            (" Asia/Tokyo ", nil, "Asia/Tokyo"),
        ] as [(String, Int?, String?)]
    )
    func aCardsZoneIsAnOffsetOrAName(_ value: String, _ seconds: Int?, _ name: String?) throws {
        let zone = try #require(PersonZone(cardValue: value))
        #expect(zone.name == name)
        if let seconds { #expect(zone.timeZone.secondsFromGMT() == seconds) }
        if let name { #expect(zone.timeZone.identifier == name) }
    }

    @Test(arguments: ["+15:00", "-13:00", "+09:75", "EST", "Mars/Olympus", "", "tel:+1", "05:00", "+1"])
    func anythingElseIsNoZone(_ value: String) {
        #expect(PersonZone(cardValue: value) == nil)
    }

    @Test func aZoneIsNamedByItsCityOrItsOffset() throws {
        #expect(try #require(PersonZone(cardValue: "America/New_York")).displayName == "New York")
        #expect(try #require(PersonZone(cardValue: "-05:00")).displayName == "UTC\u{2212}05:00")
        #expect(try #require(PersonZone(cardValue: "+05:45")).storedValue == "+05:45")
        #expect(try #require(PersonZone(cardValue: "Asia/Tokyo")).storedValue == "Asia/Tokyo")
    }

    // MARK: - The examples: you in Berlin, delivery 09:00, quiet-after 21:00, a birthday on 10 December

    func moment(_ theirs: String, mine: String = "Europe/Berlin", on date: String = "2026-12-10") throws -> ZonedDayOf {
        let day = try #require(LocalDate(iso: date))
        let their = try #require(PersonZone(cardValue: theirs)).timeZone
        return try #require(ZonedDayOf.moment(of: day, theirs: their, mine: try Fixture.zone(mine), delivery: Self.nine, quietAfter: Self.quiet))
    }

    @Test func tokyoIsRemindedTheDayBeforeWhenTheirDayBegins() throws {
        let tokyo = try moment("Asia/Tokyo")
        #expect(tokyo.instant == (try Fixture.instant("2026-12-09T16:00:00+01:00")))
        #expect(tokyo.localDay == LocalDate(year: 2026, month: 12, day: 9))
        #expect(tokyo.began == tokyo.instant)
        #expect(tokyo.elsewhere)
    }

    @Test func newYorkIsRemindedOnTheDayAtTheDeliveryTime() throws {
        let newYork = try moment("America/New_York")
        #expect(newYork.instant == (try Fixture.instant("2026-12-10T09:00:00+01:00")))
        #expect(newYork.localDay == LocalDate(year: 2026, month: 12, day: 10))
        #expect(newYork.began == (try Fixture.instant("2026-12-10T06:00:00+01:00")))
    }

    @Test func helsinkiWhoseDayBeginsAfterQuietAfterIsRemindedTheNextMorning() throws {
        let helsinki = try moment("Europe/Helsinki")
        #expect(helsinki.instant == (try Fixture.instant("2026-12-10T09:00:00+01:00")))
        #expect(helsinki.began == (try Fixture.instant("2026-12-09T23:00:00+01:00")))
    }

    @Test func yourOwnZoneIsTheUsualReminder() throws {
        let berlin = try moment("Europe/Berlin")
        #expect(berlin.instant == (try Fixture.instant("2026-12-10T09:00:00+01:00")))
        #expect(!berlin.elsewhere)
        // The same offset that day, given as an offset, is the same day.
        #expect(!(try moment("+01:00")).elsewhere)
    }

    @Test func anOffsetIsAZoneWithoutSummerTime() throws {
        #expect(try moment("-05:00").instant == (try moment("America/New_York")).instant)
        // In July New York is at -04:00, the card's -05:00 is not: their day begins an hour later.
        #expect(try moment("-05:00", on: "2027-07-10").began == (try Fixture.instant("2027-07-10T07:00:00+02:00")))
        #expect(try moment("America/New_York", on: "2027-07-10").began == (try Fixture.instant("2027-07-10T06:00:00+02:00")))
    }

    @Test func bothEndsOfTheZoneRange() throws {
        // +14:00: their 10 December begins at 11:00 on the 9th in Berlin.
        #expect(try moment("Pacific/Kiritimati").instant == (try Fixture.instant("2026-12-09T11:00:00+01:00")))
        // -12:00: it begins at 13:00 on the 10th.
        #expect(try moment("-12:00").instant == (try Fixture.instant("2026-12-10T13:00:00+01:00")))
    }

    @Test func youTravelling() throws {
        // The same friend in Tokyo, with you in New York: their day begins at 10:00 on the 9th, your time.
        let away = try moment("Asia/Tokyo", mine: "America/New_York")
        #expect(away.instant == (try Fixture.instant("2026-12-09T10:00:00-05:00")))
        #expect(away.localDay == LocalDate(year: 2026, month: 12, day: 9))
    }

    @Test func theirDayBeginningInASpringForwardGap() throws {
        // Santiago moves from 00:00 to 01:00 on 6 September 2026: their day begins at 01:00 -03:00.
        let chile = try moment("America/Santiago", mine: "UTC", on: "2026-09-06")
        let santiago = try Fixture.zone("America/Santiago")
        #expect(LocalDate.today(at: chile.began, in: santiago) == LocalDate(year: 2026, month: 9, day: 6))
        #expect(LocalDate.today(at: chile.began.addingTimeInterval(-60), in: santiago) == LocalDate(year: 2026, month: 9, day: 5))
    }

    // MARK: - Against a search of every quarter hour

    /// The first quarter hour (every offset and delivery time here is on one)
    /// within their day and inside your window, found by walking the clock;
    /// the usual reminder when there is none.
    static func searched(_ date: LocalDate, theirs: TimeZone, mine: TimeZone, delivery: TimeOfDay, quietAfter: TimeOfDay) -> Date? {
        guard var instant = FireTime.instant(on: date.adding(days: -2), at: TimeOfDay(hour: 0, minute: 0)!, in: mine) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = mine
        let close = quietAfter > delivery ? quietAfter.minutesSinceMidnight : 24 * 60
        for _ in 0..<(4 * 24 * 4) {
            if LocalDate.today(at: instant, in: theirs) == date {
                let parts = calendar.dateComponents([.hour, .minute], from: instant)
                let minutes = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
                if minutes >= delivery.minutesSinceMidnight, minutes < close { return instant }
            }
            instant = instant.addingTimeInterval(15 * 60)
        }
        return FireTime.instant(on: date, at: delivery, in: mine)
    }

    static let zones = [
        "Europe/Berlin", "Asia/Tokyo", "America/New_York", "Europe/Helsinki", "Pacific/Kiritimati", "Etc/GMT+12",
        "America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns",
    ]
    // DST changes of either side: the US, the EU, Chile, Lord Howe; and a plain day.
    static let dates = ["2027-03-14", "2027-03-28", "2027-10-31", "2027-11-07", "2026-09-06", "2027-04-04", "2026-12-10"]

    @Test(arguments: [("09:00", "21:00"), ("07:30", "10:00"), ("20:00", "08:00")])
    func everyPairOfZonesAgreesWithTheSearch(_ delivery: String, _ quietAfter: String) throws {
        let delivery = try #require(TimeOfDay(delivery))
        let quietAfter = try #require(TimeOfDay(quietAfter))
        for mine in Self.zones {
            for theirs in Self.zones {
                for text in Self.dates {
                    let date = try #require(LocalDate(iso: text))
                    let (my, their) = (try Fixture.zone(mine), try Fixture.zone(theirs))
                    let found = ZonedDayOf.moment(of: date, theirs: their, mine: my, delivery: delivery, quietAfter: quietAfter)
                    let expected = Self.searched(date, theirs: their, mine: my, delivery: delivery, quietAfter: quietAfter)
                    #expect(found?.instant == expected, "\(theirs) seen from \(mine) on \(text)")
                    if let found { #expect(found.localDay == LocalDate.today(at: found.instant, in: my)) }
                }
            }
        }
    }
}
