import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays run --all-users` and `deliver --once --all-users` through the
/// real binary, the log channel and a flowing BIRTHDAYS_NOW: one process
/// serves every user of the users root from their own database, follows the
/// root as users are added and removed, and one user's broken database
/// stops no one else's reminder.
@Suite(.timeLimit(.minutes(10)))
struct AllUsersDaemonTests {
    /// A test folder whose users root is `users/` in it; `BIRTHDAYS_DATABASE`
    /// (set by ``CLIProcess``) names a single user's database that `--all-users` must not read.
    static func server() throws -> CLIProcess {
        var cli = try CLIProcess()
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users")
        return cli
    }

    /// Adds user `name` with one friend born 1990-03-10 (their day-of
    /// reminder is due at 09:00 Berlin on 2026-03-10), the log channel and
    /// notifications on.
    static func addUser(_ name: String, friend: String, in cli: CLIProcess) async throws {
        let added = try await cli.run("users", "add", name)
        try #require(added.status == 0, "\(added.stderr)")
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(name)-friend\r\nFN:\(friend)\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n"
        let file = try cli.write("\(name).vcf", card)
        for arguments in [
            ["import", file], ["settings", "set", "channels", "log"], ["settings", "set", "day-before", "off"], ["notifications", "enable"],
        ] {
            let result = try await cli.run(["--user", name] + arguments)
            try #require(result.status == 0, "\(name) \(arguments): \(result.stderr)")
        }
    }

    /// A user whose database is not a database.
    static func addBrokenUser(_ name: String, in cli: CLIProcess) async throws {
        let added = try await cli.run("users", "add", name)
        try #require(added.status == 0, "\(added.stderr)")
        let database = cli.path("users/\(name)/birthdays.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: database))
    }

    /// `birthdays run --all-users` in the background, its clock starting at `now`, logging at info.
    static func daemon(_ cli: CLIProcess, now: String) throws -> TestProcess {
        var at = cli
        at.now = now
        var environment = at.environment
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        return try TestProcess(
            [try CLIProcess.binary(), "run", "--all-users"],
            environment: environment,
            directory: cli.directory,
            name: "all-users"
        )
    }

    /// The public id (as the log channel shows it) of user `name`'s friend's day-of reminder.
    static func publicID(_ cli: CLIProcess, user name: String) async throws -> String {
        try await AppDatabase.openFile(at: cli.path("users/\(name)/birthdays.sqlite"), create: false).publicIDs().reminder(
            "\(name)-friend-birthday-dayof"
        )
    }

    static func ledger(_ cli: CLIProcess, user name: String) async throws -> [String] {
        try await AppDatabase.openFile(at: cli.path("users/\(name)/birthdays.sqlite"), create: false)
            .deliveries(updatedSince: .distantPast).map(\.state.rawValue)
    }

    /// The lines of `text` that hold every one of `words`.
    static func lines(_ text: String, with words: String...) -> [Substring] {
        text.split(separator: "\n").filter { line in words.allSatisfy { line.contains($0) } }
    }

    // MARK: - run --all-users

    @Test func twoUsersEachGetTheirOwnReminderExactlyOnce() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        try await Self.addUser("bob", friend: "Ben Brook", in: cli)
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:59:55+01:00")
        try await daemon.waitUntil("both deliveries") {
            $0.stdout.contains("user=alice reminder delivered") && $0.stdout.contains("user=bob reminder delivered")
        }
        for user in ["alice", "bob"] {
            try await daemon.waitUntil("\(user)'s pass after the delivery") { Self.lines($0.stderr, with: "user=\(user) ", "next pass").count >= 2 }
        }
        // SIGHUP lists the users again and makes each pass again: nothing more is sent.
        let passes = ["alice", "bob"].map { Self.lines(daemon.stderr, with: "user=\($0) ", "delivery pass").count }
        daemon.signal(SIGHUP)
        for (user, before) in zip(["alice", "bob"], passes) {
            try await daemon.waitUntil("\(user)'s pass after SIGHUP") { Self.lines($0.stderr, with: "user=\(user) ", "delivery pass").count > before }
        }

        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 2)
        for user in ["alice", "bob"] {
            let id = try await Self.publicID(cli, user: user)
            #expect(daemon.stdout.contains("user=\(user) reminder delivered id=\(id) kind=birthday when=day-of fire_at=2026-03-10T09:00:00+01:00"))
            #expect(try await Self.ledger(cli, user: user) == ["delivered"])
        }
        let logs = daemon.stdout + daemon.stderr
        #expect(!logs.contains("Ann Archer") && !logs.contains("Ben Brook"), "no person's name in the logs")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "BIRTHDAYS_DATABASE is not read by --all-users")

        let second = try await cli.run(at: "2026-03-10T09:01:00+01:00", "run", "--all-users")
        #expect(second.status == 1, "\(second.stderr)")
        #expect(
            second.stderr.contains("birthdays run --all-users is already running for \(cli.path("users")) (pid \(daemon.pid))"),
            "\(second.stderr)"
        )
        let one = try await cli.run(at: "2026-03-10T09:01:00+01:00", "--user", "alice", "run")
        #expect(one.status == 1 && one.stderr.contains("is already running"), "alice's lock is the all-users daemon's: \(one.stderr)")

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("birthdays run --all-users stopped"))
        #expect(Self.lines(daemon.stderr, with: "birthdays run stopped").count == 2)
        #expect(!daemon.stderr.contains("trying again later"), "a user stopped by the shutdown is no failure")
        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 2)
    }

    @Test func aUserAddedWhileRunningIsServedAndOneRemovedIsDropped() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        try await Self.addUser("bob", friend: "Ben Brook", in: cli)
        // Two minutes before the reminders: room for the commands below on a loaded machine (bob's
        // removal must be heard before 09:00, or his reminder goes).
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:58:00+01:00")
        for user in ["alice", "bob"] {
            try await daemon.waitUntil("\(user)'s first pass") { Self.lines($0.stderr, with: "user=\(user) ", "next pass").count >= 1 }
        }

        // users remove is not refused by the all-users daemon, which holds bob's lock: it drops him.
        let removed = try await cli.run("users", "remove", "bob")
        #expect(removed.status == 0, "\(removed.stderr)")
        try await daemon.waitUntil("bob dropped") { !Self.lines($0.stderr, with: "user=bob ", "user no longer served").isEmpty }
        #expect(Self.lines(daemon.stderr, with: "user=bob ", "birthdays run stopped").count == 1)
        #expect(Self.lines(daemon.stderr, with: "user=bob ", "trying again later").isEmpty, "a removed user is no failure to retry")

        try await Self.addUser("carol", friend: "Cleo Cole", in: cli)
        try await daemon.waitUntil("alice's and carol's deliveries", seconds: 300) {
            $0.stdout.contains("user=alice reminder delivered") && $0.stdout.contains("user=carol reminder delivered")
        }
        let carolID = try await Self.publicID(cli, user: "carol")
        #expect(daemon.stdout.contains("user=carol reminder delivered id=\(carolID) "))
        // The log channel says "delivered" before the ledger commits it: wait for the commit.
        try await daemon.waitUntil("carol's delivery in her ledger") { _ in (try? await Self.ledger(cli, user: "carol")) == ["delivered"] }
        #expect(Self.lines(daemon.stderr, with: "birthdays run --all-users started").count == 1, "served without a restart")
        #expect(!daemon.stderr.contains("cannot serve user"), "a user being added is never found half-made")

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(!daemon.stdout.contains("user=bob"), "a removed user's reminder is not sent")
        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 2)
    }

    /// Every user's database watch shares one inotify instance (Linux counts
    /// instances per account, 128 by default): 50 users cost one, beside the
    /// users root's and the wake monitor's.
    @Test func fiftyUsersShareOneInotifyInstance() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let names = (0..<50).map { String(format: "u%02d", $0) }
        for name in names {
            let added = try await cli.run("users", "add", name)
            try #require(added.status == 0, "\(added.stderr)")
        }
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:00:00+01:00")
        defer { daemon.stop() }
        try await daemon.waitUntil("every user's first pass", seconds: 120) { daemon in
            names.allSatisfy { !Self.lines(daemon.stderr, with: "user=\($0) ", "next pass").isEmpty }
        }
        let links = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\($0)")
        }
        #expect(links.filter { $0 == "anon_inode:inotify" }.count == 3, "\(links.filter { $0.hasPrefix("anon_inode") })")
    }

    /// Each user's database is kept open by one connection, not by a pool
    /// of a writer and its readers: every connection keeps its own schema,
    /// page cache and files for as long as the daemon runs, so a pool a
    /// user cost the many-users daemon three times the memory at rest.
    @Test func eachUsersDatabaseIsOpenedOnceForReadsAndWrites() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let names = ["ana", "ben", "cy"]
        for name in names { try await Self.addUser(name, friend: "Friend \(name)", in: cli) }
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:59:55+01:00")
        defer { daemon.stop() }
        try await daemon.waitUntil("every delivery") { daemon in names.allSatisfy { daemon.stdout.contains("user=\($0) reminder delivered") } }
        for name in names {
            try await daemon.waitUntil("\(name)'s pass after the delivery") { Self.lines($0.stderr, with: "user=\(name) ", "next pass").count >= 2 }
        }
        let links = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\($0)")
        }
        for name in names {
            let database = cli.path("users/\(name)/birthdays.sqlite")
            #expect(links.filter { $0 == database }.count == 1, "\(name): \(links.filter { $0.hasPrefix(database) })")
            #expect(links.filter { $0 == database + "-wal" }.count == 1, "\(name): \(links.filter { $0.hasPrefix(database) })")
        }
    }

    /// Whether every thread of process `pid` is stopped (SIGSTOP).
    static func stopped(_ pid: pid_t) -> Bool {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !tasks.isEmpty else { return false }
        return tasks.allSatisfy { task in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let state = stat.split(separator: ")").last?.split(separator: " ").first
            else { return false }
            return state == "T" || state == "t"
        }
    }

    /// Bob is removed and added again while the daemon is stopped, so the
    /// one listing after it finds "bob" as before, but in another folder:
    /// the old bob's daemon stops (his reminder is never sent) and the new
    /// bob is served.
    @Test func aUserRemovedAndAddedAgainBetweenTwoListingsIsServedFromTheNewFolder() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        try await Self.addUser("bob", friend: "Ben Brook", in: cli)
        // Two minutes before the reminders: the six commands below run while the daemon is stopped, and 09:00 must not pass meanwhile.
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:58:00+01:00")
        for user in ["alice", "bob"] {
            try await daemon.waitUntil("\(user)'s first pass") { Self.lines($0.stderr, with: "user=\(user) ", "next pass").count >= 1 }
        }
        let oldID = try await Self.publicID(cli, user: "bob")

        daemon.signal(SIGSTOP)
        try await eventually("the daemon stopped") { Self.stopped(daemon.pid) }
        do {
            defer { daemon.signal(SIGCONT) }
            let removed = try await cli.run("users", "remove", "bob")
            try #require(removed.status == 0, "\(removed.stderr)")
            try await Self.addUser("bob", friend: "Bea Bell", in: cli)
        }
        let newID = try await Self.publicID(cli, user: "bob")
        try #require(newID != oldID)
        try await daemon.waitUntil("alice's and the new bob's deliveries", seconds: 300) {
            $0.stdout.contains("user=alice reminder delivered") && $0.stdout.contains("user=bob reminder delivered id=\(newID) ")
        }
        // The log channel says "delivered" before the ledger commits it: wait for the commit.
        try await daemon.waitUntil("the new bob's delivery in his ledger") { _ in (try? await Self.ledger(cli, user: "bob")) == ["delivered"] }

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(!daemon.stdout.contains(oldID), "the removed bob's reminder is not sent")
        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 2)
        #expect(Self.lines(daemon.stderr, with: "birthdays run --all-users started").count == 1)
    }

    @Test func aUserWithABrokenDatabaseDoesNotStopAnothersReminder() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addBrokenUser("bob", in: cli)
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:59:55+01:00")
        try await daemon.waitUntil("alice's delivery") { $0.stdout.contains("user=alice reminder delivered") }
        try await daemon.waitUntil("bob's failure") { !Self.lines($0.stderr, with: "user=bob", "cannot serve user").isEmpty }
        let failure = try #require(Self.lines(daemon.stderr, with: "user=bob", "cannot serve user").first)
        #expect(failure.contains("retry_in=5s"), "\(failure)")
        // The log channel says "delivered" before the ledger commits it: wait for the commit.
        try await daemon.waitUntil("alice's delivery in her ledger") { _ in (try? await Self.ledger(cli, user: "alice")) == ["delivered"] }

        // Bob's database is mended (made in another root, moved over the broken one): the retry serves him.
        var staging = cli
        staging.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("staging")
        try await Self.addUser("bob", friend: "Ben Brook", in: staging)
        // With its write-ahead log, which holds the last commands' writes (a command leaves it, unmerged): the log
        // first, so the daemon never opens the mended file without it (a log beside the broken file opens nothing).
        let mended = cli.path("staging/bob/birthdays.sqlite")
        if FileManager.default.fileExists(atPath: mended + "-wal") {
            #expect(rename(mended + "-wal", cli.path("users/bob/birthdays.sqlite-wal")) == 0)
        }
        try? FileManager.default.removeItem(atPath: cli.path("users/bob/birthdays.sqlite-shm"))
        #expect(rename(mended, cli.path("users/bob/birthdays.sqlite")) == 0)
        try await daemon.waitUntil("bob's delivery after the retry") { $0.stdout.contains("user=bob reminder delivered") }
        #expect(Self.lines(daemon.stderr, with: "birthdays run --all-users started").count == 1)

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0, "a user who cannot be served is not fatal")
    }

    /// Aaron's command channel hangs until the test lets it go: Alice's
    /// reminder of the same instant is delivered meanwhile, his still being sent.
    @Test func aHangingChannelOfOneUserDoesNotDelayAnothersReminder() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addUser("aaron", friend: "Abe Ames", in: cli)
        let release = cli.path("release")
        for (key, value) in [("channels", "command"), ("command", "while [ ! -e '\(release)' ]; do sleep 0.1; done")] {
            let set = try await cli.run("--user", "aaron", "settings", "set", key, value)
            try #require(set.status == 0, "\(set.stderr)")
        }
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        let daemon = try Self.daemon(cli, now: "2026-03-10T08:59:55+01:00")
        try await daemon.waitUntil("alice's delivery") { $0.stdout.contains("user=alice reminder delivered") }
        // Both are due at 09:00: aaron's may not be claimed yet when alice's is delivered, and then hangs until released.
        try await daemon.waitUntil("aaron's reminder being sent") { _ in (try? await Self.ledger(cli, user: "aaron")) == ["sending"] }
        #expect(!daemon.stdout.contains("user=aaron reminder delivered"), "aaron's channel still hangs")
        _ = try cli.write("release", "")
        try await daemon.waitUntil("aaron's delivery") { _ in (try? await Self.ledger(cli, user: "aaron")) == ["delivered"] }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    // MARK: - deliver --once --all-users

    @Test func deliverOnceDeliversEveryUserAndReportsAFailingOne() async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        try await Self.addUser("alice", friend: "Ann Archer", in: cli)
        try await Self.addUser("bob", friend: "Ben Brook", in: cli)
        try await Self.addBrokenUser("carol", in: cli)

        let first = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once", "--all-users")
        #expect(first.status == 1, "carol's database is broken: \(first.stderr)")
        for user in ["alice", "bob"] {
            let id = try await Self.publicID(cli, user: user)
            #expect(first.stdout.contains("user=\(user) reminder delivered id=\(id) "), "\(first.stdout)")
            #expect(first.stdout.contains("\(user): Delivered 1 (1 late), 0 to retry, 0 failed, 0 missed"), "\(first.stdout)")
            #expect(try await Self.ledger(cli, user: user) == ["delivered"])
        }
        #expect(first.stderr.contains("Error: carol: "), "\(first.stderr)")
        #expect(!first.stdout.contains("Ann Archer") && !first.stdout.contains("Ben Brook"))

        let second = try await cli.run(at: "2026-03-10T09:06:00+01:00", "deliver", "--once", "--all-users", "--json")
        #expect(second.status == 1)
        let users = try CLIProcess.array(second.stdout)
        #expect(users.map { $0["user"] as? String } == ["alice", "bob", "carol"])
        #expect((users[0]["pass"] as? [String: Any])?["delivered"] as? Int == 0, "nothing is sent twice")
        #expect(users[0]["error"] is NSNull)
        #expect((users[2]["error"] as? String)?.isEmpty == false && users[2]["pass"] is NSNull)

        #expect(try await cli.run("users", "remove", "carol").status == 0)
        let third = try await cli.run(at: "2026-03-10T09:07:00+01:00", "deliver", "--once", "--all-users")
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(!third.stdout.contains("reminder delivered"))
    }

    // MARK: - Usage

    @Test(arguments: [
        ["run", "--all-users", "--user", "alice"],
        ["--user", "alice", "run", "--all-users"],
        ["run", "--all-users", "--database", "x.sqlite"],
        ["deliver", "--once", "--all-users", "--user", "alice"],
        ["--database", "x.sqlite", "deliver", "--all-users"],
    ])
    func allUsersWithUserOrDatabaseIsAUsageError(_ arguments: [String]) async throws {
        let cli = try Self.server()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").first == "Error: --all-users serves every user; it cannot be given with --user or --database",
            "\(result.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: cli.path("x.sqlite")))
    }
}
