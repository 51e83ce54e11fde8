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

    /// Apprise's verdict is the world's, not a mistyped argument (issue 32:
    /// 64 is for what the person typed wrong, 1 for what the world did): one
    /// line, exit 1, and never the top-level usage.
    @Test func aURLAppriseDoesNotUnderstandIsOneLineNotTheTopLevelUsage() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let bogus = try await cli.run("channels", "add", "apprise", "nonsense://x")
        #expect(bogus.status == 1, "\(bogus.stderr)")
        #expect(bogus.stderr == "Error: apprise does not understand this URL (see its list of services: apprise --details)\n")
        #expect(!bogus.stderr.contains("<subcommand>"), "\(bogus.stderr)")
    }
}

/// The traps of issue 41: what the other commands already did.
extension UsageTruthTests {
    /// `share add` and `invite` with a group nobody is in: the usage error
    /// every command with `--group` gives, and neither a share nor an invitation is made.
    @Test(arguments: [
        (["share", "add", "Work", "--group", "Family", "--group", "Wrk"], "birthdays share add"),
        (["invite", "Work", "--group", "Wrk"], "birthdays invite add"),
    ])
    func aShareOrAnInvitationOfAGroupThatDoesNotExistIsAUsageError(arguments: [String], command: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let cards =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nBDAY:1990-03-20\r\nCATEGORIES:Family\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob\r\nBDAY:1980-05-01\r\nCATEGORIES:Work\r\nEND:VCARD\r\n"
        #expect(try await cli.run("import", try cli.write("cards.vcf", cards)).status == 0)
        let typo = try await cli.run(arguments)
        #expect(typo.status == 64, "\(typo.stderr)")
        let lines = typo.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "Error: no group is called 'Wrk'; did you mean 'Work'?", "\(typo.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: \(command) ") == true, "\(typo.stderr)")
        #expect(typo.stdout.isEmpty, "no link: \(typo.stdout)")
        #expect(try await cli.run("share", "list", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        #expect(try await cli.run("invite", "list", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        // The group's name as the store has it, whatever its case.
        #expect(try await cli.run(Array(arguments.dropLast()) + ["work"]).status == 0)
    }

    /// `invite --group` with a name near no group's starts a group (the
    /// invitation collects a new club's birthdays): the link is made, a
    /// note says the group is new, and `invite list` names it. A name near
    /// one is the typo above.
    @Test func anInvitationMayStartAGroupWhoseNameIsNearNone() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob\r\nBDAY:1980-05-01\r\nCATEGORIES:Work\r\nEND:VCARD\r\n"
        #expect(try await cli.run("import", try cli.write("cards.vcf", card)).status == 0)
        let made = try await cli.run("invite", "Club", "--group", "Book club")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("/invite/"), "\(made.stdout)")
        #expect(made.stderr.contains("no group is called 'Book club' yet; the first answer accepted starts it"), "\(made.stderr)")
        #expect(try await cli.run("invite", "list", "--json").stdout.contains("\"Book club\""))
    }

    /// `settings set name-days fi`: no list has the code, which only the
    /// database can tell (a list of your own may have it); still one line
    /// naming what is allowed and exit 64, as for any value refused.
    @Test func aNameDayListNobodyHasIsAUsageError() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("settings", "set", "name-days", "fi")
        #expect(result.status == 64, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Error: 'fi' is not a valid name-days; allowed: off, or a comma list") == true, "\(result.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: birthdays settings set ") == true, "\(result.stderr)")
        #expect(CLIProcess.shownSetting("name-days", in: try await cli.run("settings", "show").stdout) == "off")
    }
}
