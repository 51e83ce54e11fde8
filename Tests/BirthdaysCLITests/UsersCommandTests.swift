import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Many people on one server, through the real binary: `users add|list|remove`
/// make and take away one folder per user (0700, files 0600), `--user NAME`
/// and `BIRTHDAYS_USER` choose that user's database and secrets before or
/// after the command's name, and nothing one user does reaches another's
/// folder; a bad name is a usage error, and a link planted as or in a
/// user's folder is refused.
@Suite(.timeLimit(.minutes(10)))
struct UsersCommandTests {
    /// A test folder whose users root is `users/` in it (`BIRTHDAYS_USERS_DIR`).
    static func server() throws -> CLIProcess {
        var cli = try CLIProcess()
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users")
        return cli
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    static func names(_ cli: CLIProcess, _ arguments: String...) async throws -> [String] {
        let result = try await cli.run(arguments)
        try #require(result.status == 0, "\(arguments): \(result.stderr)")
        return try CLIProcess.array(result.stdout).compactMap { $0["name"] as? String }.sorted()
    }

    static func vcard(_ people: [(uid: String, name: String)]) -> String {
        people.map { "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\($0.uid)\r\nFN:\($0.name)\r\nBDAY:1990-04-02\r\nEND:VCARD\r\n" }.joined()
    }

    // MARK: - users add, list, remove

    @Test func usersAreAddedListedAndRemovedEachInAPrivateFolder() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let root = cli.path("users")
        let empty = try await cli.run("users", "list")
        #expect(empty.status == 0 && empty.stdout.hasPrefix("No users yet in \(root)."), "\(empty.stdout)\(empty.stderr)")

        for name in ["bob", "alice"] {
            let added = try await cli.run("users", "add", name)
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("Added \(name) (\(root)/\(name))"))
        }
        #expect(Self.mode(root) == 0o700)
        for name in ["alice", "bob"] {
            #expect(Self.mode(root + "/" + name) == 0o700)
            #expect(Self.mode(root + "/" + name + "/birthdays.sqlite") == 0o600)
        }
        let taken = try await cli.run("users", "add", "alice")
        #expect(taken.status == 1 && taken.stderr.contains("a user called 'alice' already exists"), "\(taken.stderr)")

        #expect(try await Self.names(cli, "users", "list", "--json") == ["alice", "bob"])
        let listed = try CLIProcess.array(try await cli.run("users", "list", "--json").stdout)
        #expect(listed.first?["database"] as? String == root + "/alice/birthdays.sqlite")
        let table = try await cli.run("users")
        #expect(table.stdout.hasPrefix("NAME") && table.stdout.contains("alice  \(root)/alice"), "\(table.stdout)")

        let removed = try await cli.run("users", "remove", "bob")
        #expect(removed.status == 0 && removed.stdout == "Removed bob and their data.\n", "\(removed.stdout)\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/bob"))

        #expect(try await cli.run("--user", "alice", "import", try cli.write("a.vcf", Self.vcard([("a1", "Ann Archer")]))).status == 0)
        let kept = try await cli.run("users", "remove", "alice", "--keep-data")
        #expect(kept.status == 0 && kept.stdout == "Removed alice; their data is kept in \(root)/alice.removed.\n", "\(kept.stdout)\(kept.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/alice.removed/birthdays.sqlite"))
        #expect(try await Self.names(cli, "users", "list", "--json") == [])
        let gone = try await cli.run("--user", "alice", "people")
        #expect(gone.status == 1 && gone.stderr == "Error: no user is called 'alice' (add one with: birthdays users add alice)\n", "\(gone.stderr)")

        #expect(try await cli.run("users", "add", "alice").status == 0)
        #expect(try await Self.names(cli, "--user", "alice", "people", "--json") == [], "a new user starts empty")
        let again = try await cli.run("users", "remove", "alice", "--keep-data")
        #expect(again.stdout.contains("\(root)/alice.removed-2."), "\(again.stdout)")
        #expect(try await cli.run("users", "remove", "alice").status == 1)
    }

    @Test func theDefaultRootIsBesideTheDefaultDatabase() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "carol").status == 0)
        let root = cli.path(".local/share/birthdays/users")
        #expect(Self.mode(root) == 0o700 && Self.mode(root + "/carol/birthdays.sqlite") == 0o600)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "the single user's database is not touched")
        #expect(!FileManager.default.fileExists(atPath: cli.path(".local/share/birthdays/birthdays.sqlite")), "nor the default one beside the root")
    }

    @Test(arguments: ["../x", "a.b", "", String(repeating: "x", count: 33), "Alice", "a/b"])
    func aBadNameIsAUsageErrorAndMakesNothing(_ name: String) async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        for arguments in [["users", "add", name], ["users", "remove", name], ["--user", name, "people"], ["people", "--user=" + name]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            let first = result.stderr.split(separator: "\n").first ?? ""
            // `--user=` with nothing after it is ArgumentParser's own "Missing value".
            #expect(first.hasPrefix("Error: ") && (first.contains("user's name") || name.isEmpty), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.path("users")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("x")))
    }

    // MARK: - --user and BIRTHDAYS_USER

    @Test func theUserIsChosenBeforeOrAfterTheCommandOrByTheEnvironment() async throws {
        var cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let file = try cli.write("alice.vcf", Self.vcard([("a1", "Ann Archer"), ("a2", "Arthur Ames")]))
        let before = try await cli.run("--user", "alice", "import", file)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(try await Self.names(cli, "people", "--json", "--user", "alice") == ["Ann Archer", "Arthur Ames"])
        #expect(try await Self.names(cli, "people", "--user=alice", "--json") == ["Ann Archer", "Arthur Ames"])
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "--user beats BIRTHDAYS_DATABASE")

        let both = try await cli.run("--user", "alice", "--database", cli.databasePath, "people")
        #expect(both.status == 64 && both.stderr.hasPrefix("Error: --user and --database both choose a database"), "\(both.stderr)")

        cli.extraEnvironment["BIRTHDAYS_USER"] = "alice"
        let twoVariables = try await cli.run("people")
        #expect(twoVariables.status == 64 && twoVariables.stderr.hasPrefix("Error: BIRTHDAYS_USER and BIRTHDAYS_DATABASE"), "\(twoVariables.stderr)")
        #expect(try await cli.run("people", "--database", cli.databasePath).status == 1, "--database beats BIRTHDAYS_USER: a missing file")
        cli.extraEnvironment["BIRTHDAYS_DATABASE"] = ""
        #expect(try await Self.names(cli, "people", "--json") == ["Ann Archer", "Arthur Ames"])
        #expect(try await cli.run("channels", "add", "ntfy", "http://127.0.0.1:9/alice-topic", "--name", "phone").status == 0)
        #expect(Self.mode(cli.path("users/alice/birthdays.sqlite.secrets")) == 0o700)
        #expect(Self.mode(cli.path("users/alice/birthdays.sqlite.secrets/phone.ntfy")) == 0o600)

        cli.extraEnvironment["BIRTHDAYS_USER"] = "nobody"
        let unknown = try await cli.run("upcoming")
        #expect(unknown.status == 1 && unknown.stderr == "Error: no user is called 'nobody' (add one with: birthdays users add nobody)\n")
        #expect(!FileManager.default.fileExists(atPath: cli.path("users/nobody")), "an unknown user is not made")
    }

    @Test func twoUsersEachSeeOnlyTheirOwnPeopleAndChannels() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        for name in ["alice", "bob"] { #expect(try await cli.run("users", "add", name).status == 0) }
        let aliceFile = try cli.write("alice.vcf", Self.vcard([("a1", "Ann Archer"), ("same", "Sam Same")]))
        let bobFile = try cli.write("bob.vcf", Self.vcard([("b1", "Ben Brook"), ("same", "Sam Same")]))
        #expect(try await cli.run("--user", "alice", "import", aliceFile).status == 0)
        #expect(try await cli.run("import", bobFile, "--user", "bob").status == 0)
        for (user, topic) in [("alice", "alice-topic"), ("bob", "bob-topic")] {
            let added = try await cli.run("--user", user, "channels", "add", "ntfy", "http://127.0.0.1:9/\(topic)", "--name", "phone")
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try await cli.run("--user", "bob", "channels", "add", "ntfy", "http://127.0.0.1:9/bob-2", "--name", "pager").status == 0)

        #expect(try await Self.names(cli, "--user", "alice", "people", "--json") == ["Ann Archer", "Sam Same"])
        #expect(try await Self.names(cli, "--user", "bob", "people", "--json") == ["Ben Brook", "Sam Same"])
        #expect(try await Self.names(cli, "--user", "alice", "channels", "list", "--json").filter { $0 == "phone" || $0 == "pager" } == ["phone"])
        #expect(
            try await Self.names(cli, "--user", "bob", "channels", "list", "--json").filter { $0 == "phone" || $0 == "pager" } == ["pager", "phone"]
        )
        let aliceSecret = try String(contentsOfFile: cli.path("users/alice/birthdays.sqlite.secrets/phone.ntfy"), encoding: .utf8)
        let bobSecret = try String(contentsOfFile: cli.path("users/bob/birthdays.sqlite.secrets/phone.ntfy"), encoding: .utf8)
        #expect(aliceSecret.contains("alice-topic") && bobSecret.contains("bob-topic"))
        // After an import and a channel: every folder in a user's is 0700, every file 0600.
        let walk = try #require(FileManager.default.enumerator(atPath: cli.path("users/alice")))
        var seen = 0
        for case let entry as String in walk {
            var info = stat()
            #expect(lstat(cli.path("users/alice/" + entry), &info) == 0)
            #expect(info.st_mode & 0o777 == (info.st_mode & S_IFMT == S_IFDIR ? 0o700 : 0o600), "\(entry)")
            seen += 1
        }
        #expect(seen >= 3, "the database, its secrets folder and a secret")

        #expect(try await cli.run("--user", "bob", "channels", "remove", "phone").status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.path("users/alice/birthdays.sqlite.secrets/phone.ntfy")), "bob's remove leaves alice's")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nobody's commands touched the single user's database")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users")).sorted() == ["alice", "bob"])
    }

    /// `birthdays --user alice run` is Alice's daemon, with its lock in her
    /// folder; her folder is not removed from under it.
    @Test func aUserWhoseDaemonRunsIsNotRemoved() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        var environment = cli.environment
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        let daemon = try TestProcess([try CLIProcess.binary(), "--user", "alice", "run"], environment: environment, name: "alice-run")
        defer { daemon.stop() }
        try await daemon.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        #expect(FileManager.default.fileExists(atPath: cli.path("users/alice/birthdays.sqlite.lock")))
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath + ".lock"))

        let refused = try await cli.run("users", "remove", "alice")
        #expect(refused.status == 1 && refused.stderr.hasPrefix("Error: birthdays run is running for 'alice' (pid "), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("; stop it first, then remove the user\n"))
        #expect(FileManager.default.fileExists(atPath: cli.path("users/alice/birthdays.sqlite")))
        daemon.stop()
        #expect(try await daemon.waitForExit() == 0)
        #expect(try await cli.run("users", "remove", "alice").status == 0)
    }

    /// `birthdays --user alice serve` is Alice's feed server: her folder is
    /// not removed from under it (it would keep serving, then unlink a new
    /// Alice's record as it stops).
    @Test func aUserWhoseFeedIsServedIsNotRemoved() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let port = try Loopback.freePort()
        let server = try TestProcess(
            [try CLIProcess.binary(), "--user", "alice", "serve", "--port", String(port)],
            environment: cli.environment,
            directory: cli.directory,
            name: "alice-serve"
        )
        defer { server.stop() }
        let healthz = "http://127.0.0.1:\(port)/healthz"
        try await server.waitUntil("the server") { _ in
            await (try? PageCommandTests.curl(["-o", "/dev/null", "-w", "%{http_code}", healthz]))?.stdout == "200"
        }
        for arguments in [["users", "remove", "alice"], ["users", "remove", "alice", "--keep-data"]] {
            let refused = try await cli.run(arguments)
            #expect(
                refused.status == 1
                    && refused.stderr == "Error: birthdays serve is serving 'alice' at 127.0.0.1:\(port); stop it first, then remove the user\n",
                "\(refused.stderr)"
            )
        }
        #expect(FileManager.default.fileExists(atPath: cli.path("users/alice/birthdays.sqlite")))
        server.stop()
        #expect(try await server.waitForExit() == 0)
        #expect(try await cli.run("users", "remove", "alice").status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cli.path("users")) == [],
            "nothing is left of her, not even a folder renamed to be deleted"
        )
    }

    /// What a daemon started for a user runs (`run --user NAME`, or an
    /// older unit's `run --database` of the user's database) stops with one
    /// line once the user is removed: no command makes a database in the
    /// users root, only `users add` does, so a removed user never reappears.
    @Test func aRemovedUsersDaemonNeverMakesThemAgain() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let root = cli.path("users")
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
        let unit = try await cli.run("--user", "alice", "service", "install", "--dry-run")
        #expect(unit.stdout.contains("\nEnvironment=BIRTHDAYS_USERS_DIR=\(root)\nExecStart=\(binary) run --user alice\n"), "\(unit.stdout)")
        // A path of the user's folder names the user, the same unit as --user.
        let byPath = try await cli.run("--database", root + "/alice/birthdays.sqlite", "service", "install", "--dry-run")
        #expect(byPath.stdout == unit.stdout)
        #expect(try await cli.run("users", "remove", "alice").status == 0)

        let gone = "Error: no user is called 'alice' (add one with: birthdays users add alice)\n"
        let card = try cli.write("a.vcf", Self.vcard([("a1", "Ann Archer")]))
        try FileManager.default.createSymbolicLink(atPath: cli.path("to-users"), withDestinationPath: root)
        for database in [root + "/alice/birthdays.sqlite", root + "/./bob/../alice//birthdays.sqlite", cli.path("to-users/alice/birthdays.sqlite")] {
            let imported = try await cli.run("--database", database, "import", card)
            #expect(imported.status == 1 && imported.stderr == gone, "\(database): \(imported.stderr)")
        }
        for arguments in [["--database", root + "/alice/birthdays.sqlite", "run"], ["--user", "alice", "run"]] {
            let run = try await cli.run(arguments)
            #expect(run.status == 1 && run.stderr == gone, "\(arguments): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == [], "alice is not made again")
        #expect(try await Self.names(cli, "users", "list", "--json") == [])

        // Added again, she is found by path as by name; a kept folder is no user's and is read as any file.
        #expect(try await cli.run("users", "add", "alice").status == 0)
        #expect(try await cli.run("--database", cli.path("to-users/alice/birthdays.sqlite"), "import", card).status == 0)
        #expect(try await Self.names(cli, "--user", "alice", "people", "--json") == ["Ann Archer"])
        #expect(try await cli.run("users", "remove", "alice", "--keep-data").status == 0)
        #expect(try await Self.names(cli, "--database", root + "/alice.removed/birthdays.sqlite", "people", "--json") == ["Ann Archer"])
    }

    /// Whoever may write the users root may plant or swap a user's folder:
    /// a root other accounts may write, or another account's, is refused
    /// with one line by every command that uses it; a new root is 0700.
    @Test func aUsersRootOthersMayWriteIsRefused() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let root = cli.path("users")
        #expect(try await cli.run("users", "add", "alice").status == 0)
        #expect(Self.mode(root) == 0o700)
        #expect(chmod(root, 0o777) == 0)
        let writable =
            "Error: the users root \(root) is not used: other accounts may write it (mode 777; chmod go-w \(root)); "
            + "it must belong to the account birthdays runs as and be written by it alone\n"
        for arguments in [["users", "list"], ["users", "add", "bob"], ["users", "remove", "alice"], ["--user", "alice", "people"]] {
            let refused = try await cli.run(arguments)
            #expect(refused.status == 1 && refused.stderr == writable, "\(arguments): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/bob"))
        #expect(chmod(root, 0o755) == 0)
        #expect(try await cli.run("--user", "alice", "people").status == 0, "readable by others is fine")
        #expect(Self.mode(root + "/alice") == 0o700)
        #expect(chmod(root + "/alice", 0o770) == 0)
        let folder = try await cli.run("--user", "alice", "people")
        #expect(
            folder.status == 1
                && folder.stderr
                    == "Error: other accounts may write \(root)/alice; a user's folder is written by this account alone (chmod 700 \(root)/alice)\n",
            "\(folder.stderr)"
        )
        #expect(chmod(root + "/alice", 0o700) == 0)
        // Another account's root (the tests run as root, which may give it away).
        if geteuid() == 0 {
            #expect(chown(root, 65534, 65534) == 0)
            let owned = try await cli.run("users", "list")
            #expect(
                owned.status == 1 && owned.stderr.hasPrefix("Error: the users root \(root) is not used: it belongs to another account;"),
                "\(owned.stderr)"
            )
        }
    }

    // MARK: - Links

    @Test func aLinkPlantedAsOrInAUsersFolderIsRefused() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        for name in ["alice", "bob"] { #expect(try await cli.run("users", "add", name).status == 0) }
        #expect(try await cli.run("--user", "alice", "import", try cli.write("a.vcf", Self.vcard([("a1", "Ann Archer")]))).status == 0)
        let alice = cli.path("users/alice")
        try FileManager.default.createSymbolicLink(atPath: cli.path("users/mallory"), withDestinationPath: alice)

        let planted = try await cli.run("--user", "mallory", "people", "--json")
        #expect(planted.status == 1, "\(planted.stdout)")
        #expect(
            planted.stderr
                == "Error: \(cli.path("users/mallory")) is a symbolic link; a user's folder is never one and holds none, so it is not used (remove the link)\n"
        )
        #expect(try await Self.names(cli, "users", "list", "--json") == ["alice", "bob"], "a link is no user")

        let bobDatabase = cli.path("users/bob/birthdays.sqlite")
        try FileManager.default.removeItem(atPath: bobDatabase)
        try FileManager.default.createSymbolicLink(atPath: bobDatabase, withDestinationPath: alice + "/birthdays.sqlite")
        let inside = try await cli.run("people", "--user", "bob")
        #expect(inside.status == 1 && inside.stderr.hasPrefix("Error: \(bobDatabase) is a symbolic link"), "\(inside.stderr)")

        let secret = alice + "/birthdays.sqlite.secrets/phone.ntfy"
        try FileManager.default.createDirectory(atPath: alice + "/birthdays.sqlite.secrets", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: secret, withDestinationPath: cli.path("users/bob/birthdays.sqlite.secrets/phone.ntfy"))
        let inSecrets = try await cli.run("--user", "alice", "channels", "list")
        #expect(inSecrets.status == 1 && inSecrets.stderr.hasPrefix("Error: \(secret) is a symbolic link"), "\(inSecrets.stderr)")
        try FileManager.default.removeItem(atPath: secret)

        #expect(try await cli.run("users", "remove", "mallory").status == 0)
        #expect(try await cli.run("users", "remove", "bob").status == 0)
        #expect(try await Self.names(cli, "--user", "alice", "people", "--json") == ["Ann Archer"], "removing the links left alice whole")
    }
}
