import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Records what it was asked to deliver; fails while `failing` is set.
actor RecordingSink: NotificationSink {
    private(set) var delivered: [String] = []
    private let failure: DeliveryError?

    init(failing failure: DeliveryError? = nil) { self.failure = failure }

    func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        if let failure { throw failure }
        delivered.append(reminder.id)
    }
}

extension DeliveryTests {
    @Suite struct ReminderTests {
        @Test(arguments: [
            ("Europe/Berlin", "2026-03-10T09:00", "2026-03-10T09:00:00+01:00"),
            ("Europe/Berlin", "2026-07-10T09:00", "2026-07-10T09:00:00+02:00"),
            ("UTC", "2026-03-10T09:00", "2026-03-10T09:00:00+00:00"),
            ("Pacific/Kiritimati", "2026-03-10T09:00", "2026-03-10T09:00:00+14:00"),
            ("Pacific/Pago_Pago", "2026-03-10T09:00", "2026-03-10T09:00:00-11:00"),
            ("Asia/Kolkata", "2026-03-10T09:00", "2026-03-10T09:00:00+05:30"),
            ("America/St_Johns", "2026-01-10T23:59", "2026-01-10T23:59:00-03:30"),
        ])
        func fireAtIsISO8601WithTheOffsetOfItsZone(zone: String, local: String, expected: String) throws {
            let timeZone = try #require(TimeZone(identifier: zone))
            let instant = try #require(ReferenceTime.parse(local, timeZone: timeZone))
            #expect(ISOInstant.format(instant, in: timeZone) == expected)
        }

        @Test func dueDayIsTheDayBeforeForDayBeforeReminders() {
            #expect(sampleReminder(when: .dayOf).dueDay == date(2026, 3, 10))
            #expect(sampleReminder(when: .dayBefore).dueDay == date(2026, 3, 10))
            #expect(sampleReminder(when: .dayBefore).occurrenceDate == date(2026, 3, 11))
        }
    }
}

extension DeliveryTests {
    @Suite struct ChannelKindTests {
        @Test(arguments: [
            ("desktop,log", [ChannelKind.desktop, .log]),
            (" Desktop , COMMAND ,log,desktop", [.desktop, .command, .log]),
            ("", []),
            ("log,,", [.log]),
        ])
        func parsesCommaLists(text: String, expected: [ChannelKind]) throws {
            #expect(ChannelKind.parseList(text) == expected)
        }

        @Test func anUnknownChannelIsRefusedNamingTheKnownOnes() {
            #expect(ChannelKind.parseList("desktop,email") == nil)
            var settings = Settings()
            #expect(throws: SettingsError(key: "channels", value: "desktop,email")) { try settings.set(.channels, to: "desktop,email") }
            #expect(SettingsError(key: "channels", value: "email").description.contains("desktop, command, log"))
        }
    }
}

extension DeliveryTests {
    @Suite struct LogChannelTests {
        @Test func theLineCarriesNoNameOrText() async throws {
            let lines = LockedLines()
            let channel = LogChannel { lines.append($0) }

            try await channel.deliver(sampleReminder(id: "r-1", personID: "p-1", title: "Ada's birthday", body: "Ada turns 37 today", late: true))

            #expect(lines.all == ["reminder delivered id=r-1 kind=birthday when=day-of fire_at=2026-03-10T09:00:00+01:00 late=1"])
            #expect(!lines.all[0].contains("Ada"))
        }

        @Test(arguments: [("r-1", "r-1"), ("a b", "\"a b\""), ("x\"y\\z", "\"x\\\"y\\\\z\""), ("two\nlines", "\"two\\nlines\""), ("", "\"\"")])
        func oddValuesAreQuotedOnOneLine(value: String, expected: String) {
            #expect(LogChannel.quoted(value) == expected)
        }

        @Test func aWriteFailureIsADeliveryError() async {
            struct Full: Error, CustomStringConvertible { var description: String { "disk full" } }
            let channel = LogChannel { _ in throw Full() }
            await #expect(throws: DeliveryError.logWriteFailed(reason: "disk full")) { try await channel.deliver(sampleReminder()) }
        }
    }
}

extension DeliveryTests {
    @Suite struct ChannelSetTests {
        @Test func everyChannelGetsTheReminderAndFailuresAreReportedPerChannel() async throws {
            let desktop = RecordingSink(failing: .noNotificationServer)
            let command = RecordingSink(failing: .commandFailed(status: 2))
            let log = RecordingSink()
            let set = ChannelSet([.init(name: "desktop", sink: desktop), .init(name: "command", sink: command), .init(name: "log", sink: log)])

            let outcomes = await set.deliverEach(sampleReminder(id: "r-1"))

            #expect(
                outcomes == [
                    .init(channel: "desktop", error: .noNotificationServer),
                    .init(channel: "command", error: .commandFailed(status: 2)),
                    .init(channel: "log", error: nil),
                ]
            )
            #expect(await log.delivered == ["r-1"])
            let failures = [
                ChannelFailure(channel: "desktop", error: .noNotificationServer),
                ChannelFailure(channel: "command", error: .commandFailed(status: 2)),
            ]
            await #expect(throws: DeliveryError.channelsFailed(failures)) { try await set.deliver(sampleReminder()) }
            #expect(DeliveryError.channelsFailed(failures).description.hasPrefix("desktop: no notification server is running"))
        }

        @Test func aRetryGoesOnlyToTheChannelsThatFailed() async throws {
            let desktop = RecordingSink()
            let log = RecordingSink()
            let set = ChannelSet([.init(name: "desktop", sink: desktop), .init(name: "log", sink: log)])

            let outcomes = await set.deliverEach(sampleReminder(id: "r-2"), only: ["log"])

            #expect(outcomes == [.init(channel: "log", error: nil)])
            #expect(await desktop.delivered == [])
            #expect(await log.delivered == ["r-2"])
            try await set.deliver(sampleReminder(id: "r-3"))
            #expect(await desktop.delivered == ["r-3"])
        }
    }
}

/// Lines written by a ``LogChannel``.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
