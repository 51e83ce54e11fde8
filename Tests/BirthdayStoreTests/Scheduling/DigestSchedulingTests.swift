import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdayStore

/// The digest among the pending reminders: planned on its day at the
/// delivery time, counted in the 64, queued into the ledger once.
@Suite struct DigestSchedulingTests {
    static let epoch = Date(timeIntervalSince1970: 0)

    static func store(digest: String, people: [Person]) async throws -> TemporaryDatabase {
        let store = try TemporaryDatabase(file: true)
        try store.database.insertPeople(people, now: epoch)
        try PendingNotificationStore(database: store.database).setAuthorizationStatus(.authorized)
        try await store.database.setSetting(.digest, to: digest, now: epoch)
        return store
    }

    @Test func aWeeklyDigestIsPendingOnTheNextMondayAndListsItsWeek() async throws {
        let people = try [
            Fixture.person("ada", "Ada", birthday: "1989-11-30"),
            Fixture.person("bob", "Bob", birthday: "--12-06"),
            // The day after the week: not in it.
            Fixture.person("cy", "Cy", birthday: "1990-12-07"),
        ]
        let store = try await Self.store(digest: "weekly", people: people)
        let zone = try Fixture.zone("Europe/Berlin")
        // Thursday 26 November.
        let result = try await Fixture.scheduler(store.database, now: Fixture.instant("2026-11-26T10:00:00+01:00"), zone: zone).reschedule()
        let digests = result.requests.filter { $0.digest != nil }
        let digest = try #require(digests.first)
        #expect(digests.count == 1)
        #expect(digest.id == "digest-weekly")
        #expect(ISOInstant.format(digest.fireAt, in: zone) == "2026-11-30T09:00:00+01:00")
        #expect(digest.title == "Birthdays in the week ahead: Ada, Bob")
        #expect(digest.body == "Mon 30 Nov (today): Ada, birthday, turns 37\nSun 6 Dec: Bob, birthday")
        // People count people, not the digest.
        #expect(result.people == 3)
        #expect(try PendingNotificationStore(database: store.database).pending().contains { $0.id == "digest-weekly" })
    }

    @Test func anEmptyWeekHasNoDigest() async throws {
        let store = try await Self.store(digest: "weekly", people: [try Fixture.person("cy", "Cy", birthday: "1990-12-07")])
        let result = try await Fixture.scheduler(store.database, now: Fixture.instant("2026-11-26T10:00:00+01:00"), zone: Fixture.zone("UTC"))
            .reschedule()
        #expect(!result.requests.contains { $0.digest != nil })
        #expect(result.scheduled == 2)
    }

    @Test func offHasNoDigest() async throws {
        let store = try await Self.store(digest: "off", people: [try Fixture.person("ada", "Ada", birthday: "1989-11-30")])
        let result = try await Fixture.scheduler(store.database, now: Fixture.instant("2026-11-26T10:00:00+01:00"), zone: Fixture.zone("UTC"))
            .reschedule()
        #expect(!result.requests.contains { $0.digest != nil })
    }

    @Test func theDigestTakesOneOfThe64Places() async throws {
        // 40 people in the first week of December: 80 reminders compete with the digest of 1 December.
        let people = try (1...40).map { i in try Fixture.person(String(format: "p%02d", i), "P\(i)", birthday: String(format: "--12-%02d", 1 + i % 7))
        }
        let store = try await Self.store(digest: "monthly", people: people)
        let result = try await Fixture.scheduler(store.database, now: Fixture.instant("2026-11-26T10:00:00Z"), zone: Fixture.zone("UTC")).reschedule()
        #expect(result.scheduled == NotificationRequest.pendingLimit)
        let digest = try #require(result.requests.first { $0.digest == .monthly })
        #expect(digest.occurrenceDate.description == "2026-12-01")
        #expect(digest.title.hasPrefix("Birthdays in December: "))
        #expect(digest.body.split(separator: "\n").count == 40)
    }

    /// Queued once at its instant; a move west that brings the morning back
    /// plans that digest again, and the ledger keeps it from being pending twice.
    @Test func aDigestInTheLedgerIsNeverPlannedAgain() async throws {
        let store = try await Self.store(digest: "weekly", people: [try Fixture.person("ada", "Ada", birthday: "1989-12-01")])
        let berlin = try Fixture.zone("Europe/Berlin")
        let sent = try Fixture.instant("2026-11-30T09:00:30+01:00")
        _ = try await Fixture.scheduler(store.database, now: Fixture.instant("2026-11-30T08:00:00+01:00"), zone: berlin).reschedule()
        // Its instant passes: the next reschedule queues it into the ledger.
        let due = try await store.database.collectDue(now: sent, systemTimeZone: berlin)
        #expect(due.entries.contains { $0.notificationID == "digest-weekly" && $0.occurrenceDate.description == "2026-11-30" })
        // In New York it is Monday 03:00: that Monday's digest would lie ahead again.
        let newYork = try Fixture.zone("America/New_York")
        let result = try await Fixture.scheduler(store.database, now: sent, zone: newYork).reschedule()
        #expect(!result.requests.contains { $0.id == "digest-weekly" && $0.occurrenceDate.description == "2026-11-30" })
        #expect(result.requests.contains { $0.id == "ada-birthday-dayof" })
    }
}
