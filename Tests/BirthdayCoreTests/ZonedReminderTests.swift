import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Someone in another time zone (issue 26): the planner fires their day-of
/// reminder at the first moment of their day in your window, counts the
/// other reminder days back from it, ranks by the real instant, and the
/// ledger judges the reminder again in the zone in force (pure, no I/O).
@Suite struct ZonedReminderTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func treatment(_ zone: String?, days: ReminderDays = .standard) throws -> EventTreatment {
        EventTreatment(reminderDays: days, zone: try zone.map { try #require(PersonZone(cardValue: $0)) })
    }

    private func makePlanner(
        now text: String,
        in zone: TimeZone = berlin,
        settings: Settings = Settings(),
        capacity: Int = 64
    ) throws
        -> ReminderPlanner
    {
        let now = try #require(ReferenceTime.parse(text, timeZone: zone))
        return ReminderPlanner(settings: settings, timeZone: zone, now: now, capacity: capacity)
    }

    private func fires(_ request: NotificationRequest, in zone: TimeZone = berlin) -> String { ISOInstant.format(request.fireAt, in: zone) }

    /// The issue's examples, planned: you in Berlin, delivery 09:00,
    /// quiet-after 21:00, four friends born on 10 December.
    @Test func theIssuesExamplesArePlannedAtTheirMoments() throws {
        var planner = try makePlanner(now: "2026-12-01T08:00:00+01:00")
        planner.offer(event(1990, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo")) { ("mei", "Mei", "") }
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("America/New_York")) { ("ann", "Ann", "") }
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Europe/Helsinki")) { ("hel", "Hel", "") }
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment(nil)) { ("bea", "Bea", "") }
        let requests = planner.requests()
        let byID = Dictionary(uniqueKeysWithValues: requests.map { ($0.id, $0) })
        let mei = try #require(byID["mei-birthday-dayof"])
        #expect(fires(mei) == "2026-12-09T16:00:00+01:00")
        #expect(mei.occurrenceDate == date(2026, 12, 10))
        #expect(mei.body == "Mei turns 36 today in Tokyo (since 16:00 here)!")
        #expect(mei.title == "Mei's Birthday!")
        #expect(mei.zone?.name == "Asia/Tokyo")
        #expect(mei.deliveryKind.storedValue == #"{"reminder":{"zone":"Asia/Tokyo"}}"#)
        // Mei's day before counts back from the 9th: the 8th at the delivery time, in the usual words.
        #expect(fires(try #require(byID["mei-birthday-daybefore"])) == "2026-12-08T09:00:00+01:00")
        #expect(byID["mei-birthday-daybefore"]?.body == "Mei turns 36 tomorrow!")
        let ann = try #require(byID["ann-birthday-dayof"])
        #expect(fires(ann) == "2026-12-10T09:00:00+01:00")
        #expect(ann.body == "It is Ann's birthday in New York (since 06:00 here)!")
        let hel = try #require(byID["hel-birthday-dayof"])
        #expect(fires(hel) == "2026-12-10T09:00:00+01:00")
        #expect(hel.body == "It is Hel's birthday in Helsinki (since 23:00 yesterday here)!")
        let bea = try #require(byID["bea-birthday-dayof"])
        #expect(fires(bea) == "2026-12-10T09:00:00+01:00")
        #expect(bea.body == "Today is Bea's birthday!")
        #expect(bea.zone == nil)
        // Soonest first, by the real instant: Mei's 16:00 comes after the 09:00 day-befores of the 9th.
        #expect(requests.map(\.id).firstIndex(of: "mei-birthday-dayof")! > requests.map(\.id).firstIndex(of: "bea-birthday-daybefore")!)
        #expect(requests.map(\.fireAt) == requests.map(\.fireAt).sorted())
    }

    /// At noon on the 9th your delivery time has passed, but Mei's day-of at
    /// 16:00 is still ahead: it is planned, while a usual day-of of today is not.
    @Test func aZonedDayOfLaterTodayIsStillAhead() throws {
        var planner = try makePlanner(now: "2026-12-09T12:00:00+01:00")
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo")) { ("mei", "Mei", "") }
        planner.offer(event(nil, 12, 9), kind: .birthday, treatment: try Self.treatment(nil)) { ("bea", "Bea", "") }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["mei-birthday-dayof"])
        #expect(requests.map { fires($0) } == ["2026-12-09T16:00:00+01:00"])
        // At 16:00 itself it has come: nothing is left.
        var later = try makePlanner(now: "2026-12-09T16:00:00+01:00")
        later.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo")) { ("mei", "Mei", "") }
        #expect(later.requests().isEmpty)
    }

    /// The 64 places go to the nearest instants, not the nearest days: on
    /// the 9th, Kiritimati (+14) at 11:00, a friend at −12:00 whose
    /// birthday is the 9th at 13:00, Tokyo at 16:00.
    @Test func theCapIsFilledByInstantAcrossZones() throws {
        func plan(capacity: Int) throws -> [NotificationRequest] {
            var planner = try makePlanner(now: "2026-12-09T08:00:00+01:00", capacity: capacity)
            planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo", days: .dayOfOnly)) { ("tokyo", "T", "") }
            planner.offer(event(nil, 12, 9), kind: .birthday, treatment: try Self.treatment("-12:00", days: .dayOfOnly)) { ("west", "W", "") }
            planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Pacific/Kiritimati", days: .dayOfOnly)) {
                ("kiri", "K", "")
            }
            return planner.requests()
        }
        let all = try plan(capacity: 64)
        #expect(all.map(\.id) == ["kiri-birthday-dayof", "west-birthday-dayof", "tokyo-birthday-dayof"])
        #expect(all.map { fires($0) } == ["2026-12-09T11:00:00+01:00", "2026-12-09T13:00:00+01:00", "2026-12-09T16:00:00+01:00"])
        #expect(all[1].body == "It is W's birthday in UTC\u{2212}12:00 (since 13:00 here)!")
        #expect(try plan(capacity: 1).map(\.id) == ["kiri-birthday-dayof"])
        #expect(try plan(capacity: 2).map(\.id) == ["kiri-birthday-dayof", "west-birthday-dayof"])
    }

    /// A zone given as an offset is the same moment as the named zone with that offset.
    @Test func anOffsetZoneIsPlannedLikeANamedOne() throws {
        var planner = try makePlanner(now: "2026-12-01T08:00:00+01:00")
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("+09:00", days: .dayOfOnly)) { ("mei", "Mei", "") }
        let request = try #require(planner.requests().first)
        #expect(fires(request) == "2026-12-09T16:00:00+01:00")
        #expect(request.body == "It is Mei's birthday in UTC+09:00 (since 16:00 here)!")
        #expect(request.deliveryKind.storedValue == #"{"reminder":{"zone":"+09:00"}}"#)
    }

    /// A later quiet-after lets Helsinki's 23:00 start through; anniversaries
    /// and other languages have the same rule and their own words.
    @Test func quietAfterAnniversariesAndLanguages() throws {
        var settings = Settings()
        try settings.set(.quietAfter, to: "23:30")
        var planner = try makePlanner(now: "2026-12-01T08:00:00+01:00", settings: settings)
        planner.offer(event(nil, 12, 10), kind: .anniversary, treatment: try Self.treatment("Europe/Helsinki", days: .dayOfOnly)) {
            ("hel", "Hel", "")
        }
        let request = try #require(planner.requests().first)
        #expect(fires(request) == "2026-12-09T23:00:00+01:00")
        #expect(request.body == "It is Hel's anniversary in Helsinki (since 23:00 here)!")

        let now = try #require(ReferenceTime.parse("2026-12-01T08:00:00+01:00", timeZone: Self.berlin))
        var german = ReminderPlanner(settings: Settings(), timeZone: Self.berlin, now: now, localizer: Localizer(setting: "de", systemLocale: nil))
        german.offer(event(1990, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo", days: .dayOfOnly)) { ("mei", "Mei", "") }
        #expect(german.requests().first?.body == "Mei wird heute in Tokyo 36 (seit 16:00 Uhr hiesiger Zeit)!")
        var japanese = ReminderPlanner(settings: Settings(), timeZone: Self.berlin, now: now, localizer: Localizer(setting: "ja", systemLocale: nil))
        japanese.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Europe/Helsinki", days: .dayOfOnly)) { ("hel", "Hel", "") }
        #expect(japanese.requests().first?.body == "HelsinkiではHelさんの誕生日です（こちらの時間で昨日の23:00から）！")
    }

    /// A memorial belongs to its own day, and someone whose zone is yours gets the usual reminder.
    @Test func memorialsAndTheSameZoneAreUsual() throws {
        var planner = try makePlanner(now: "2026-12-01T08:00:00+01:00")
        var memorial = try Self.treatment("Asia/Tokyo", days: .dayOfOnly)
        memorial.memorial = true
        planner.offer(event(1950, 12, 10), kind: .birthday, treatment: memorial) { ("gone", "Gone", "") }
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Europe/Paris", days: .dayOfOnly)) { ("paris", "P", "") }
        let requests = planner.requests()
        #expect(requests.map { fires($0) } == ["2026-12-10T09:00:00+01:00", "2026-12-10T09:00:00+01:00"])
        #expect(requests.first { $0.personID == "gone" }?.zone == nil)
        #expect(requests.first { $0.personID == "paris" }?.body == "Today is P's birthday!")
    }

    /// The ledger judges a zoned row in the zone in force: in Berlin, Mei's
    /// day-of belongs to the 9th at 16:00; after you fly to Tokyo, to the
    /// 10th at 09:00 there. Neither is missed early nor sent before its moment.
    @Test func theLedgerFollowsYouWhenYouTravel() throws {
        var planner = try makePlanner(now: "2026-12-01T08:00:00+01:00")
        planner.offer(event(nil, 12, 10), kind: .birthday, treatment: try Self.treatment("Asia/Tokyo", days: .dayOfOnly)) { ("mei", "Mei", "") }
        let request = try #require(planner.requests().first)
        let entry = DeliveryEntry(queued: request, at: request.fireAt)
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let settings = Settings()
        func decide(_ at: String, _ zone: TimeZone) throws -> DueDecision {
            entry.decision(
                now: try #require(ReferenceTime.parse(at, timeZone: zone)),
                timeZone: zone,
                deliveryTime: settings.deliveryTime,
                quietAfter: settings.quietAfter,
                lateAfter: .seconds(60)
            )
        }
        #expect(entry.localDay(in: Self.berlin, deliveryTime: settings.deliveryTime, quietAfter: settings.quietAfter) == date(2026, 12, 9))
        #expect(try decide("2026-12-09T12:00:00+01:00", Self.berlin) == .wait(until: request.fireAt))
        #expect(try decide("2026-12-09T16:00:30+01:00", Self.berlin) == .deliver(late: false))
        #expect(try decide("2026-12-10T00:00:30+01:00", Self.berlin) == .missed)
        // In Tokyo their day is yours: the 10th at 09:00 JST.
        #expect(entry.localDay(in: tokyo, deliveryTime: settings.deliveryTime, quietAfter: settings.quietAfter) == date(2026, 12, 10))
        let nineInTokyo = try #require(ReferenceTime.parse("2026-12-10T09:00:00+09:00", timeZone: tokyo))
        #expect(try decide("2026-12-10T00:30:00+09:00", tokyo) == .wait(until: nineInTokyo))
        #expect(try decide("2026-12-10T09:00:30+09:00", tokyo) == .deliver(late: false))
    }
}
