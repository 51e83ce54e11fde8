import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayDaemon
@testable import BirthdayStore

/// Reminders belong to a local day: scheduled in one zone, then delivered
/// by passes in another (the machine travelled, or the zone setting
/// changed), every greeting arrives on its own day in the new zone, at or
/// after the delivery time there, exactly once, and nothing whose day has
/// not ended is recorded as missed.
@Suite struct TravelTests {
    struct Trip: Sendable, CustomTestStringConvertible {
        var from: String
        var to: String
        /// When the reminders are scheduled, in `from`.
        var scheduledAt: String
        /// The first pass after the move, in `to` (local time there).
        var firstPassAt: String
        var testDescription: String { "\(from) → \(to)" }
    }

    static let trips: [Trip] = [
        // The issue's case: scheduled in UTC, then nothing ran until 23:59 on 9 December in Pago Pago (UTC−11).
        Trip(from: "UTC", to: "Pacific/Pago_Pago", scheduledAt: "2026-12-08T12:00", firstPassAt: "2026-12-09T23:59"),
        Trip(from: "Asia/Tokyo", to: "America/New_York", scheduledAt: "2026-12-08T12:00", firstPassAt: "2026-12-08T20:00"),
        Trip(from: "Australia/Sydney", to: "America/Los_Angeles", scheduledAt: "2026-12-08T12:00", firstPassAt: "2026-12-08T18:00"),
        // Eastward across the date line: a whole local day is skipped.
        Trip(from: "Pacific/Honolulu", to: "Pacific/Kiritimati", scheduledAt: "2026-12-07T12:00", firstPassAt: "2026-12-09T20:00"),
    ]

    /// Ada (10 December) and Grace (9 December) with both reminders; passes
    /// every 30 minutes in the new zone from `firstPassAt` for three days.
    @Test(arguments: trips)
    func greetingsArriveOnTheirLocalDayExactlyOnce(_ trip: Trip) async throws {
        let from = try #require(TimeZone(identifier: trip.from))
        let to = try #require(TimeZone(identifier: trip.to))
        let database = try AppDatabase.inMemory()
        try database.insertPeople(
            [
                try Fixture.person("ada", "Ada Lovelace", birthday: "1815-12-10"),
                try Fixture.person("grace", "Grace Hopper", birthday: "1906-12-09"),
            ],
            now: Date(timeIntervalSince1970: 0)
        )
        try await database.setAuthorizationStatus(.authorized)
        let scheduledAt = try #require(ReferenceTime.parse(trip.scheduledAt, timeZone: from))
        try await Fixture.scheduler(database, now: scheduledAt, zone: from).reschedule()
        let pendingBefore = Set(try await database.pendingRequests().map { $0.id + "|" + $0.occurrenceDate.description })

        let sink = EngineSink()
        let now = TestNow(try #require(ReferenceTime.parse(trip.firstPassAt, timeZone: to)))
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { now.date },
            systemTimeZone: { to },
            channels: { _, _, _ in ChannelSet([.init(name: "test", sink: sink)]) },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let firstDay = LocalDate.today(at: now.date, in: to)
        var deliveredAt: [String: Date] = [:]
        for _ in 0..<(3 * 48) {
            let before = await sink.reminders.count
            try await engine.runOnePass()
            for reminder in await sink.reminders.dropFirst(before) {
                let key = reminder.id + "|" + reminder.occurrenceDate.description
                #expect(deliveredAt[key] == nil, "\(key) was delivered twice")
                deliveredAt[key] = now.date
                // On its own day in the new zone, not before the delivery time there.
                let day = reminder.when == .dayOf ? reminder.occurrenceDate : reminder.occurrenceDate.adding(days: -1)
                #expect(LocalDate.today(at: now.date, in: to) == day, "\(key) arrived on the wrong local day")
                let moment = try #require(FireTime.instant(on: day, at: Settings().deliveryTime, in: to))
                #expect(now.date >= moment, "\(key) arrived before 09:00 local")
                #expect(reminder.timeZone == to)
            }
            now.set(now.date.addingTimeInterval(30 * 60))
        }
        // Every reminder that was pending before the move either arrived, or
        // was missed because its local day had ended before the first pass.
        let ledger = try await database.deliveries(updatedSince: .distantPast)
        for key in pendingBefore {
            let row = try #require(ledger.first { $0.notificationID + "|" + $0.occurrenceDate.description == key }, "\(key) vanished")
            let day = row.localDay(in: to, deliveryTime: Settings().deliveryTime, quietAfter: Settings().quietAfter)
            if day < firstDay {
                #expect(row.state == .missed, "\(key): its day \(day) ended before the first pass")
            } else {
                #expect(row.state == .delivered, "\(key) on \(day) was \(row.state), not delivered")
                #expect(deliveredAt[key] != nil)
            }
        }
        #expect(
            !ledger.contains {
                $0.state == .missed && $0.localDay(in: to, deliveryTime: Settings().deliveryTime, quietAfter: Settings().quietAfter) >= firstDay
            }
        )
    }

    /// The issue's exact case, spelled out: at 23:59 on 9 December in Pago
    /// Pago, "tomorrow" for Ada and Grace's day-of are sent (late), Ada's
    /// day-of waits for 10 December 09:00 there.
    @Test func theIssuesCaseInPagoPago() async throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let pagoPago = try #require(TimeZone(identifier: "Pacific/Pago_Pago"))
        let database = try AppDatabase.inMemory()
        try database.insertPeople(
            [
                try Fixture.person("ada", "Ada Lovelace", birthday: "1815-12-10"),
                try Fixture.person("grace", "Grace Hopper", birthday: "1906-12-09"),
            ],
            now: Date(timeIntervalSince1970: 0)
        )
        try await database.setAuthorizationStatus(.authorized)
        try await Fixture.scheduler(database, now: try Fixture.instant("2026-12-08T12:00:00Z"), zone: utc).reschedule()
        let sink = EngineSink()
        let now = TestNow(try #require(ReferenceTime.parse("2026-12-09T23:59", timeZone: pagoPago)))
        let engine = DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { now.date },
            systemTimeZone: { pagoPago },
            channels: { _, _, _ in ChannelSet([.init(name: "test", sink: sink)]) },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let first = try await engine.runOnePass()
        #expect(first.missed == 0)
        #expect(Set(await sink.reminders.map(\.id)) == ["ada-birthday-daybefore", "grace-birthday-dayof"])
        #expect(await sink.reminders.allSatisfy(\.late))
        // Late, and it says so: due at 09:00 there.
        #expect(
            await sink.reminders.first { $0.id == "ada-birthday-daybefore" }?.body
                == "Ada Lovelace turns 211 tomorrow! (sent late: it was due at 09:00)"
        )
        let waiting = try #require(try await database.deliveries(updatedSince: .distantPast).first { $0.notificationID == "ada-birthday-dayof" })
        #expect(waiting.state == .queued)
        #expect(waiting.fireAt == ReferenceTime.parse("2026-12-10T09:00", timeZone: pagoPago))

        now.set(try #require(ReferenceTime.parse("2026-12-10T09:00", timeZone: pagoPago)))
        try await engine.runOnePass()
        let dayOf = try #require(await sink.reminders.last)
        #expect(dayOf.id == "ada-birthday-dayof")
        #expect(!dayOf.late)
        #expect(dayOf.body == "Ada Lovelace turns 211 today!")
    }
}
