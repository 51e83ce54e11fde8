import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays users move NAME --to ROOT` through the real binary: a user's
/// folder handed to another users root (their database by SQLite's online
/// backup, their secrets with their modes), across two `run --all-users`
/// over a pretend day with no reminder missed or sent twice; and each way
/// it is refused, in one line.
@Suite(.timeLimit(.minutes(10)))
struct UsersMoveTests {
    /// A test folder with two users roots, `users-a/` (`BIRTHDAYS_USERS_DIR`) and `users-b/` (made, 0700, empty).
    static func server() throws -> CLIProcess {
        var cli = try CLIProcess()
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users-a")
        try FileManager.default.createDirectory(
            atPath: cli.path("users-b"),
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        return cli
    }

    /// `cli` with its users root `root` (a folder name in the test folder).
    static func on(_ cli: CLIProcess, _ root: String) -> CLIProcess {
        var other = cli
        other.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path(root)
        return other
    }

    /// `birthdays run --all-users` over `cli`'s users root in the background, its clock starting at `now`, logging
    /// at info, its output in files of its own (`name`).
    static func daemon(_ cli: CLIProcess, now: String, name: String) throws -> TestProcess {
        var at = cli
        at.now = now
        var environment = at.environment
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        return try TestProcess([try CLIProcess.binary(), "run", "--all-users"], environment: environment, directory: cli.directory, name: name)
    }

    /// Every entry below `folder`, with its mode (and a file's bytes).
    static func tree(_ folder: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        let walk = try #require(FileManager.default.enumerator(atPath: folder))
        for case let entry as String in walk {
            var info = stat()
            try #require(lstat(folder + "/" + entry, &info) == 0)
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            let bytes = isFolder ? "" : ((try? String(contentsOfFile: folder + "/" + entry, encoding: .utf8)) ?? "")
            entries[entry] = String(info.st_mode & 0o777, radix: 8) + " " + bytes
        }
        return entries
    }

    /// The user's folder moves whole: their people, their feed's address
    /// (its token is in the database), their channel's secret with its
    /// mode; nothing is left of it, or of the move, in the first root.
    @Test func aMovedUserKeepsTheirDataTheirSecretsAndTheirModes() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let there = Self.on(cli, "users-b")
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let file = try cli.write("alice.vcf", UsersCommandTests.vcard([("a1", "Ann Archer")]))
        #expect(try await cli.run("--user", "alice", "import", file).status == 0)
        #expect(try await cli.run("--user", "alice", "channels", "add", "ntfy", "http://127.0.0.1:9/alice-topic", "--name", "phone").status == 0)
        let address = try await cli.run("--user", "alice", "feed", "url")
        try #require(address.status == 0, "\(address.stderr)")
        let secrets = try Self.tree(cli.path("users-a/alice/birthdays.sqlite.secrets"))

        let moved = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "Moved alice to \(cli.path("users-b/alice")).\n")
        #expect(moved.stderr.isEmpty, "\(moved.stderr)")

        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")).isEmpty, "no folder left behind, nor a move's")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")) == ["alice"])
        #expect(UsersCommandTests.mode(cli.path("users-b/alice")) == 0o700)
        #expect(try Self.tree(cli.path("users-b/alice/birthdays.sqlite.secrets")) == secrets)
        #expect(secrets.count == 1 && secrets["phone.ntfy"]?.hasPrefix("600 ") == true && secrets["phone.ntfy"]?.contains("alice-topic") == true)
        #expect(try Self.tree(cli.path("users-b/alice"))["birthdays.sqlite.secrets"] == "700 ")
        #expect(try Self.tree(cli.path("users-b/alice"))["birthdays.sqlite"]?.hasPrefix("600 ") == true)

        #expect(try await UsersCommandTests.names(there, "--user", "alice", "people", "--json") == ["Ann Archer"])
        #expect(try await UsersCommandTests.names(there, "--user", "alice", "channels", "list", "--json").contains("phone"))
        let after = try await there.run("--user", "alice", "feed", "url")
        #expect(after.stdout == address.stdout, "the feed's token moved with the database")
        let gone = try await cli.run("--user", "alice", "people")
        #expect(gone.status == 1 && gone.stderr.contains("no user is called 'alice'"), "\(gone.stderr)")
    }

    /// Each refusal is one line, changes nothing: alice stays where she was, the other root gets nothing.
    @Test func aMoveThatCannotBeDoneIsOneLineAndChangesNothing() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        #expect(try await cli.run("users", "add", "bob").status == 0)
        #expect(try await Self.on(cli, "users-b").run("users", "add", "bob").status == 0)
        let file = try cli.write("plain-file", "not a folder")
        let before = try Self.tree(cli.path("users-a"))
        let cases: [(arguments: [String], status: Int32, line: String)] = [
            (["carol", "--to", cli.path("users-b")], 1, "Error: no user is called 'carol' (add one with: birthdays users add carol)"),
            (
                ["bob", "--to", cli.path("users-b")], 1,
                "Error: \(cli.path("users-b")) already has a user called 'bob', so 'bob' is not moved there"
            ),
            (
                ["alice", "--to", cli.path("nowhere")], 1,
                "Error: \(cli.path("nowhere")) is not a users folder: it does not exist (make it with: mkdir -m 700 \(cli.path("nowhere")))"
            ),
            (["alice", "--to", file], 1, "Error: \(file) is not a users folder: it is not a folder"),
            (
                ["alice", "--to", cli.path("users-a/bob")], 1,
                "Error: \(cli.path("users-a/bob")) is not a users folder: it holds a database (birthdays.sqlite), so it is a user's folder or a database's"
            ),
            (
                ["alice", "--to", cli.path("users-a/../users-a")], 1,
                "Error: \(cli.path("users-a/../users-a")) is not a users folder: it is the users root 'alice' is in already"
            ),
        ]
        for (arguments, status, line) in cases {
            let result = try await cli.run(["users", "move"] + arguments)
            #expect(result.status == status && result.stderr == line + "\n", "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        for name in ["../users-b/x", "a/b", "Alice", "a.b"] {
            let result = try await cli.run("users", "move", name, "--to", cli.path("users-b"))
            #expect(result.status == 64, "\(name): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("user's name"), "\(name): \(result.stderr)")
        }
        let withUser = try await cli.run("--user", "alice", "users", "move", "alice", "--to", cli.path("users-b"))
        #expect(withUser.status == 64, "\(withUser.stderr)")
        #expect(try Self.tree(cli.path("users-a")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")) == ["bob"])
        #expect(!FileManager.default.fileExists(atPath: cli.path("nowhere")))
    }

    /// A move that fails half-way (a file that cannot be copied: a FIFO) puts the user back as they were and
    /// leaves nothing in the other root.
    @Test func aMoveThatFailsHalfWayPutsTheUserBack() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let file = try cli.write("alice.vcf", UsersCommandTests.vcard([("a1", "Ann Archer")]))
        #expect(try await cli.run("--user", "alice", "import", file).status == 0)
        try #require(mkfifo(cli.path("users-a/alice/pipe"), 0o600) == 0)
        let failed = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        let aside = try #require(Self.aside(failed.stderr), "\(failed.stderr)")
        let said = "Error: cannot read \(cli.path("users-a"))/\(aside)/pipe: it is neither a file nor a folder, so it is not copied\n"
        #expect(failed.status == 1 && failed.stderr == said, "\(failed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")) == ["alice"], "put back under her name")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")).isEmpty, "nothing left in the other root")
        #expect(try await UsersCommandTests.names(cli, "--user", "alice", "people", "--json") == ["Ann Archer"])
    }

    /// The name of the folder a move set aside (`.alice.moving-XXXXXX`), as an error names it.
    static func aside(_ text: String) -> String? {
        text.split(separator: "/").first { $0.hasPrefix(".alice.moving-") }.map(String.init)
    }

    /// `birthdays --user alice run` is her own daemon: she is not moved from under it.
    @Test func aUserWhoseOwnDaemonRunsIsNotMoved() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        var environment = cli.environment
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        let daemon = try TestProcess([try CLIProcess.binary(), "--user", "alice", "run"], environment: environment, name: "alice-run")
        defer { daemon.stop() }
        try await daemon.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        let refused = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        #expect(
            refused.status == 1
                && refused.stderr.hasPrefix("Error: birthdays run is running for 'alice' (pid \(daemon.pid)); stop it first, then move the user"),
            "\(refused.stderr)"
        )
        #expect(FileManager.default.fileExists(atPath: cli.path("users-a/alice/birthdays.sqlite")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")).isEmpty)
    }

    /// Two `run --all-users`, one over each root, on a pretend day: alice's
    /// reminder (09:00) is due after she moves from the first to the second
    /// (35 s of pretend time after both daemons start), and leaves
    /// once; moved back after it, the first daemon (which would send it late
    /// on the same day) finds it in her ledger and sends nothing. Bob, on the
    /// second root all along, is reminded as ever.
    @Test func aUserMovedMidDayBetweenTwoDaemonsIsRemindedExactlyOnce() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let there = Self.on(cli, "users-b")
        try await AllUsersDaemonTests.addUser("alice", friend: "Ann Archer", in: cli)
        try await AllUsersDaemonTests.addUser("bob", friend: "Ben Brook", in: there)
        let first = try Self.daemon(cli, now: "2026-03-10T08:59:25+01:00", name: "first")
        defer { first.stop() }
        let second = try Self.daemon(there, now: "2026-03-10T08:59:25+01:00", name: "second")
        defer { second.stop() }
        let passes = { (daemon: TestProcess, user: String) in AllUsersDaemonTests.lines(daemon.stderr, with: "user=\(user) ", "next pass").count }
        try await first.waitUntil("alice's first pass") { _ in passes(first, "alice") >= 1 }
        try await second.waitUntil("bob's first pass") { _ in passes(second, "bob") >= 1 }

        let moved = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        #expect(moved.status == 0, "\(moved.stderr)")
        try await first.waitUntil("alice dropped") { !AllUsersDaemonTests.lines($0.stderr, with: "user=alice ", "user no longer served").isEmpty }
        try await second.waitUntil("alice served by the second") { _ in passes(second, "alice") >= 1 }
        try await second.waitUntil("bob's delivery") { $0.stdout.contains("user=bob reminder delivered") }
        // The second sends it (on a machine so loaded that the move ended after 09:00, the first sent it before
        // letting her go, and the second found it in her ledger).
        try await eventually("alice's delivery") { (first.stdout + second.stdout).contains("user=alice reminder delivered") }

        // Back again, after the reminder's time: the ledger came along, so nothing is sent late.
        let before = passes(first, "alice")
        let back = try await there.run("users", "move", "alice", "--to", cli.path("users-a"))
        #expect(back.status == 0, "\(back.stderr)")
        try await second.waitUntil("alice dropped") { !AllUsersDaemonTests.lines($0.stderr, with: "user=alice ", "user no longer served").isEmpty }
        try await first.waitUntil("alice served again") { _ in passes(first, "alice") > before }

        first.signal(SIGTERM)
        second.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        #expect(try await second.waitForExit() == 0)
        let sent = first.stdout.occurrences(of: "user=alice reminder delivered") + second.stdout.occurrences(of: "user=alice reminder delivered")
        #expect(sent == 1, "alice's reminder left once: \(first.stdout) / \(second.stdout)")
        #expect(second.stdout.occurrences(of: "user=bob reminder delivered") == 1)
        // A reminder the engine gives up on is said on standard error ("… were not resent (at most once)").
        #expect(!first.stderr.contains("not resent") && !second.stderr.contains("not resent"), "nothing missed across the moves")
        let ledger = try AppDatabase.openFile(at: cli.path("users-a/alice/birthdays.sqlite"), create: false)
        #expect(try await ledger.deliveries(updatedSince: .distantPast).map(\.state.rawValue) == ["delivered"])
        for (root, users) in [("users-a", ["alice"]), ("users-b", ["bob"])] {
            // The daemons' own lock, and no folder left behind by either move.
            #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path(root)).sorted() == [".all-users.lock"] + users)
        }
    }
}
