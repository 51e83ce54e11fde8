import BirthdayCore
import Foundation
import TestSupport
import Testing

/// Reminders a user can act on: `pending` shows a short id per row that
/// `snooze`, `dismiss` and `show` take; snoozes are listed; a reminder that
/// has not fired is postponed from its own time, never brought forward.
@Suite struct ReminderActionTests {
    let cli: CLIProcess

    init() async throws {
        // Ada's day-of reminder fires at 09:00 on 2026-03-10; it is 08:00.
        cli = try await .withAda(settings: [("channels", "log")], enableNotifications: true)
    }

    /// `pending` as rows of cells (split on two or more spaces), header first.
    func pendingRows(at now: String) async throws -> [[String]] {
        try await cli.run(at: now, "pending").stdout.split(separator: "\n").map { line in
            line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func pendingShowsAShortIdThatShowSnoozeAndDismissTake() async throws {
        defer { cli.cleanUp() }
        let rows = try await pendingRows(at: "2026-03-10T08:00:00+01:00")
        #expect(rows.first?.first == "ID")
        let short = try #require(rows.dropFirst().first?.first)
        let full = try await cli.publicID("ada-birthday-dayof")
        #expect(short.count == 6 && full.hasPrefix(short), "\(short) starts \(full)")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).first?["short_id"] as? String == short)

        let shown = try await cli.run(at: "2026-03-10T08:00:00+01:00", "show", short)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Ada Lovelace\nId: ada\n"))

        let dismissed = try await cli.run(at: "2026-03-10T08:00:00+01:00", "dismiss", short)
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).isEmpty)
        #expect(try await cli.ledgerStates() == ["dismissed"])
    }

    @Test func snoozingAReminderThatHasNotFiredPostponesItFromItsOwnTime() async throws {
        defer { cli.cleanUp() }
        let short = try await #require(try pendingRows(at: "2026-03-10T08:00:00+01:00").dropFirst().first?.first)
        let snooze = try await cli.run(at: "2026-03-10T08:00:00+01:00", "snooze", short, "--for", "1h")
        #expect(snooze.status == 0, "\(snooze.stderr)")
        #expect(snooze.stdout == "Postponed \(short) to 2026-03-10T10:00:00+01:00 (it had not fired yet).\n")

        // The snooze is listed in pending, as the only reminder.
        let rows = try await pendingRows(at: "2026-03-10T08:01:00+01:00")
        #expect(rows.count == 2)
        #expect(rows.last?.prefix(3) == [short + "-snooze", "2026-03-10 10:00", "snoozed"])

        // Not at its own time, not earlier: at 10:00, once.
        await #expect(!(try cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once").stdout.contains("reminder delivered")))
        let late = try await cli.run(at: "2026-03-10T10:00:05+01:00", "deliver", "--once")
        #expect(late.stdout.occurrences(of: "reminder delivered") == 1)
        #expect(late.stdout.contains("id=\(try await cli.publicID("ada-birthday-dayof-snooze")) "))
        #expect(
            try await cli.deliveries().map { "\($0.notificationID) \($0.state.rawValue)" }.sorted() == [
                "ada-birthday-dayof snoozed", "ada-birthday-dayof-snooze delivered",
            ]
        )
    }

    @Test func aSnoozeThatWouldFireEarlierIsRefused() async throws {
        defer { cli.cleanUp() }
        // Tomorrow at the delivery time comes after today's: a postponement.
        let tomorrow = try await cli.run(at: "2026-03-10T08:00:00+01:00", "snooze", "ada-birthday-dayof", "--for", "tomorrow")
        #expect(tomorrow.status == 0, "\(tomorrow.stderr)")
        #expect(tomorrow.stdout.contains("to 2026-03-11T09:00:00+01:00"))

        // Tonight (20:00) comes before a 21:00 reminder: refused, nothing changes.
        let again = try await CLIProcess.withAda(settings: [("channels", "log"), ("delivery-time", "21:00")], enableNotifications: true)
        defer { again.cleanUp() }
        let tonight = try await again.run(at: "2026-03-10T08:00:00+01:00", "snooze", "ada-birthday-dayof", "--for", "tonight")
        #expect(tonight.status == 1)
        #expect(tonight.stderr.contains("tonight is not after 2026-03-10T21:00:00+01:00, when the reminder fires"))
        #expect(try await again.ledgerStates().isEmpty)
        await #expect(try CLIProcess.array(try again.run("pending", "--json").stdout).count == 1)
    }

    @Test func dismissingASnoozeLeavesTheOriginalAlone() async throws {
        defer { cli.cleanUp() }
        _ = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        let publicID = try await cli.publicID("ada-birthday-dayof")
        let snooze = try await cli.run(at: "2026-03-10T09:01:00+01:00", "snooze", publicID, "--for", "15m")
        #expect(snooze.stdout == "Snoozed \(publicID) until 2026-03-10T09:16:00+01:00.\n")
        let rows = try await pendingRows(at: "2026-03-10T09:02:00+01:00")
        let snoozeID = try #require(rows.last?.first)
        #expect(snoozeID.hasSuffix("-snooze") && publicID.hasPrefix(String(snoozeID.dropLast(7))))

        let dismiss = try await cli.run(at: "2026-03-10T09:03:00+01:00", "dismiss", snoozeID)
        #expect(dismiss.status == 0, "\(dismiss.stderr)")
        #expect(
            try await cli.deliveries().map { "\($0.notificationID) \($0.state.rawValue)" }.sorted() == [
                "ada-birthday-dayof delivered", "ada-birthday-dayof-snooze dismissed",
            ]
        )
        await #expect(!(try cli.run(at: "2026-03-10T09:16:05+01:00", "deliver", "--once").stdout.contains("reminder delivered")))
        // Dismissing it again: there is no snooze waiting.
        let again = try await cli.run(at: "2026-03-10T09:17:00+01:00", "dismiss", snoozeID)
        #expect(again.status == 1)
        #expect(again.stderr.contains("has no snooze waiting"))
    }

    @Test(arguments: [
        ("1d", "2026-03-11T09:01:00+01:00"),
        ("tomorrow", "2026-03-11T09:00:00+01:00"),
        ("tonight", "2026-03-10T20:00:00+01:00"),
        ("90s", "2026-03-10T09:02:30+01:00"),
    ])
    func snoozeLengthsAndNamedTimes(_ length: String, _ until: String) async throws {
        defer { cli.cleanUp() }
        _ = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        let snooze = try await cli.run(at: "2026-03-10T09:01:00+01:00", "snooze", "ada-birthday-dayof", "--for", length)
        #expect(snooze.status == 0, "\(snooze.stderr)")
        #expect(snooze.stdout == "Snoozed ada-birthday-dayof until \(until).\n")
    }

    @Test func tonightAfterEightIsRefusedWithASentence() async throws {
        defer { cli.cleanUp() }
        _ = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        let late = try await cli.run(at: "2026-03-10T21:00:00+01:00", "snooze", "ada-birthday-dayof", "--for", "tonight")
        #expect(late.status == 1)
        #expect(late.stderr == "Error: it is already past 20:00, so 'tonight' has gone; use a length such as 1h, or tomorrow\n")
    }

    @Test func anUnknownShortIdIsOneLine() async throws {
        defer { cli.cleanUp() }
        let unknown = try await cli.run(at: "2026-03-10T08:00:00+01:00", "snooze", "r-0000000000000000")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no reminder with the id 'r-0000000000000000'"))
    }
}
