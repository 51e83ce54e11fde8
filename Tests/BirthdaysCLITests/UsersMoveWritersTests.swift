import BirthdayCore
import BirthdayStore
import Foundation
import GRDB
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `users move` against what may still write or hold the user: a writer
/// that opened the database before the move (its write is never lost), a
/// user added under the same name while the move waits (the move says where
/// the data is), SIGTERM while it waits (the user is put back), a feed
/// server that started in the gap (asked again), a reminder that falls due
/// while the user is set aside (sent once, late, by the daemon that receives them).
@Suite(.timeLimit(.minutes(10)))
struct UsersMoveWritersTests {
    /// A write transaction held open on `database` from this process (`BEGIN IMMEDIATE`, one row written, not committed).
    static func writer(_ database: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let queue = try DatabaseQueue(path: database, configuration: configuration)
        try queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO setting(key, value) VALUES ('move-test', 'kept')")
        }
        return queue
    }

    /// The row ``writer(_:)`` wrote, as `database` has it (`nil` when it has none).
    static func row(_ database: String) throws -> String? {
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'move-test'") }
    }

    /// An exclusive `flock` taken by this process on `path`, with its pid in the file, as a daemon holds its lock.
    final class HeldLock {
        private var fd: Int32

        init(_ path: String) throws {
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "lock \(path)")
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }

        func release() {
            if fd >= 0 { close(fd) }
            fd = -1
        }

        deinit { release() }
    }

    /// `users move alice --to users-b` in the background.
    static func moving(_ cli: CLIProcess) throws -> TestProcess {
        try TestProcess(
            [try CLIProcess.binary(), "users", "move", "alice", "--to", cli.path("users-b")],
            environment: cli.environment,
            directory: cli.directory,
            name: "move"
        )
    }

    /// The folder the move set alice aside in (`users-a/.alice.moving-…`), once it has: once her database is
    /// in it. The move makes that folder empty first and renames hers onto it after, so a test that wrote
    /// into it between the two (under load) made the rename fail with "Directory not empty".
    static func aside(_ cli: CLIProcess) async throws -> String {
        var found: String?
        try await eventually("alice set aside") {
            found = try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")).first { name in
                name.hasPrefix(".alice.moving-")
                    && FileManager.default.fileExists(atPath: cli.path("users-a/" + name + "/birthdays.sqlite"))
            }
            return found != nil
        }
        return cli.path("users-a/" + (found ?? ""))
    }

    /// A writer that opened alice's database before the move and holds its write lock: the move waits for it
    /// (the busy timeout, 10 s), then fails in one line and puts her back; the writer's row, committed after, is hers.
    @Test func aWriterHoldingTheDatabaseMakesTheMoveFailAndItsRowIsKept() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let writer = try Self.writer(cli.path("users-a/alice/birthdays.sqlite"))
        let moved = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        try writer.close()
        #expect(moved.status == 1, "\(moved.stdout) \(moved.stderr)")
        #expect(moved.stderr == "Error: another process kept writing the database of 'alice' for 10 s; 'alice' is left where they were: try again\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")) == ["alice"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")).isEmpty)
        #expect(try Self.row(cli.path("users-a/alice/birthdays.sqlite")) == "kept", "the write is not lost")
    }

    /// `users add alice` while the move waits takes her name: the move cannot put her back, and says where
    /// her data is and what to do, instead of "left where they were".
    @Test func aUserAddedDuringTheMoveIsNamedWithWhereTheDataIs() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let writer = try Self.writer(cli.path("users-a/alice/birthdays.sqlite"))
        // The move waits for these first (up to a minute), so the add below is done before its 10 s
        // wait for the writer starts, however slowly a loaded machine starts the binary.
        let daemon = try HeldLock(cli.path("users-a/.all-users.lock"))
        let user = try HeldLock(cli.path("users-a/alice/birthdays.sqlite.lock"))
        let move = try Self.moving(cli)
        defer { move.stop() }
        let aside = try await Self.aside(cli)
        let added = try await cli.run("users", "add", "alice")
        #expect(added.status == 0, "\(added.stderr)")
        user.release()
        daemon.release()
        #expect(try await move.waitForExit() == 1)
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        try writer.close()
        let folder = cli.path("users-a/alice")
        #expect(
            move.stderr == "Error: another process kept writing the database of 'alice' for 10 s; and 'alice' could not be put back "
                + "(Directory not empty): their data is in \(aside). Rename away what is at \(folder) now (a user added meanwhile?), "
                + "then: mv \(aside) \(folder)\n",
            "\(move.stderr)"
        )
        #expect(try Self.row(aside + "/birthdays.sqlite") == "kept", "her data is where the error says")
        let listed = try await cli.run("users", "list")
        #expect(listed.stderr.contains("Warning: \(aside) is left by a users move that did not finish"), "\(listed.stderr)")
    }

    /// SIGTERM while the move waits for the daemon that serves alice (here this test, holding her lock and
    /// the root's `run --all-users` lock) puts her back, and the move ends in one line.
    @Test func aSignalWhileTheMoveWaitsPutsTheUserBack() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let daemon = try HeldLock(cli.path("users-a/.all-users.lock"))
        let user = try HeldLock(cli.path("users-a/alice/birthdays.sqlite.lock"))
        defer { withExtendedLifetime((daemon, user)) {} }
        let move = try Self.moving(cli)
        defer { move.stop() }
        _ = try await Self.aside(cli)
        move.signal(SIGTERM)
        #expect(try await move.waitForExit() == 1)
        #expect(move.stderr == "Error: stopped by signal 15 before anything was copied; 'alice' is left where they were\n", "\(move.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")).sorted() == [".all-users.lock", "alice"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")).isEmpty)
    }

    /// A `serve --user alice` that recorded itself in her folder after the move's first look (here this test
    /// writes the record, while the move waits for her lock) refuses the move once the lock is taken.
    @Test func aFeedServerThatStartedInTheGapRefusesTheMove() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        let daemon = try HeldLock(cli.path("users-a/.all-users.lock"))
        let user = try HeldLock(cli.path("users-a/alice/birthdays.sqlite.lock"))
        defer { withExtendedLifetime(daemon) {} }
        let move = try Self.moving(cli)
        defer { move.stop() }
        let aside = try await Self.aside(cli)
        let record = try HeldLock(aside + "/birthdays.sqlite.serve")
        defer { withExtendedLifetime(record) {} }
        try "127.0.0.1:8484\n".write(toFile: aside + "/birthdays.sqlite.serve", atomically: false, encoding: .utf8)
        user.release()
        #expect(try await move.waitForExit() == 1)
        #expect(
            move.stderr == "Error: birthdays serve is serving 'alice' at 127.0.0.1:8484; stop it first, then move the user\n",
            "\(move.stderr)"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-a")).sorted() == [".all-users.lock", "alice"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("users-b")).isEmpty)
    }

    /// alice's reminder (09:00) falls due while she is set aside: the move is held (this test holds her lock,
    /// as a daemon letting her go would) until the second root's daemon has sent bob's 09:00 reminder. The
    /// daemon that receives her sends hers then, once, after its time; nothing is said to be lost.
    @Test func aReminderDueWhileTheUserIsSetAsideIsSentOnceByTheReceivingDaemon() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        let there = UsersMoveTests.on(cli, "users-b")
        try await AllUsersDaemonTests.addUser("alice", friend: "Ann Archer", in: cli)
        try await AllUsersDaemonTests.addUser("bob", friend: "Ben Brook", in: there)
        let daemon = try HeldLock(cli.path("users-a/.all-users.lock"))
        let user = try HeldLock(cli.path("users-a/alice/birthdays.sqlite.lock"))
        defer { withExtendedLifetime(daemon) {} }
        let second = try UsersMoveTests.daemon(there, now: "2026-03-10T08:59:55+01:00", name: "second")
        defer { second.stop() }
        let move = try Self.moving(cli)
        defer { move.stop() }
        _ = try await Self.aside(cli)
        try await second.waitUntil("bob's 09:00 reminder") { $0.stdout.contains("user=bob reminder delivered") }
        user.release()
        #expect(try await move.waitForExit() == 0, "\(move.stderr)")
        try await second.waitUntil("alice's reminder") { $0.stdout.contains("user=alice reminder delivered") }
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
        // Once, after bob's (so after 09:00, while she was set aside), for 09:00; within a minute of it, so
        // not flagged `late=1` (that is from `lateAfter`, 60 s, on).
        let lines = second.stdout.split(separator: "\n")
        let hers = lines.indices.filter { lines[$0].contains("user=alice reminder delivered") }
        let his = try #require(lines.firstIndex { $0.contains("user=bob reminder delivered") })
        #expect(hers.count == 1 && hers.allSatisfy { $0 > his }, "\(second.stdout)")
        #expect(hers.allSatisfy { lines[$0].contains("fire_at=2026-03-10T09:00:00+01:00") }, "\(second.stdout)")
        #expect(!second.stderr.contains("not resent"), "\(second.stderr)")
        let ledger = try AppDatabase.openFile(at: cli.path("users-b/alice/birthdays.sqlite"), create: false)
        #expect(try await ledger.deliveries(updatedSince: .distantPast).map(\.state.rawValue) == ["delivered"])
    }

    /// What a late writer of the move meets in `serve --all-users`: an invitation's answer while another
    /// connection holds the write lock (as the move does) is 503, "unavailable", not a 500 nor a thank-you;
    /// the same answer once the lock is gone is taken.
    @Test func anAnswerWhileTheDatabaseIsHeldIs503AndTakenAfter() async throws {
        let served = try await ServeAllUsersTests.serve()
        defer { served.stop() }
        let url = served.url("/invite/\(served.alice.invite)")
        let form = try await ServeAllUsersTests.get(url)
        let nonce = try InviteCommandTests.nonce(form.body)
        let writer = try Self.writer(served.cli.path("users/alice/birthdays.sqlite"))
        let refused = try await InviteCommandTests.fetch(["--data-raw", "nonce=\(nonce)&name=Guest&day=1&month=1", url])
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        try writer.close()
        #expect(refused.status == 503 && refused.body == "unavailable\n", "\(refused.status) \(refused.body)")
        #expect(refused.fields["retry-after"] == "60", "\(refused.fields)")
        let taken = try await ServeAllUsersTests.get(url, "--data-raw", "nonce=\(nonce)&name=Guest&day=1&month=1")
        #expect(taken.status == 200, "\(taken.status)")
        #expect(try await served.cli.run("--user", "alice", "invites", "--json").stdout.contains("Guest"))
    }

    /// `users list` says when a move left a set-aside folder (killed half-way), naming only the folder.
    @Test func usersListSaysWhenAMoveLeftAFolder() async throws {
        let cli = try UsersMoveTests.server()
        defer { cli.cleanUp() }
        #expect(try await cli.run("users", "add", "alice").status == 0)
        try FileManager.default.createDirectory(atPath: cli.path("users-a/.bob.moving-Ab12Cd"), withIntermediateDirectories: false)
        let listed = try await cli.run("users", "list")
        #expect(listed.status == 0)
        #expect(
            listed.stderr == "Warning: \(cli.path("users-a"))/.bob.moving-Ab12Cd is left by a users move that did not finish, "
                + "and holds a user's data; see 'Moving a user' in docs/server.md\n",
            "\(listed.stderr)"
        )
    }
}
