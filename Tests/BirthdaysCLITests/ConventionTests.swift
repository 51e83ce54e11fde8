import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Small conventions: reading commands never create a database, `import -`
/// reads standard input, tables fit the terminal by display width, an empty
/// `upcoming --days 0` prints nothing, `feed url` names the address served.
@Suite struct ConventionTests {
    // MARK: - A database that does not exist

    @Test(arguments: [
        ["people"], ["upcoming"], ["upcoming", "--days", "0"], ["show", "ada"], ["pending"], ["status"], ["export"],
        ["settings", "show"], ["notifications", "status"], ["notifications", "test"], ["feed", "url"], ["service", "install", "--dry-run"],
    ])
    func aReadingCommandOnAMissingDatabaseFailsAndCreatesNothing(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        var typo = cli
        typo.extraEnvironment["BIRTHDAYS_DATABASE"] = cli.path("no-such-folder/birthdays.sqlite")
        let result = try await typo.run(arguments)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: there is no database at \(cli.path("no-such-folder/birthdays.sqlite")); import contacts first, or check --database and BIRTHDAYS_DATABASE\n"
        )
        #expect(!FileManager.default.fileExists(atPath: cli.path("no-such-folder")))
    }

    // MARK: - Standard input

    @Test func importDashReadsStandardInput() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let cards = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Ada\r\nBDAY:1990-13-40\r\nEND:VCARD\r\n"
        let result = try await cli.run(["import", "-"], stdin: cards)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "<stdin>:5: BDAY '1990-13-40' is not a date\n")
        await #expect(try cli.run("show", "ada").stdout.contains("(the card at <stdin>:1)"))
    }

    /// Standard input that is a socket, as over ssh: opening /dev/stdin again
    /// by name fails there (ENXIO), so it is read from its descriptor.
    @Test(arguments: ["-", "/dev/stdin"])
    func standardInputThatIsASocketIsRead(_ name: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let harness = """
            import socket, subprocess, sys
            a, b = socket.socketpair()
            child = subprocess.Popen(sys.argv[1:], stdin=b, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            b.close()
            a.sendall(b"BEGIN:VCARD\\r\\nVERSION:3.0\\r\\nUID:a\\r\\nFN:Ada\\r\\nBDAY:1990-03-11\\r\\nEND:VCARD\\r\\n")
            a.shutdown(socket.SHUT_WR)
            out, err = child.communicate(timeout=120)
            sys.stdout.write(out.decode())
            sys.stderr.write(err.decode())
            sys.exit(child.returncode)
            """
        let result = try await TestProcess.run(
            [SystemTools.python, "-c", harness, try CLIProcess.binary(), "import", name],
            environment: cli.environment
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 added"))
        await #expect(try cli.run("show", "ada").stdout.hasPrefix("Ada\n"))
    }

    // MARK: - Tables

    /// With `$COLUMNS`, every line fits, cut cells end in "…", and ids and times are never cut.
    @Test func tablesFitColumns() async throws {
        let cli = try await CLIProcess.withAda(settings: [], enableNotifications: true)
        defer { cli.cleanUp() }
        var narrow = cli
        narrow.extraEnvironment["COLUMNS"] = "60"
        let lines = try await narrow.run("pending").stdout.split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines { #expect(displayWidth(line) <= 60, "\(line)") }
        #expect(lines[1].hasPrefix(String(try await cli.publicID("ada-birthday-dayof").prefix(6)) + "  2026-03-10 09:00  day-of"))
        #expect(lines[1].hasSuffix("…"))
        // Without COLUMNS and without a terminal, nothing is cut.
        await #expect(try cli.run("pending").stdout.contains("Ada Lovelace turns 36 today!"))
    }

    /// Columns are padded by the cells a terminal gives each character.
    @Test func wideCharactersAndEmojiKeepTheColumns() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("li", "李小龍", "1940-03-11"), ("mei", "Mei 🎉", "1990-03-12"), ("al", "Al", "1980-03-13")])
        let lines = try await cli.run("upcoming").stdout.split(separator: "\n")
        #expect(lines.count == 3)
        // The fourth column starts at the same terminal column on every line.
        let starts = lines.map { line -> Int in
            let cells = line.components(separatedBy: "  ").filter { !$0.isEmpty }
            let prefix = line.range(of: cells[3]).map { String(line[..<$0.lowerBound]) } ?? ""
            return displayWidth(prefix)
        }
        #expect(Set(starts).count == 1, "\(lines)")
    }

    // MARK: - upcoming for a status bar

    @Test func anEmptyDayPrintsNothing() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let today = try await cli.run("upcoming", "--days", "0")
        #expect(today.status == 0)
        #expect(today.stdout.isEmpty && today.stderr.isEmpty)
        await #expect(try cli.run("upcoming", "--days", "0", "--json").stdout == "[]\n")
        // Ada is tomorrow and Bob on the 20th: nothing from the 12th to the 17th.
        await #expect(try cli.run(at: "2026-03-12T08:00:00+01:00", "upcoming", "--days", "5", "--quiet").stdout.isEmpty)
        await #expect(try cli.run(at: "2026-03-12T08:00:00+01:00", "upcoming", "--days", "5").stdout == "No birthdays in the next 5 days.\n")
        await #expect(try cli.run(at: "2026-03-11T08:00:00+01:00", "upcoming", "--days", "0", "--quiet").stdout.hasPrefix("today"))
        await #expect(try cli.run("pending", "--quiet").stdout.isEmpty, "notifications are off: nothing pending, nothing said")
    }

    /// A negative number is read as a number and refused with what is allowed (issue 24), not "Missing value".
    @Test(arguments: [
        (["upcoming", "--days", "-5"], "Error: --days must be 0 or more"),
        (["upcoming", "--limit", "-1"], "Error: --limit must be at least 1"),
        (["status", "--days", "-5"], "Error: --days must be 0 or more"),
        (["feed", "url", "--port", "-1"], "Error: --port must be between 1 and 65535, not -1"),
    ])
    func aNegativeCountSaysWhatIsAllowed(_ arguments: [String], _ message: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    // MARK: - the first command

    /// Bare `birthdays` before there is a database says what to do first
    /// (issue 24); with one it prints the help, as before; `--help` always does.
    @Test func bareBirthdaysLeadsToOnboardingUntilThereIsADatabase() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let first = try await cli.run([])
        #expect(first.status == 0)
        #expect(first.stdout == "No contacts yet. Start with: birthdays onboard\nEvery command: birthdays --help\n", "\(first.stdout)")
        #expect(first.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
        let help = try await cli.run("--help")
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:"), "\(help.stdout)")
        try await Seed.twoPeople(cli)
        let later = try await cli.run([])
        #expect(later.status == 0)
        #expect(later.stdout == help.stdout, "with a database, the help as before")
    }

    /// `--help` groups the commands by what a person does (issue 42): four
    /// headings in order, every command under exactly one, `invite` and
    /// `invites` side by side.
    @Test func helpGroupsTheCommandsByWhatAPersonDoes() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let help = try await cli.run("--help")
        #expect(help.status == 0)
        let headings = help.stdout.split(separator: "\n").filter { $0.hasSuffix("SUBCOMMANDS:") }.map(String.init)
        #expect(
            headings == ["CONTACTS SUBCOMMANDS:", "REMINDERS SUBCOMMANDS:", "CALENDAR AND SHARING SUBCOMMANDS:", "SETUP SUBCOMMANDS:"],
            "\(help.stdout)"
        )
        let names = help.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        #expect(Set(names).count == names.count, "each command once: \(names)")
        for command in ["import", "upcoming", "run", "serve", "share", "onboard", "settings"] {
            #expect(names.contains(command), "\(command) in \(names)")
        }
        let invite = try #require(names.firstIndex(of: "invite"))
        #expect(names[invite + 1] == "invites", "\(names)")
    }

    // MARK: - feed url

    @Test func feedURLNamesTheAddressServed() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        func url() async throws -> String { try await cli.run("feed", "url").stdout.split(separator: "\n").first.map(String.init) ?? "" }
        await #expect(try url().hasPrefix("http://127.0.0.1:8484/calendar/"))
        try await cli.set("serve", "127.0.0.1:9191")
        await #expect(try url().hasPrefix("http://127.0.0.1:9191/calendar/"), "the serve setting")

        let port = try Loopback.freePort()
        let server = try TestProcess(
            [try CLIProcess.binary(), "serve", "--port", String(port)],
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        defer { server.stop() }
        try await server.waitUntil("the server") { _ in await (try? url().hasPrefix("http://127.0.0.1:\(port)/")) == true || server.poll() != nil }
        await #expect(try url().hasPrefix("http://127.0.0.1:\(port)/calendar/"), "the running server")
        await #expect(try cli.run("feed", "url", "--host", "calendar.example", "--port", "443").stdout.hasPrefix("http://calendar.example:443/"))
        server.stop()
        await #expect(try url().hasPrefix("http://127.0.0.1:9191/calendar/"), "a stopped server is not taken for a running one")
    }
}

/// Terminal cells of `text`, as the C library's wcwidth(3) counts them in
/// a UTF-8 locale: an oracle independent of the program's own measure.
/// (Glibc's module map leaves wcwidth out, so it is looked up by name.)
func displayWidth(_ text: some StringProtocol) -> Int {
    typealias WCWidth = @convention(c) (Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth") else { return -1 }
    let wcwidth = unsafeBitCast(symbol, to: WCWidth.self)
    _ = setlocale(LC_CTYPE, "C.UTF-8")
    return text.unicodeScalars.reduce(0) { total, scalar in total + max(0, Int(wcwidth(Int32(bitPattern: scalar.value)))) }
}
