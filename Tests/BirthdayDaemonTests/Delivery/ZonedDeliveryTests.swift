import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayDaemon
@testable import BirthdayStore

/// Someone in another time zone, delivered for real (issue 26): a card's zone
/// stored in a real SQLite file, the scheduler, and the engine's passes every
/// quarter of an hour on an injected clock. Each greeting comes once, at the
/// first moment of their day in your window, and follows you when you travel.
@Suite struct ZonedDeliveryTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// Mei (card `TZ:Asia/Tokyo`), Ann (`TZ:-05:00`) and Bea (no zone), all born on 10 December.
    static func database() throws -> (AppDatabase, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let database = try AppDatabase.openFile(at: folder.file("birthdays.sqlite"))
        var mei = try Fixture.person("mei", "Mei Tanaka", birthday: "1990-12-10")
        mei.cardZone = PersonZone(cardValue: "Asia/Tokyo")
        var ann = try Fixture.person("ann", "Ann Lee", birthday: "1985-12-10")
        ann.cardZone = PersonZone(cardValue: "-05:00")
        let bea = try Fixture.person("bea", "Bea Roth", birthday: "1970-12-10")
        try database.insertPeople([mei, ann, bea], now: Date(timeIntervalSince1970: 0))
        return (database, folder)
    }

    /// Passes every 15 minutes from `start` for `hours`, in `zone`; the instant each reminder id arrived.
    static func deliver(_ database: AppDatabase, from start: Date, hours: Int, in zone: TimeZone) async throws -> [String: (Date, Reminder)] {
        let sink = EngineSink()
        let now = TestNow(start)
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { now.date },
            systemTimeZone: { zone },
            channels: { _, _, _ in ChannelSet([.init(name: "test", sink: sink)]) },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        var arrived: [String: (Date, Reminder)] = [:]
        for _ in 0..<(hours * 4) {
            let before = await sink.reminders.count
            try await engine.runOnePass()
            for reminder in await sink.reminders.dropFirst(before) {
                #expect(arrived[reminder.id] == nil, "\(reminder.id) was delivered twice")
                arrived[reminder.id] = (now.date, reminder)
            }
            now.set(now.date.addingTimeInterval(15 * 60))
        }
        return arrived
    }

    @Test func eachFriendIsGreetedWhenTheirDayBeginsInYourWindow() async throws {
        let (database, folder) = try Self.database()
        defer { folder.cleanup() }
        try await database.setAuthorizationStatus(.authorized)
        let scheduledAt = try Fixture.instant("2026-12-07T12:00:00+01:00")
        try await Fixture.scheduler(database, now: scheduledAt, zone: Self.berlin).reschedule()
        let pending = try await database.pendingRequests()
        #expect(pending.first { $0.id == "mei-birthday-dayof" }.map { ISOInstant.format($0.fireAt, in: Self.berlin) } == "2026-12-09T16:00:00+01:00")

        let arrived = try await Self.deliver(database, from: scheduledAt, hours: 4 * 24, in: Self.berlin)
        func at(_ id: String) -> String? { arrived[id].map { ISOInstant.format($0.0, in: Self.berlin) } }
        #expect(at("mei-birthday-daybefore") == "2026-12-08T09:00:00+01:00")
        #expect(at("mei-birthday-dayof") == "2026-12-09T16:00:00+01:00")
        #expect(arrived["mei-birthday-dayof"]?.1.body == "Mei Tanaka turns 36 today in Tokyo (since 16:00 here)!")
        #expect(arrived["mei-birthday-dayof"]?.1.late == false)
        // The channels are told her zone (the command's BIRTHDAYS_ZONE); Bea has none.
        #expect(arrived["mei-birthday-dayof"]?.1.personZone?.name == "Asia/Tokyo")
        #expect(arrived["bea-birthday-dayof"]?.1.personZone == nil)
        #expect(at("ann-birthday-daybefore") == "2026-12-09T09:00:00+01:00")
        #expect(at("ann-birthday-dayof") == "2026-12-10T09:00:00+01:00")
        #expect(arrived["ann-birthday-dayof"]?.1.body == "Ann Lee turns 41 today in UTC\u{2212}05:00 (since 06:00 here)!")
        #expect(at("bea-birthday-dayof") == "2026-12-10T09:00:00+01:00")
        #expect(arrived["bea-birthday-dayof"]?.1.body == "Bea Roth turns 56 today!")
        #expect(arrived.count == 6)
        let ledger = try await database.deliveries(updatedSince: .distantPast)
        #expect(ledger.allSatisfy { $0.state == .delivered })
    }

    /// Scheduled in Berlin, then you fly to Tokyo: Mei's day is yours now,
    /// and her day-of comes on the 10th at 09:00 there, once, not missed.
    @Test func youFlyToTokyoAndHerDayIsYours() async throws {
        let (database, folder) = try Self.database()
        defer { folder.cleanup() }
        try await database.setAuthorizationStatus(.authorized)
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        try await Fixture.scheduler(database, now: try Fixture.instant("2026-12-08T12:00:00+01:00"), zone: Self.berlin).reschedule()
        let planned = try #require(try await database.pendingRequests().first { $0.id == "mei-birthday-dayof" })
        #expect(planned.zone?.name == "Asia/Tokyo")
        #expect(ISOInstant.format(planned.fireAt, in: Self.berlin) == "2026-12-09T16:00:00+01:00")
        let landed = try #require(ReferenceTime.parse("2026-12-09T21:00", timeZone: tokyo))
        let arrived = try await Self.deliver(database, from: landed, hours: 24, in: tokyo)
        #expect(arrived["mei-birthday-dayof"].map { ISOInstant.format($0.0, in: tokyo) } == "2026-12-10T09:00:00+09:00")
        #expect(arrived["mei-birthday-dayof"]?.1.late == false)
        let ledger = try await database.deliveries(updatedSince: .distantPast)
        #expect(ledger.first { $0.notificationID == "mei-birthday-dayof" }?.state == .delivered)
        #expect(!ledger.contains { $0.state == .missed && $0.personID == "mei" })
    }
}
