import BirthdayCore
import Foundation
import TestSupport
import Testing

/// Pretend time (`BIRTHDAYS_NOW` without `BIRTHDAYS_NOW_WRITES=1`) is a
/// trial: the commands that write work on a throwaway copy, so afterwards,
/// at real time, the ledger, `pending` and `status` are exactly as before.
@Suite struct PretendTimeTests {
    let cli: CLIProcess
    /// The same database, at pretend time, as a user trying a setup runs it.
    let trial: CLIProcess

    init() async throws {
        // Ada's 09:00 reminder is pending; the log channel prints what would be delivered.
        cli = try await .withAda(settings: [("channels", "log")], enableNotifications: true)
        var trial = cli
        trial.extraEnvironment["BIRTHDAYS_NOW_WRITES"] = ""
        trial.extraEnvironment["TMPDIR"] = cli.path("tmp")
        try FileManager.default.createDirectory(atPath: cli.path("tmp"), withIntermediateDirectories: true)
        self.trial = trial
    }

    /// What real time sees: the ledger, `pending --json` and `status --json`, read at the same instant.
    func realView() async throws -> [String] {
        let ledger = try await cli.deliveries().map { "\($0.notificationID) \($0.occurrenceDate) \($0.state.rawValue)" }
        let pending = try await cli.run(at: "2026-03-10T08:00:00+01:00", "pending", "--json")
        let status = try await cli.run(at: "2026-03-10T08:00:00+01:00", "status", "--json")
        return ledger + [pending.stdout, status.stdout]
    }

    /// The throwaway copies are gone once each command is done.
    func expectNoCopiesLeft() throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("tmp")).isEmpty)
    }

    @Test func aPretendDeliveryLeavesTheRealLedgerPendingAndStatusAsTheyWere() async throws {
        defer { cli.cleanUp() }
        let before = try await realView()
        #expect(before.count == 2, "an empty ledger: \(before)")

        let pass = try await trial.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(pass.stdout.contains("reminder delivered id="), "the trial does deliver: \(pass.stdout)")
        #expect(pass.stderr.contains("BIRTHDAYS_NOW is set, so this works on a throwaway copy of the database; nothing is saved"))

        // The next day at pretend time, the copy would record it as missed; the real ledger never sees it.
        _ = try await trial.run(at: "2026-03-11T10:00:00+01:00", "deliver", "--once")
        _ = try await trial.run(at: "2026-03-10T08:00:00+01:00", "reschedule")
        _ = try await trial.run(at: "2026-03-10T08:00:00+01:00", "snooze", "ada-birthday-dayof", "--for", "1h")
        _ = try await trial.run(at: "2026-03-10T08:00:00+01:00", "dismiss", "ada-birthday-dayof")

        #expect(try await realView() == before)
        let real = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        #expect(real.stdout.contains("reminder delivered"), "the real reminder is still there at real time")
        #expect(try await cli.ledgerStates() == ["delivered"])
        try expectNoCopiesLeft()
    }

    @Test func aPretendDaemonDeliversIntoTheCopyOnly() async throws {
        defer { cli.cleanUp() }
        let before = try await realView()
        let daemon = try trial.daemon(now: "2026-03-10T08:59:57+01:00")
        try await daemon.waitUntil("the delivery") { $0.stdout.contains("reminder delivered") }
        try await daemon.waitUntil("the pass after it") { $0.stderr.contains("delivered=1") && $0.stderr.occurrences(of: "next pass") >= 2 }
        // A daemon on a copy holds no lock on the real database.
        await #expect(try cli.run(at: "2026-03-10T09:01:00+01:00", "status").stdout.contains("Daemon: not running"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(try await realView() == before)
        try expectNoCopiesLeft()
    }

    @Test func readingCommandsReadTheRealDatabase() async throws {
        defer { cli.cleanUp() }
        let pending = try await trial.run(at: "2026-03-10T08:00:00+01:00", "pending", "--json")
        #expect(pending.stderr.isEmpty, "no copy for a command that only reads: \(pending.stderr)")
        #expect(try CLIProcess.array(pending.stdout).map { $0["id"] as? String } == ["ada-birthday-dayof"])
    }

    @Test func aPretendImportIntoNoDatabaseCreatesNone() async throws {
        let empty = try CLIProcess()
        defer { empty.cleanUp() }
        var trial = empty
        trial.extraEnvironment["BIRTHDAYS_NOW_WRITES"] = ""
        let card = try empty.write("ada.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nBDAY:1990-03-11\r\nEND:VCARD\r\n")
        let imported = try await trial.run("import", card)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1 added"))
        #expect(!FileManager.default.fileExists(atPath: empty.databasePath))
    }
}
