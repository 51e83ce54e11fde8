import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// Naming, snoozing and dismissing reminders in the ledger, on a database
/// file: the rules `snooze`, `dismiss`, `show` and the desktop buttons share.
@Suite struct DeliveryLedgerTests {
    let temporary: TemporaryDatabase
    var database: AppDatabase { temporary.database }
    var ledger: DeliveryLedger { DeliveryLedger(database: database) }
    let berlin: TimeZone

    init() async throws {
        temporary = try TemporaryDatabase(file: true)
        berlin = try Fixture.zone("Europe/Berlin")
        // Ada's day-of reminder fires at 09:00 on 2026-03-10.
        try temporary.database.insertPeople([try Fixture.person("ada", "Ada", birthday: "1990-03-10")], now: Date(timeIntervalSince1970: 0))
        _ = try await temporary.database.setSetting(.dayBefore, to: "off", now: Date(timeIntervalSince1970: 0))
        try PendingNotificationStore(database: temporary.database).setAuthorizationStatus(.authorized)
        try await Fixture.scheduler(temporary.database, now: try Fixture.instant("2026-03-10T08:00:00+01:00"), zone: berlin).reschedule()
    }

    func at(_ text: String) throws -> Date { try Fixture.instant(text) }

    func states() async throws -> [String] {
        try await database.deliveries(updatedSince: .distantPast).map { "\($0.notificationID) \($0.state.rawValue)" }.sorted()
    }

    // MARK: - Names

    @Test func aReminderIsNamedByItsStoredPublicOrShortId() async throws {
        let ids = try await database.publicIDs()
        let full = ids.reminder("ada-birthday-dayof")
        let expected = ReminderLookup.found(ReminderReference(id: "ada-birthday-dayof", snooze: false, personID: "ada"))
        #expect(try await ledger.resolve("ada-birthday-dayof") == expected)
        #expect(try await ledger.resolve(full) == expected)
        #expect(try await ledger.resolve(String(full.prefix(6))) == expected)
        #expect(try await ledger.resolve(String(full.prefix(6)).uppercased()) == expected)
        #expect(
            try await ledger.resolve(String(full.prefix(6)) + "-snooze")
                == .found(ReminderReference(id: "ada-birthday-dayof", snooze: true, personID: "ada"))
        )
        #expect(try await ledger.resolve(String(full.prefix(5))) == .unknown, "three hex digits are too few")
        #expect(try await ledger.resolve("r-zzzz") == .unknown)
        let pending = try await database.pendingReminders()
        #expect(pending.map(\.shortID) == [String(full.prefix(6))])
    }

    /// Among thousands of reminders some share their first four hex digits:
    /// such a prefix names them all, and `pending` shows each one long enough.
    @Test func aSharedPrefixIsAmbiguousAndShortIdsAreLongEnough() async throws {
        let ids = try await database.publicIDs()
        let now = try at("2026-03-10T08:00:00+01:00")
        let many = (0..<3000).map { "p\($0)-birthday-dayof" }
        try database.writeNow { db in
            for id in many {
                let request = NotificationRequest(
                    personID: String(id.prefix { $0 != "-" }),
                    kind: .birthday,
                    timing: .dayOf,
                    fireAt: now,
                    occurrenceDate: LocalDate(year: 2025, month: 1, day: 1)!,
                    title: "t",
                    body: "b"
                )
                var entry = DeliveryEntry(queued: request, at: now)
                entry.notificationID = id
                entry.state = .delivered
                _ = try DeliveryRecord.insertIfAbsent(entry, db)
            }
        }
        let byPrefix = Dictionary(grouping: many + ["ada-birthday-dayof"]) { String(ids.reminder($0).prefix(6)) }
        let shared = try #require(byPrefix.first { $0.value.count > 1 })
        guard case .ambiguous(let candidates) = try await ledger.resolve(shared.key) else {
            Issue.record("\(shared.key) should name \(shared.value.count) reminders")
            return
        }
        #expect(candidates == shared.value.map { ids.reminder($0) }.sorted())

        let short = try #require(try await database.pendingReminders().first?.shortID)
        #expect(try await ledger.resolve(short) == .found(ReminderReference(id: "ada-birthday-dayof", snooze: false, personID: "ada")))
        let shortIDs = ids.shortReminderIDs(many, among: ["ada-birthday-dayof"])
        #expect(Set(shortIDs.values).count == many.count, "every short id is different")
        for (id, short) in shortIDs { #expect(ids.reminder(id).hasPrefix(short) && short.count >= 6) }
    }

    // MARK: - Snooze

    @Test func aReminderThatHasNotFiredIsPostponedFromItsOwnTime() async throws {
        let ada = ReminderReference(id: "ada-birthday-dayof", snooze: false, personID: "ada")
        let result = try await ledger.snooze(ada, to: .after(.seconds(3600)), now: try at("2026-03-10T08:00:00+01:00"))
        guard case .snoozed(let entry, let postponed) = result else {
            Issue.record("not snoozed: \(result)")
            return
        }
        #expect(postponed)
        #expect(entry.fireAt == (try at("2026-03-10T10:00:00+01:00")))
        #expect(try await database.pendingRequests().isEmpty, "the reminder itself no longer fires")
        #expect(try await states() == ["ada-birthday-dayof snoozed", "ada-birthday-dayof-snooze queued"])
        #expect(try await database.pendingReminders().map(\.snoozed) == [true])

        // A second snooze still counts from the reminder's own time, not from now.
        let again = try await ledger.snooze(ada, to: .after(.seconds(1800)), now: try at("2026-03-10T08:30:00+01:00"))
        #expect(again == .snoozed(try #require(try await database.deliveries(updatedSince: .distantPast).first { $0.isSnooze }), postponed: true))
        #expect(try await database.nextLedgerWork() == (try at("2026-03-10T09:30:00+01:00")))
    }

    @Test func aTargetBeforeTheReminderIsRefused() async throws {
        let ada = ReminderReference(id: "ada-birthday-dayof", snooze: false, personID: "ada")
        let early = try await ledger.snooze(ada, to: .at(try at("2026-03-10T08:30:00+01:00")), now: try at("2026-03-10T08:00:00+01:00"))
        #expect(early == .notAfter(try at("2026-03-10T09:00:00+01:00")))
        #expect(try await states().isEmpty)
        #expect(try await database.pendingRequests().count == 1)
    }

    @Test func dismissingASnoozeLeavesTheDeliveredReminder() async throws {
        // Delivered at 09:00:05 as the daemon's engine does it: due, claimed, finished.
        let sent = Date(timeIntervalSince1970: 1_773_129_605)
        var entry = try #require(try await database.collectDue(now: sent, systemTimeZone: berlin).entries.first)
        #expect(try await database.claimDelivery(entry, now: sent))
        entry.state = .delivered
        entry.deliveredAt = sent
        entry.attempts = 1
        entry.updatedAt = sent
        #expect(try await database.finishDelivery(entry, from: [.sending]))
        let ada = ReminderReference(id: "ada-birthday-dayof", snooze: false, personID: "ada")
        let snoozed = try await ledger.snooze(ada, to: .after(.seconds(900)), now: try at("2026-03-10T09:01:00+01:00"))
        guard case .snoozed(let snoozedEntry, false) = snoozed else {
            Issue.record("not snoozed from now: \(snoozed)")
            return
        }
        #expect(snoozedEntry.fireAt == (try at("2026-03-10T09:16:00+01:00")))
        var snooze = ada
        snooze.snooze = true
        #expect(try await ledger.dismiss(snooze, now: try at("2026-03-10T09:02:00+01:00")) == 1)
        #expect(try await states() == ["ada-birthday-dayof delivered", "ada-birthday-dayof-snooze dismissed"])
        #expect(try await ledger.dismiss(snooze, now: try at("2026-03-10T09:03:00+01:00")) == 0)
    }
}
