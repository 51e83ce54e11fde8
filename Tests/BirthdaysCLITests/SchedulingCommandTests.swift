import Foundation
import TestSupport
import Testing

@Suite struct SchedulingCommandTests {
    // MARK: - settings

    @Test(arguments: [
        ("delivery-time", "25:00", "'25:00' is not a valid delivery-time; allowed: HH:MM (24-hour), e.g. 09:00"),
        ("leap-day", "feb29", "'feb29' is not a valid leap-day; allowed: feb28 | mar1"),
        (
            "day-before", "maybe",
            "'maybe' is not a valid day-before; allowed: on | off (an alias of reminders: on adds 1 to its days, off removes it)"
        ),
        (
            "reminders", "7,-1",
            "'7,-1' is not a valid reminders; allowed: a comma list of days before each event, 0 (the day itself) to 365, e.g. 7,1,0"
        ),
        ("deceased", "hide", "'hide' is not a valid deceased; allowed: skip | remember"),
        ("names", "short", "'short' is not a valid names; allowed: full | nickname"),
        ("anniversaries", "", "'' is not a valid anniversaries; allowed: on | off"),
        ("time-zone", "Mars/Olympus", "'Mars/Olympus' is not a valid time-zone; allowed: an IANA time zone such as Europe/Berlin, or 'system'"),
    ])
    func anInvalidValueIsAUsageErrorNamingWhatIsAllowed(_ key: String, _ value: String, _ message: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("settings", "set", key, value)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: birthdays settings set"))
        #expect(result.stdout.isEmpty)
    }

    @Test func settingsShowSetAndReset() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let shown = try await CLIProcess.object(try cli.run("settings", "show", "--json").stdout)
        #expect(shown["delivery-time"] as? String == "09:00")
        #expect(shown["time-zone"] as? String == "system")
        #expect(shown["leap-day"] as? String == "feb28")
        #expect(shown["reminders"] as? String == "1,0")
        #expect(shown["deceased"] as? String == "skip")
        #expect(shown["names"] as? String == "full")
        // day-before is an alias of reminders now: accepted, never shown.
        #expect(shown["day-before"] == nil)
        #expect(shown["anniversaries"] as? String == "on")

        await #expect(try cli.run("settings", "set", "leap-day", "mar1").stdout.hasPrefix("leap-day = mar1"))
        let text = try await cli.run("settings").stdout
        #expect(CLIProcess.shownSetting("leap-day", in: text) == "mar1")
        #expect(CLIProcess.shownSetting("time-zone", in: text) == "system (Europe/Berlin)")
        #expect(CLIProcess.shownSetting("calendar-rules", in: text) == "expanded")
        let reset = try await CLIProcess.object(try cli.run("settings", "reset", "leap-day", "--json").stdout)
        #expect(reset["leap-day"] as? String == "feb28")
    }

    @Test func changingAReminderSettingReschedulesAtOnce() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        await #expect(try cli.run("notifications", "enable").status == 0)
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).first?["fire_at"] as? String == "2026-03-10T09:00:00+01:00")

        await #expect(try cli.run("settings", "set", "delivery-time", "8:30").status == 0)
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).first?["fire_at"] as? String == "2026-03-10T08:30:00+01:00")

        await #expect(try cli.run("settings", "set", "time-zone", "America/New_York").status == 0)
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).first?["fire_at"] as? String == "2026-03-10T08:30:00-04:00")

        // The old day-before setting still works: it changes reminders.
        let dayBefore = try await cli.run("settings", "set", "day-before", "off")
        #expect(dayBefore.status == 0)
        #expect(dayBefore.stdout.hasPrefix("reminders = 0; reminders rescheduled (2 pending)"))
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(pending.map { $0["when"] as? String } == ["day-of", "day-of"])
    }

    // MARK: - reschedule, pending, notifications

    @Test func rescheduleAndPendingJSON() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        await #expect(try cli.run("reschedule", "--json").stdout == "{\"scheduled\":0,\"people\":0,\"first\":null,\"last\":null}\n")
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"notDetermined\"}\n")

        let enable = try await cli.run("notifications", "enable")
        #expect(enable.status == 0)
        #expect(enable.stderr.hasPrefix("warning: this is not a desktop session"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"authorized\"}\n")

        await #expect(
            try cli.run("reschedule", "--json").stdout
                == "{\"scheduled\":4,\"people\":2,\"first\":\"2026-03-10T09:00:00+01:00\",\"last\":\"2026-03-20T09:00:00+01:00\"}\n"
        )
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(pending.count == 4)
        let first = try #require(pending.first)
        #expect(first["id"] as? String == "ada-birthday-daybefore")
        #expect(first["person_id"] as? String == "ada")
        #expect(first["kind"] as? String == "birthday")
        #expect(first["when"] as? String == "day-before")
        #expect(first["fire_at"] as? String == "2026-03-10T09:00:00+01:00")
        #expect(first["title"] as? String == "Birthday Tomorrow")
        #expect(first["body"] as? String == "Ada turns 36 tomorrow!")
        #expect(pending.map { $0["title"] as? String } == ["Birthday Tomorrow", "Ada's Birthday!", "Birthday Tomorrow", "Bob's Birthday!"])

        await #expect(try cli.run("notifications", "disable", "--json").stdout == "{\"status\":\"denied\",\"scheduled\":0}\n")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).isEmpty)
        await #expect(try cli.run("reschedule", "--json").stdout.contains("\"scheduled\":0"))
    }

    // MARK: - onboard without a terminal

    @Test func onboardWithoutATerminalNeedsAChoice() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("onboard")
        #expect(result.status != 0)
        #expect(result.stderr.contains("standard input is not a terminal"))
        #expect(result.stderr.contains("--enable-notifications or --no-notifications"))
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created before the first answer")
    }

    @Test func onboardWithOptions() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Never Miss a Birthday"))
        // No session bus here: allowing gives quiet (provisional) delivery.
        #expect(result.stdout.contains("Notifications are on, quietly"))
        #expect(result.stdout.contains("Ada turns 36 tomorrow!"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"provisional\"}\n")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).count == 4)
        await #expect(try cli.run("onboard", "--no-notifications").stdout.contains("already complete"))
    }

    @Test func onboardWithAnUnreadableExportFailsAndResumes() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let failed = try await cli.run("onboard", "--contacts", "/nonexistent/contacts.vcf", "--no-notifications")
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("could not import: cannot read /nonexistent/contacts.vcf"))
        let resumed = try await cli.run("onboard", "--no-contacts", "--no-notifications")
        #expect(resumed.status == 0)
        #expect(!resumed.stdout.contains("Welcome"))
        #expect(resumed.stdout.contains("Never Miss a Birthday"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"notDetermined\"}\n")
    }
}

/// `birthdays onboard` in a real pseudo-terminal (tmux).
@Suite(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed; the pseudo-terminal onboarding tests need it"))
struct OnboardingTerminalTests {
    @Test func enableAndAllow() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        // A systemd user manager answers (a stand-in systemctl), so the offer is the service.
        let systemctl = try FakeSystemctl(in: cli)
        cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
        let terminal = try await TerminalSession(cli, ["onboard"])

        try await terminal.waitFor("Press Enter to continue.")
        await #expect(try terminal.screen().contains("Welcome to birthdays!"))
        try await terminal.type("")
        try await terminal.waitFor("Leave empty to skip.")
        try await terminal.type("/nonexistent/contacts.vcf")
        try await terminal.waitFor("Could not import: cannot read /nonexistent/contacts.vcf")
        try await terminal.type("")

        let primer = try await terminal.waitFor("[E]nable notifications   [M]aybe later")
        #expect(primer.contains("Never Miss a Birthday"))
        #expect(primer.contains("Get notified the day before and the day of each birthday so you always have time to prepare."))
        try await terminal.type("x")
        try await terminal.waitFor("Please type E or M.")
        try await terminal.type("e")

        let prompt = try await terminal.waitFor("[A]llow   [D]on't allow")
        // In words, not the D-Bus error.
        #expect(prompt.contains("Note: this is not a desktop session (over SSH, or in a terminal started outside the desktop)"))
        #expect(!prompt.contains("DBUS") && !prompt.contains("D-Bus"))
        #expect(prompt.contains("reminders go quietly to the log (provisional) until a desktop notification server"))
        try await terminal.type("a")

        // The channel for the phone: declined.
        try await terminal.waitFor("[E]-mail   [N]tfy   [S]kip")
        try await terminal.type("s")

        let offer = try await terminal.waitFor("[I]nstall and start it   [N]ot now")
        #expect(offer.contains("Notifications are on, quietly"))
        #expect(offer.contains("Next reminders:"))
        #expect(offer.contains("  2026-03-10 09:00  Birthday Tomorrow  Ada turns 36 tomorrow!"))
        #expect(offer.contains("Reminders are sent only while birthdays run is running."))
        try await terminal.type("n")

        let done = try await terminal.waitFor("[exit 0]")
        #expect(done.contains("start it when you like with: birthdays service install"))
        #expect(done.contains("Sending a test notification…"))
        #expect(done.contains("desktop: FAIL: this is not a desktop session"))
        // No daemon runs and the service was not installed: not "all set".
        #expect(!done.contains("You're all set."))
        #expect(done.contains("Almost there: no reminder is sent until birthdays run runs."), "\(done)")
        #expect(try systemctl.calls() == ["--user show-environment"], "asked once, nothing installed")
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"provisional\"}\n")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).count == 4)
    }

    /// Two files dragged into the terminal, one with a space in its name
    /// (`'/path/My Contacts.vcf' `, quotes and a trailing space as GNOME
    /// Terminal drops it), the other by `~`: both are imported.
    @Test func draggedAndTildeFilesAreImportedTogether() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        cli.extraEnvironment["HOME"] = cli.directory.path
        let phone = try cli.write("My Contacts.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-11\r\nEND:VCARD\r\n")
        _ = try cli.write("google.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Kahn\r\nBDAY:1938-12-23\r\nEND:VCARD\r\n")
        let terminal = try await TerminalSession(cli, ["onboard", "--no-notifications"])
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        try await terminal.waitFor("Leave empty to skip.")
        try await terminal.type("'\(phone)' ~/google.vcf ")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(done.contains("imported 2 files: 2 added"), "\(done)")
        let people = try CLIProcess.array(try await cli.run("people", "--json").stdout)
        #expect(Set(people.compactMap { $0["name"] as? String }) == ["Ada Lovelace", "Bob Kahn"])
    }

    @Test func dontAllowThenEnableFromSettings() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts"])
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        try await terminal.waitFor("[M]aybe later")
        try await terminal.type("E")
        try await terminal.waitFor("[D]on't allow")
        try await terminal.type("d")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(done.contains("Notifications are off."))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"denied\"}\n")
        await #expect(try CLIProcess.array(try cli.run("pending", "--json").stdout).isEmpty)

        // Denied is final for the flow; only the settings path leaves it.
        let enabled = try await cli.run("notifications", "enable", "--json")
        #expect(enabled.stdout == "{\"status\":\"authorized\",\"scheduled\":4}\n")
    }

    @Test func interruptedOnboardingResumesAtThePrimer() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        do {
            let terminal = try await TerminalSession(cli, ["onboard"])
            try await terminal.waitFor("Press Enter to continue.")
            try await terminal.type("")
            try await terminal.waitFor("Leave empty to skip.")
            try await terminal.type("skip")
            try await terminal.waitFor("[M]aybe later")
            try await terminal.press("C-d")
            let paused = try await terminal.waitFor("[exit 0]")
            #expect(paused.contains("Onboarding paused."))
        }
        do {
            let terminal = try await TerminalSession(cli, ["onboard"])
            let resumed = try await terminal.waitFor("[M]aybe later")
            #expect(!resumed.contains("Welcome"))
            #expect(resumed.contains("Never Miss a Birthday"))
            try await terminal.type("m")
            let done = try await terminal.waitFor("[exit 0]")
            #expect(done.contains("No problem."))
        }
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"notDetermined\"}\n")
        // Never nags: a later run does not show the primer again.
        let again = try await TerminalSession(cli, ["onboard"])
        let complete = try await again.waitFor("[exit 0]")
        #expect(complete.contains("Onboarding is already complete (notifications: notDetermined)"))
        #expect(!complete.contains("Never Miss a Birthday"))
    }
}
