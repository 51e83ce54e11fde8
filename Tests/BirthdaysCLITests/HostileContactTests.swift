import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Contact text that tries to reach the terminal, the log or a channel raw,
/// through the real binary (issue 16).
@Suite struct HostileContactTests {
    /// Escape sequences and line breaks in names never reach the terminal
    /// from a table, and a forged `file:line:` stays inside its problem.
    @Test func namesAndProblemsReachTheTerminalOnOneLine() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let vcf = """
            BEGIN:VCARD\r
            VERSION:2.1\r
            UID:eve\r
            FN;ENCODING=QUOTED-PRINTABLE:=1B[2J=1B]0;pwned=07Eve=0Acontacts.vcf:1: forged\r
            BDAY:1990-03-11\r
            ANNIVERSARY;ENCODING=QUOTED-PRINTABLE:x=0Acontacts.vcf:9: also forged=1B[31m\r
            END:VCARD\r

            """
        let imported = try await cli.run("import", try cli.write("eve.vcf", vcf))
        #expect(imported.status == 0, "\(imported.stderr)")
        let file = cli.path("eve.vcf")
        #expect(imported.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix(file + ":") }, "no forged line: \(imported.stderr)")
        #expect(imported.stderr.contains("x\\ncontacts.vcf:9: also forged\\x1B[31m"))
        #expect(!imported.stderr.unicodeScalars.contains { $0 != "\n" && SafeText.isUnsafe($0) })
        for arguments in [["people"], ["upcoming"], ["show", "eve"]] {
            let output = try await cli.run(arguments).stdout
            #expect(!output.unicodeScalars.contains { $0 != "\n" && SafeText.isUnsafe($0) }, "\(arguments): \(output.debugDescription)")
            #expect(!output.contains("\ncontacts.vcf:"), "\(arguments): \(output)")
        }
    }

    /// Ids in logs and `status` are keyed by the database's secret: neither
    /// the UID nor a hash of the name; `snooze`, `dismiss` and `show` take them.
    @Test func statusShowsPublicIDsThatTheActionsAccept() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let delivered = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let id = try await cli.publicID("ada-birthday-dayof")
        #expect(id.hasPrefix("r-") && !id.contains("ada"))
        #expect(delivered.stdout.contains("id=\(id) "))

        let status = try await cli.run(at: "2026-03-10T09:01:00+01:00", "status", "--json")
        let last = try #require(try CLIProcess.object(status.stdout)["last_delivery"] as? [String: Any])
        #expect(last["id"] as? String == id)
        #expect(!status.stdout.contains("ada"))
        await #expect(try cli.run(at: "2026-03-10T09:01:00+01:00", "status").stdout.contains("Last delivery: \(id) at"))

        // Another database keys the same reminder differently.
        let other = try await CLIProcess.withAda(enableNotifications: true)
        defer { other.cleanUp() }
        #expect(try await other.publicID("ada-birthday-dayof") != id)

        let snooze = try await cli.run(at: "2026-03-10T09:01:00+01:00", "snooze", id, "--for", "5m")
        #expect(snooze.status == 0, "\(snooze.stderr)")
        let again = try await cli.run(at: "2026-03-10T09:06:00+01:00", "deliver", "--once")
        #expect(again.stdout.contains("id=\(id)-snooze "), "\(again.stdout)")
        let dismiss = try await cli.run(at: "2026-03-10T09:07:00+01:00", "dismiss", id)
        #expect(dismiss.status == 0, "\(dismiss.stderr)")
        let person = try await AppDatabase.openFile(at: cli.databasePath, create: false).publicIDs().person("ada")
        let shown = try await cli.run("show", person)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Ada Lovelace\n"))
    }

    /// A name of about 128 KiB (Linux's limit for one environment string):
    /// the command channel delivers a cut title instead of failing for good.
    @Test func aVeryLongNameIsCutForTheCommandChannel() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let name = String(repeating: "Ada", count: 44_000)  // 132,000 bytes
        let imported = try await cli.run(
            "import",
            try cli.write("long.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:long\r\nFN:\(name)\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n")
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        let out = cli.path("title.txt")
        try await cli.set("channels", "command")
        try await cli.set("day-before", "off")
        try await cli.set("command", "printf '%s' \"$BIRTHDAYS_TITLE\" > '\(out)'")
        try await cli.enableNotifications()
        let pass = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once", "--json")
        #expect(pass.status == 0, "\(pass.stdout) \(pass.stderr)")
        #expect(try CLIProcess.object(pass.stdout.split(separator: "\n").last.map(String.init) ?? "")["delivered"] as? Int == 1)
        let title = try String(contentsOfFile: out, encoding: .utf8)
        #expect(title.hasPrefix("AdaAda") && title.hasSuffix("…'s Birthday!"))
        #expect(title.count <= NotificationContent.maxNameCharacters + "'s Birthday!".count)
    }

    /// A birth year a feed cannot carry is a problem, and the feed stays valid.
    @Test func aYearPast3000IsAProblemAndTheFeedStaysValid() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let vcf =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:far\r\nFN:Far Future\r\nBDAY:5000-03-10\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n"
        let imported = try await cli.run("import", try cli.write("far.vcf", vcf))
        #expect(imported.status == 0)
        #expect(imported.stderr == "\(cli.path("far.vcf")):5: BDAY '5000-03-10' is not a date\n")
        #expect(imported.stdout.contains("1 with invalid dates"))
        let feed = try await cli.run("export")
        #expect(feed.status == 0)
        #expect(!feed.stdout.contains("00000000"))
        #expect(!feed.stdout.contains("UID:far"), "only Ada gets events")
        #expect(feed.stdout.components(separatedBy: "UID:ada-birthday").count == 5, "Ada's three years with her age and her recurring event")
    }
}
