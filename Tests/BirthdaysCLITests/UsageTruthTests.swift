import Foundation
import TestSupport
import Testing

/// Usage errors (issue 31): what the person typed wrong is exit 64 and one
/// clear line; what the world did is exit 1.
@Suite struct UsageTruthTests {
    @Test(arguments: ["gopher://example.org/", "ftp://example.org/contacts.vcf"])
    func aSourceOfAnotherSchemeIsAUsageError(location: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let added = try await cli.run("sources", "add", location)
        #expect(added.status == 64, "\(added.stderr)")
        #expect(added.stderr.contains("not an http(s) URL or a path"), "\(added.stderr)")
        #expect(!added.stderr.contains("no such file or folder"), "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
    }

    @Test func aMissingPathIsStillWhatTheWorldDid() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let added = try await cli.run("sources", "add", cli.path("nowhere.vcf"))
        #expect(added.status == 1, "\(added.stderr)")
        #expect(added.stderr.contains("no such file or folder"), "\(added.stderr)")
    }
}

/// A setting that does not exist, and usage errors found only as a command runs.
extension UsageTruthTests {
    /// One line naming the setting (and the nearest names), the usage of
    /// `settings set` and where its help is; the list of every setting only
    /// behind `settings --help`.
    @Test(arguments: [
        ("nonsense", "Error: unknown setting 'nonsense' (every setting and its values: birthdays settings --help)"),
        ("delivery-tme", "Error: unknown setting 'delivery-tme'; did you mean 'delivery-time'?"),
        ("zone", "Error: unknown setting 'zone'; did you mean 'time-zone'?"),
    ])
    func anUnknownSettingIsOneLineWithTheNearestNames(typed: String, first: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        for arguments in [["settings", "set", typed, "1"], ["settings", "reset", typed]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 64, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.count == 3, "\(result.stderr)")
            #expect(lines.first?.hasPrefix(first) == true, "\(result.stderr)")
            #expect(lines.dropFirst().first?.hasPrefix("Usage: birthdays settings \(arguments[1]) ") == true, "\(result.stderr)")
            #expect(lines.last == "  See 'birthdays settings \(arguments[1]) --help' for more information.", "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
    }

    @Test func settingsHelpListsEverySettingWithItsValues() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let help = try await cli.run("settings", "--help")
        #expect(help.status == 0)
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
        for key in ["delivery-time", "quiet-after", "leap-day", "reminders", "channels", "language", "digest-day", "contact-links"] {
            #expect(text.contains("\(key): "), "\(key) in \(help.stdout)")
        }
        #expect(text.contains("digest: off | weekly | monthly"), "\(help.stdout)")
    }

    /// A usage error that a command finds only as it runs (the group's name
    /// is looked up in the database) is told with that command's usage, not
    /// the top-level `Usage: birthdays <subcommand>`, and the "did you mean" reaches the person.
    @Test func aGroupThatDoesNotExistIsTheCommandsOwnUsageError() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-20")])
        let file = try cli.write("work.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob\r\nBDAY:1980-05-01\r\nCATEGORIES:Work\r\nEND:VCARD\r\n")
        #expect(try await cli.run("import", file).status == 0)
        let typo = try await cli.run("exclude", "--group", "Wrk")
        #expect(typo.status == 64, "\(typo.stderr)")
        let lines = typo.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "Error: no group is called 'Wrk'; did you mean 'Work'?", "\(typo.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: birthdays exclude ") == true, "\(typo.stderr)")
        #expect(lines.last == "  See 'birthdays exclude --help' for more information.", "\(typo.stderr)")
        #expect(!typo.stderr.contains("<subcommand>"), "\(typo.stderr)")
    }

    @Test func aURLAppriseDoesNotUnderstandIsChannelsAddsOwnUsageError() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let bogus = try await cli.run("channels", "add", "apprise", "nonsense://x")
        #expect(bogus.status == 64, "\(bogus.stderr)")
        let lines = bogus.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Error: apprise does not understand this URL") == true, "\(bogus.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: birthdays channels add ") == true, "\(bogus.stderr)")
        #expect(lines.last == "  See 'birthdays channels add --help' for more information.", "\(bogus.stderr)")
    }
}

/// What `import` says about the files it was given.
extension UsageTruthTests {
    /// `birthdays import …` run in the test's folder, so relative paths mean what they say.
    static func importThere(_ cli: CLIProcess, _ arguments: [String]) async throws -> CLIProcess.Output {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try await TestProcess.run(
            ["/bin/sh", "-c", "cd '\(cli.directory.path)' && exec '\(try CLIProcess.binary())' import \(quoted)"],
            environment: cli.environment
        )
    }

    /// Every problem names its file as typed (relative stays relative,
    /// absolute stays absolute), the files in the order given, each file's
    /// problems by line: a date in the future (found after reading) among
    /// the dates that could not be read.
    @Test func importProblemsNameTheFileAsTypedInFileThenLineOrder() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.path("rel"), withIntermediateDirectories: true)
        func card(_ name: String, _ birthday: String) -> String {
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(name)\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
        }
        try cli.write("rel/z.vcf", card("Zed", "2099-01-01") + card("Bad", "circa 1800"))
        let absolute = try cli.write("a.vcf", card("Amy", "1990-01-01") + card("Amos", "2098-01-01") + card("Xan", "nope"))
        let imported = try await Self.importThere(cli, ["rel/z.vcf", absolute])
        #expect(imported.status == 0, "\(imported.stderr)")
        let problems = imported.stderr.split(separator: "\n").map(String.init)
        #expect(
            problems == [
                "rel/z.vcf:1: the birth date is in the future (year 2099); no reminder or age before it",
                "rel/z.vcf:9: BDAY 'circa 1800' is not a date",
                "\(absolute):6: the birth date is in the future (year 2098); no reminder or age before it",
                "\(absolute):14: BDAY 'nope' is not a date",
            ],
            "\(imported.stderr)"
        )
        // The store keeps where the card is, whatever was typed.
        let shown = try await cli.run("show", "Bad")
        #expect(shown.stdout.contains("the card at \(cli.path("rel/z.vcf")):6"), "\(shown.stdout)")
    }
}

/// `import FOLDER` reads every contact file it recognises and names the rest.
extension UsageTruthTests {
    /// The samples' vCard and Google CSV in one folder, with a notes file, a
    /// CSV of something else and a photo: both exports are read (the CSV
    /// found by its content, whatever its name), each other file named on
    /// standard error with why, and the summary counts them. A vdir source
    /// on the same folder still reads its `.vcf` only.
    @Test func importingAFolderReadsItsCSVAndNamesWhatItSkipped() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("exports")
        try FileManager.default.createDirectory(atPath: folder + "/phone", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLIProcess.samples + "/contacts.vcf", toPath: folder + "/contacts.vcf")
        try FileManager.default.copyItem(atPath: CLIProcess.samples + "/google-contacts.csv", toPath: folder + "/phone/google export.txt")
        try cli.write("exports/notes.txt", "call Ada, about the party\n")
        try cli.write("exports/expenses.csv", "Date,Amount\n2026-01-02,12.50\n")
        try cli.write("exports/photo.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01])
        try cli.write("exports/.hidden", "BEGIN:VCARD\r\nFN:Hidden\r\nBDAY:1990-01-01\r\nEND:VCARD\r\n")

        let imported = try await Self.importThere(cli, ["exports"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stderr.split(separator: "\n").map(String.init) == [
                "skipped exports/expenses.csv: not a vCard or a contacts CSV (its first line names no column of a contacts export)",
                "skipped exports/notes.txt: not a vCard or a contacts CSV (its first line names no column of a contacts export)",
                "skipped exports/photo.jpg: not a vCard or CSV file (binary data)",
            ],
            "\(imported.stderr)"
        )
        #expect(imported.stdout.hasPrefix("imported 2 files: "), "\(imported.stdout)")
        #expect(imported.stdout.contains("; 3 other files skipped"), "\(imported.stdout)")

        let vCardOnly = try CLIProcess()
        defer { vCardOnly.cleanUp() }
        let single = try await vCardOnly.run("import", CLIProcess.samples + "/contacts.vcf")
        #expect(single.status == 0)
        let people = try CLIProcess.array(try await cli.run("people", "--json").stdout)
        let vCardPeople = try CLIProcess.array(try await vCardOnly.run("people", "--json").stdout)
        #expect(people.count > vCardPeople.count, "the CSV's people came in too")
        let fromCSV = people.compactMap { $0["name"] as? String }.filter { name in !vCardPeople.contains { $0["name"] as? String == name } }
        #expect(!fromCSV.isEmpty)

        // The same folder as a vdir source: its .vcf files only, nothing named as skipped.
        let source = try CLIProcess()
        defer { source.cleanUp() }
        let added = try await source.run("sources", "add", folder, "--json")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!added.stderr.contains("skipped"), "\(added.stderr)")
        #expect(try CLIProcess.array(try await source.run("people", "--json").stdout).count == vCardPeople.count)

        let json = try CLIProcess.object(try await Self.importThere(cli, ["exports", "--dry-run", "--json"]).stdout)
        let skipped = try #require(json["skipped"] as? [[String: Any]])
        #expect(skipped.compactMap { $0["file"] as? String } == ["exports/expenses.csv", "exports/notes.txt", "exports/photo.jpg"])
    }

    @Test func aFolderWithoutContactsSaysWhatItSkipped() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.path("junk"), withIntermediateDirectories: true)
        try cli.write("junk/readme.md", "# My notes\n")
        let imported = try await cli.run("import", cli.path("junk"))
        #expect(imported.status == 1, "\(imported.stderr)")
        #expect(
            imported.stderr
                == "skipped \(cli.path("junk/readme.md")): not a vCard or CSV file\n"
                + "Error: no contacts found in the input (1 file skipped: no vCard or contacts CSV)\n"
        )
    }
}

/// `onboard` creates nothing before the first answer, and bare `birthdays`
/// leads to it while there is nobody to remind.
extension UsageTruthTests {
    static let firstSteps = "No contacts yet. Start with: birthdays onboard\nEvery command: birthdays --help\n"

    @Test func onboardingWithoutATerminalCreatesNothingAndBareBirthdaysStillLeadsThere() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let failed = try await cli.run("onboard")
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.hasPrefix("Error: standard input is not a terminal, so onboarding cannot ask"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
        let bare = try await cli.run([])
        #expect(bare.status == 0)
        #expect(bare.stdout == Self.firstSteps, "\(bare.stdout)")
    }

    /// A database that exists (a setting was changed) but holds nobody: bare
    /// `birthdays` says where to start; after an onboarding that skipped the
    /// contacts, how to import them; once there are people, the help.
    @Test func bareBirthdaysOnADatabaseWithoutPeopleSaysNoContactsYet() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.set("emoji", "off")
        #expect(FileManager.default.fileExists(atPath: cli.databasePath))
        let empty = try await cli.run([])
        #expect(empty.status == 0)
        #expect(empty.stdout == Self.firstSteps, "\(empty.stdout)")

        #expect(try await cli.run("onboard", "--no-contacts", "--no-notifications").status == 0)
        let onboarded = try await cli.run([])
        #expect(onboarded.status == 0)
        #expect(onboarded.stdout.hasPrefix("No contacts yet. Import some with: birthdays import PATH"), "\(onboarded.stdout)")

        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let help = try await cli.run([])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:"), "\(help.stdout)")
    }

    /// On a terminal the database is created at the first answer: Ctrl-D at
    /// the welcome leaves nothing behind; Enter there goes on as before.
    @Test(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed"))
    func onboardingOnATerminalCreatesTheDatabaseAtTheFirstAnswer() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        do {
            let terminal = try await TerminalSession(cli, ["onboard"])
            try await terminal.waitFor("Press Enter to continue.")
            #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing before the first answer")
            try await terminal.press("C-d")
            let paused = try await terminal.waitFor("[exit 0]")
            #expect(paused.contains("Onboarding paused."))
            #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing after none either")
            #expect(try await cli.run([]).stdout == Self.firstSteps)
        }
        let terminal = try await TerminalSession(cli, ["onboard", "--no-notifications"])
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        try await terminal.waitFor("Leave empty to skip.")
        #expect(FileManager.default.fileExists(atPath: cli.databasePath), "created at the first answer")
        try await terminal.type("")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(done.contains("No problem."), "\(done)")
        #expect(done.components(separatedBy: "Welcome to birthdays!").count == 2, "the welcome once: \(done)")
    }
}

/// An interrupted onboarding says where it picks up, in the user's language.
extension UsageTruthTests {
    @Test func aResumedOnboardingSaysWhereItPicksUp() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        let failed = try await cli.run("onboard", "--contacts", cli.path("nowhere.vcf"), "--no-notifications")
        #expect(failed.status == 1, "\(failed.stderr)")
        cli.extraEnvironment["LANG"] = "de_DE.UTF-8"
        let resumed = try await cli.run("onboard", "--no-contacts", "--no-notifications")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("Weiter, wo du aufgehört hast: beim Import deiner Kontakte.\n"), "\(resumed.stdout)")
        // Complete now: nothing is resumed, and it does not say so.
        let again = try await cli.run("onboard", "--no-contacts", "--no-notifications")
        #expect(!again.stdout.contains("Weiter, wo"), "\(again.stdout)")
        // A new onboarding does not say it resumes either.
        let fresh = try CLIProcess()
        defer { fresh.cleanUp() }
        let first = try await fresh.run("onboard", "--no-contacts", "--no-notifications")
        #expect(first.stdout.hasPrefix("Welcome to birthdays!"), "\(first.stdout)")
    }

    @Test(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed"))
    func anOnboardingStoppedAtThePrimerSaysItPicksUpThere() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        do {
            let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts"])
            try await terminal.waitFor("Press Enter to continue.")
            try await terminal.type("")
            try await terminal.waitFor("[M]aybe later")
            try await terminal.press("C-d")
            try await terminal.waitFor("[exit 0]")
        }
        let terminal = try await TerminalSession(cli, ["onboard"])
        let resumed = try await terminal.waitFor("[M]aybe later")
        let said = try #require(resumed.range(of: "Picking up where you left off: notifications."), "\(resumed)")
        #expect(resumed[said.upperBound...].contains("Never Miss a Birthday"), "said before the primer: \(resumed)")
        #expect(!resumed.contains("Welcome"))
        try await terminal.type("m")
        try await terminal.waitFor("[exit 0]")
    }
}

/// `show` writes a date in another calendar in words, in the person's language.
extension UsageTruthTests {
    @Test(arguments: [
        ("C.UTF-8", "Birthday (lunar): 15th day of the 8th month; next 2026-09-25 (in 199 days), turns 35"),
        ("de_DE.UTF-8", "Geburtstag (Mondkalender): 15. Tag des 8. Monats; nächster 2026-09-25 (in 199 Tagen), wird 35"),
        ("ja_JP.UTF-8", "誕生日（旧暦）: 8月15日、次回 2026-09-25（199日後）、35歳"),
    ])
    func showWritesALunarBirthdayInWords(lang: String, line: String) async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "lin.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:lin\r\nFN:Lin\r\nX-ALTBDAY;CALSCALE=chinese:007800080815\r\nEND:VCARD\r\n"
        )
        #expect(try await cli.run("import", file).status == 0)
        cli.extraEnvironment["LANG"] = lang
        let shown = try await cli.run("show", "lin")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains(line), "\(shown.stdout)")
        #expect(!shown.stdout.contains("0078-0008-08-15"), "\(shown.stdout)")
    }
}

/// The digest as the person sees it before it is sent.
extension UsageTruthTests {
    /// A weekly digest sent on Monday 16 March: `pending` calls it what it
    /// is, and its preview on the Friday before marks no day "(today)"; on
    /// the Sunday before, Monday is "(tomorrow)".
    @Test func aDigestIsCalledOneAndItsPreviewMarksTheRealToday() async throws {
        var cli = try CLIProcess(now: "2026-03-13T10:00:00+01:00")
        defer { cli.cleanUp() }
        try await cli.seed([("mon", "Monday Person", "1990-03-16"), ("tue", "Tuesday Person", "1990-03-17")])
        try await cli.set("digest", "weekly")
        try await cli.enableNotifications()

        let pending = try await cli.run("pending")
        let digestRow = try #require(pending.stdout.split(separator: "\n").first { $0.contains("Birthdays in the week ahead") }, "\(pending.stdout)")
        #expect(digestRow.contains("weekly digest"), "\(digestRow)")
        #expect(!digestRow.contains("day-of"), "\(digestRow)")
        // The message itself is read on its day: Monday is today there.
        #expect(digestRow.contains("Mon 16 Mar (today): Monday Person"), "\(digestRow)")

        let friday = try await cli.run("digest")
        #expect(friday.status == 0, "\(friday.stderr)")
        #expect(
            friday.stdout.contains("\nMon 16 Mar: Monday Person, birthday, turns 36\nTue 17 Mar: Tuesday Person, birthday, turns 36"),
            "\(friday.stdout)"
        )
        #expect(!friday.stdout.contains("(today)") && !friday.stdout.contains("(tomorrow)"), "\(friday.stdout)")
        let json = try CLIProcess.object(try await cli.run("digest", "--json").stdout)
        #expect((json["lines"] as? [String])?.first == "Mon 16 Mar: Monday Person, birthday, turns 36", "\(json)")

        let sunday = try await cli.run(at: "2026-03-15T10:00:00+01:00", "digest")
        #expect(sunday.stdout.contains("\nMon 16 Mar (tomorrow): Monday Person"), "\(sunday.stdout)")

        cli.extraEnvironment["LANG"] = "de_DE.UTF-8"
        #expect(try await cli.run("pending").stdout.contains("Wochenübersicht"))
    }
}
