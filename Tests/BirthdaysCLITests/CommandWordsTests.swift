import Foundation
import TestSupport
import Testing

/// The words around a command (issue 41): the options every command takes
/// before its name as after it, a command that does not exist, and a port
/// that is taken.
@Suite struct CommandWordsTests {
    /// `--database PATH` before the command's name is the same as after
    /// it, for a command at the top and one below another (`settings set`,
    /// `invite` with its default `add`), and `--database=PATH` too: the
    /// database named is the one used, not `$BIRTHDAYS_DATABASE`'s.
    @Test func theDatabaseOptionWorksBeforeTheCommandsName() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let other = cli.path("other.sqlite")
        let card = try cli.write("ada.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-20\r\nEND:VCARD\r\n")
        let imported = try await cli.run("--database", other, "import", card)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "$BIRTHDAYS_DATABASE is not the one named")
        #expect(try await cli.run("--database=\(other)", "upcoming").stdout.contains("Ada Lovelace"))
        let set = try await cli.run("--database", other, "settings", "set", "delivery-time", "08:30")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(CLIProcess.shownSetting("delivery-time", in: try await cli.run("settings", "show", "--database", other).stdout) == "08:30")
        let invited = try await cli.run("--database", other, "invite", "Friends")
        #expect(invited.status == 0, "\(invited.stderr)")
        #expect(try await cli.run("invite", "list", "--database", other).stdout.contains("Friends"))
        // Bare `birthdays` looks at the database named, too.
        #expect(try await cli.run("--database", other).stdout.contains("USAGE: birthdays"), "a database with people: the help")
        #expect(try await cli.run("--database", cli.path("none.sqlite")).stdout.hasPrefix("No contacts yet."))
    }

    /// Every command, found through `--help` down the tree, answers the
    /// same with `--database PATH` before its name as after it: its help,
    /// and what it says run without arguments on a database that cannot
    /// exist (the path named in its error, or its usage error). `service`
    /// is only asked for its help: run, it would talk to systemd. And every
    /// command takes `--user NAME` before its name (it is moved as
    /// `--database` is): of a user who does not exist, it says so in the
    /// one line, or is a usage error of its own (exit 64: an argument it
    /// needs is missing), never an unknown option nor another database's error.
    @Test func everyCommandTakesTheDatabaseOptionBeforeItsName() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let database = try cli.write("a-file", "") + "/birthdays.sqlite"
        func subcommands(_ path: [String]) async throws -> [String] {
            let help = try await cli.run(path + ["--help"]).stdout
            // The root's commands stand under "CONTACTS SUBCOMMANDS:" and the other groups' headings.
            guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
            return help[start.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("  See") }.compactMap { line in
                guard line.hasPrefix("  "), line.dropFirst(2).first?.isLetter == true else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map(String.init)
            }
        }
        var commands: [[String]] = []
        var branches: [[String]] = [[]]
        while let path = branches.popLast() {
            let below = try await subcommands(path)
            if below.isEmpty { commands.append(path) } else { branches += below.map { path + [$0] } }
        }
        #expect(commands.count > 50 && commands.contains(["channels", "add"]) && commands.contains(["upcoming"]), "\(commands)")
        var usageErrors: [[String]] = []
        for command in commands {
            var runs = [["--help"]]
            if command.first != "service" { runs.append([]) }
            for rest in runs {
                let before = try await cli.run(["--database", database] + command + rest)
                let after = try await cli.run(command + ["--database", database] + rest)
                #expect(
                    before.status == after.status && before.stdout == after.stdout && before.stderr == after.stderr,
                    "\(command + rest): \(before.stderr) / \(after.stderr)"
                )
                #expect(before.status != 0 || rest == ["--help"], "\(command): \(before.stdout)")
                #expect(!before.stderr.contains("Unknown option"), "\(command + rest): \(before.stderr)")
            }
            if command.first != "service" {
                let user = try await cli.run(["--user", "nobody"] + command)
                let checked = user.status == 1 && user.stderr == "Error: no user is called 'nobody' (add one with: birthdays users add nobody)\n"
                #expect(checked || user.status == 64 && !user.stderr.contains("Unknown option"), "\(command): \(user.status) \(user.stderr)")
                if user.status == 64 { usageErrors.append(command) }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "$BIRTHDAYS_DATABASE's is never the one used")
        #expect(commands.count - usageErrors.count > 30 && !usageErrors.contains(["upcoming"]), "commands reach the user's check: \(usageErrors)")
    }

    /// A command's name that names none is a usage error with the nearest
    /// names, as a setting's or a group's is; `help` of one too.
    @Test(arguments: [
        (["upcomin"], "Error: no command is called 'upcomin'; did you mean 'upcoming'?", "birthdays"),
        (["help", "nonexistent"], "Error: no command is called 'nonexistent' (every command: birthdays --help)", "birthdays"),
        (["help", "upcomin"], "Error: no command is called 'upcomin'; did you mean 'upcoming'?", "birthdays"),
        (["channels", "ad", "x"], "Error: no command is called 'channels ad'; did you mean 'channels add'?", "birthdays channels"),
        (["--database", "x.sqlite", "setings", "show"], "Error: no command is called 'setings'; did you mean 'settings'?", "birthdays"),
    ])
    func aCommandThatDoesNotExistIsAUsageErrorWithTheNearestNames(arguments: [String], first: String, command: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == first, "\(result.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: \(command) ") == true, "\(result.stderr)")
        #expect(lines.last == "  See '\(command) --help' for more information.", "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
    }

    /// What still names a command is read as before: `help COMMAND`, and a
    /// word below a command with a default subcommand that is that one's argument.
    @Test func wordsThatNameCommandsAreReadAsBefore() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let help = try await cli.run("help", "channels", "add")
        #expect(help.status == 0 && help.stdout.contains("USAGE: birthdays channels add"), "\(help.stdout)\(help.stderr)")
        let invited = try await cli.run("invite", "Book club")
        #expect(invited.status == 0, "invite add 'Book club': \(invited.stderr)")
    }

    /// `serve` on a port another server holds: one line that says so, exit 1.
    @Test func aPortInUseIsSaidInWords() async throws {
        let served = try await PageCommandTests.serve([("ada", "Ada Lovelace", "1990-03-20")])
        defer { served.stop() }
        let second = try await served.cli.run("serve", "--port", String(served.port))
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stderr == "Error: port \(served.port) is in use (another birthdays serve?)\n", "\(second.stderr)")
    }
}
