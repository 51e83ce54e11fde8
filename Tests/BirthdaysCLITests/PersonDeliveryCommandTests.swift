import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

/// `remind PERSON --channels … --weekend …`, `show` and `people --json`
/// through the real binary (issue 20), at the CLI tests' `BIRTHDAYS_NOW`
/// (Tuesday 2026-03-10, 08:00 in Berlin).
@Suite struct PersonDeliveryCommandTests {
    /// Wes (born Sunday 1990-03-15) and Ada (Friday 1990-03-20), and an added e-mail channel `work-mail`.
    private func setUp() async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("wes", "Wes Weekend", "1990-03-15"), ("ada", "Ada Lovelace", "1990-03-20")])
        try await cli.enableNotifications()
        let added = try await cli.run("channels", "add", "email", "wes@example.org", "--name", "work-mail")
        try #require(added.status == 0, "\(added.stderr)")
        return cli
    }

    private func pending(_ cli: CLIProcess) async throws -> [[String: Any]] {
        try await CLIProcess.array(try cli.run("pending", "--json").stdout)
    }

    private func person(_ cli: CLIProcess, _ id: String) async throws -> [String: Any] {
        let list = try await CLIProcess.array(try cli.run("people", "--json").stdout)
        return try #require(list.first { $0["id"] as? String == id })
    }

    @Test func channelsAndWeekendAreStoredShownAndUndoneByDefault() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let remind = try await cli.run("remind", "Wes", "--channels", "log, Work-Mail,log", "--weekend", "friday")
        #expect(remind.status == 0, "\(remind.stderr)")
        #expect(
            remind.stdout == """
                Reminders for Wes Weekend go through: log, work-mail.
                Reminders for Wes Weekend that fall on a Saturday or Sunday come on the Friday before.

                """
        )
        let wes = try await person(cli, "wes")
        #expect(wes["channels"] as? [String] == ["log", "work-mail"])
        #expect(wes["weekend"] as? String == "friday")
        #expect(try await person(cli, "ada")["channels"] is NSNull)
        #expect(try await person(cli, "ada")["weekend"] is NSNull)

        let show = try await cli.run("show", "wes")
        #expect(show.stdout.contains("\nChannels: log, work-mail (this person only)\n"))
        #expect(show.stdout.contains("\nWeekend reminders: on the Friday before\n"))
        let shown = try CLIProcess.object(try await cli.run("show", "wes", "--json").stdout)
        #expect(shown["channels"] as? [String] == ["log", "work-mail"])
        #expect(shown["weekend"] as? String == "friday")
        #expect(!(try await cli.run("show", "ada").stdout.contains("Channels:")))

        // Sunday's day-of fires on Friday at nine, and says so; the day-before (Saturday) is the same Friday, sent once.
        let moved = try await pending(cli).filter { ($0["id"] as? String)?.hasPrefix("wes-") == true }
        #expect(moved.map { $0["id"] as? String } == ["wes-birthday-dayof"])
        #expect(moved.first?["fire_at"] as? String == "2026-03-13T09:00:00+01:00")
        #expect(moved.first?["body"] as? String == "Wes Weekend turns 36 in 2 days!")

        // --days alone keeps the other two choices.
        let days = try await cli.run("remind", "wes", "--days", "7,1,0")
        #expect(days.stdout == "Reminders for Wes Weekend: 7,1,0 days before.\n")
        let kept = try await person(cli, "wes")
        #expect(kept["reminder_days"] as? [Int] == [7, 1, 0] && kept["channels"] as? [String] == ["log", "work-mail"])
        #expect(kept["weekend"] as? String == "friday")
        await #expect(try cli.run("people").stdout.contains("channels log,work-mail; weekend friday"))

        // --weekend off moves nothing again, and --default clears all three.
        let off = try await cli.run("remind", "wes", "--weekend", "off")
        #expect(off.stdout == "Reminders for Wes Weekend come on their own day, weekends included.\n")
        #expect(try await person(cli, "wes")["weekend"] is NSNull)
        let reset = try await cli.run("remind", "wes", "--default")
        #expect(
            reset.stdout == """
                Wes Weekend follows the reminders setting again: 1,0 days before.
                Reminders for Wes Weekend go through every channel again, on their own day.

                """
        )
        let cleared = try await person(cli, "wes")
        #expect(cleared["channels"] is NSNull && cleared["weekend"] is NSNull && cleared["reminder_days"] is NSNull)
        let back = try await pending(cli).filter { ($0["id"] as? String)?.hasPrefix("wes-") == true }
        #expect(back.map { $0["fire_at"] as? String } == ["2026-03-14T09:00:00+01:00", "2026-03-15T09:00:00+01:00"])
    }

    /// A person whose only channel is removed keeps their choice; `status`
    /// says their reminders go through the default channels (public id only
    /// when piped or in JSON).
    @Test func statusNotesAPersonWhoseChannelsAreGone() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let status = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        #expect(status["people_on_default_channels"] as? [String] == [])
        #expect(try await cli.run("remind", "wes", "--channels", "work-mail").status == 0)
        #expect(try CLIProcess.object(try await cli.run("status", "--json").stdout)["people_on_default_channels"] as? [String] == [])
        let removed = try await cli.run("channels", "remove", "work-mail")
        try #require(removed.status == 0, "\(removed.stderr)")
        #expect(try await person(cli, "wes")["channels"] as? [String] == ["work-mail"])
        let wes = try await AppDatabase.openFile(at: cli.databasePath, create: false).publicIDs().person("wes")
        #expect(try CLIProcess.object(try await cli.run("status", "--json").stdout)["people_on_default_channels"] as? [String] == [wes])
        let text = try await cli.run("status").stdout
        #expect(
            text.contains(
                "Warning: none of the channels chosen for 1 person delivers now, so their reminders go through the default channels: \(wes)."
            )
        )
        #expect(!text.contains("Wes Weekend"))
    }

    @Test(arguments: [
        (["--channels", "log,nope"], "Error: 'nope' is not a channel; channels: desktop, command, log, work-mail"),
        (["--channels", "pager", "--weekend", "friday"], "Error: 'pager' is not a channel; channels: desktop, command, log, work-mail"),
        (["--channels", " , "], "Error: --channels needs at least one channel name, e.g. --channels email,ntfy"),
        (["--weekend", "saturday"], "Error: 'saturday' is not a weekend choice; allowed: friday, off"),
        (["--weekend", "friday", "--default"], "Error: --weekend and --default exclude each other"),
        (["--channels", "log", "--default"], "Error: --channels and --default exclude each other"),
    ])
    func badChoicesAreUsageErrorsThatStoreNothing(arguments: [String], message: String) async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let before = try await pending(cli).map { "\($0["id"] ?? "") \($0["fire_at"] ?? "")" }
        let result = try await cli.run(["remind", "wes"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let wes = try await person(cli, "wes")
        #expect(wes["channels"] is NSNull && wes["weekend"] is NSNull)
        await #expect(try pending(cli).map { "\($0["id"] ?? "") \($0["fire_at"] ?? "")" } == before)
    }
}
