import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Faults underneath the real binary: full disks and devices, files that
/// change or cannot be read, symbolic links, read-only databases (issue 16).
@Suite struct FaultTests {
    // MARK: - Writes that fail

    /// Standard output on a full device: exit 1 with one line, never a
    /// crash and never a success.
    @Test(arguments: [["export"], ["people"], ["upcoming", "--days", "365"], ["feed", "url"], ["status"], ["pending"], ["import", "SEED"]])
    func aFullStandardOutputIsAnError(arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let file = try cli.write("more.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c\r\nFN:Carol\r\nBDAY:1970-05-05\r\nEND:VCARD\r\n")
        let result = try await TestProcess.run(
            ["/bin/sh", "-c", "exec \"$@\" > /dev/full", "sh", try CLIProcess.binary()] + arguments.map { $0 == "SEED" ? file : $0 },
            environment: cli.environment
        )
        #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr == "Error: cannot write to standard output: No space left on device\n")
    }

    /// An import and its reschedule are one transaction: under a file-size
    /// limit (the kernel refuses writes past it, as a full disk does) every
    /// attempt either lands whole, with its reminders, and exits 0, or
    /// leaves the store as it was and exits 1.
    @Test func anImportUnderAFullDiskLandsWholeOrNotAtAll() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let seed = (0..<40).map { Self.card(uid: "seed-\($0)", index: $0) }.joined()
        let imported = try await cli.run("import", try cli.write("seed.vcf", seed))
        try #require(imported.status == 0, "\(imported.stderr)")
        let more = try cli.write("more.vcf", (0..<217).map { Self.card(uid: "more-\($0)", index: $0) }.joined())

        var outcomes: [Int32] = []
        var errors: [String] = []
        // The import writes into the write-ahead log, a new file (the seed's was checkpointed
        // away when it closed), so the limit that counts is the log's, not the store's: eight
        // limits from 64 to 512 KiB around what the import's log takes (about 340 KiB), then
        // one of 64 MiB that any import fits under (in some loaded full runs even 1 MiB more
        // was not enough: every write failed with EFBIG). Limits counted from the store's size
        // stopped failing any import once the store's empty tables grew by 32 KiB.
        for step in 0..<9 {
            let copy = try CLIProcess()
            defer { copy.cleanUp() }
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: cli.databasePath + suffix) {
                try FileManager.default.copyItem(atPath: cli.databasePath + suffix, toPath: copy.databasePath + suffix)
            }
            let limitKiB = step == 8 ? 64 * 1024 : 64 * (step + 1)
            let result = try await TestProcess.run(
                // SIGXFSZ ignored: a write past the limit then fails with EFBIG.
                ["/bin/sh", "-c", "trap '' XFSZ; ulimit -f \(limitKiB) && exec \"$@\"", "sh", try CLIProcess.binary(), "import", more],
                environment: copy.environment
            )
            let database = try AppDatabase.openFile(at: copy.databasePath, create: false)
            let people = try await database.peopleCount()
            let pending = try await database.pendingRequests()
            switch result.status {
            case 0:
                #expect(people == 257, "limit \(limitKiB) KiB: exit 0 but \(people) people")
                #expect(pending.count == NotificationRequest.pendingLimit, "the reminders landed with the people")
                #expect(pending.contains { $0.personID.hasPrefix("more-") })
            case 1:
                #expect(people == 40, "limit \(limitKiB) KiB: exit 1 but \(people) people: \(result.stderr)")
                #expect(!pending.contains { $0.personID.hasPrefix("more-") })
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            default:
                Issue.record("limit \(limitKiB) KiB: exit status \(result.status): \(result.stderr)")
            }
            outcomes.append(result.status)
            errors.append("\(limitKiB) KiB: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        #expect(outcomes.contains(1), "no limit was small enough to fail the import: \(outcomes)")
        #expect(outcomes.contains(0), "no limit was large enough for the import: \(outcomes) \(errors)")
    }

    /// A card with a long name and note, so a few hundred fill a few hundred KiB.
    static func card(uid: String, index: Int) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:Person \(index) \(String(repeating: "x", count: 200))\r\n"
            + "BDAY:19\(50 + index % 50)-\(String(format: "%02d", 1 + index % 12))-\(String(format: "%02d", 1 + index % 28))\r\n"
            + "NOTE:\(String(repeating: "n", count: 300))\r\nEND:VCARD\r\n"
    }

    // MARK: - Files that change or cannot be read

    /// A file shortened while it is imported: the import reads what is
    /// there (read, never mapped) instead of dying with SIGBUS.
    @Test func aFileShortenedDuringTheImportIsNoCrash() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let card = (0..<2000).map { Self.card(uid: "u\($0)", index: $0) }.joined()
        let text = String(repeating: card, count: 8)  // about 9 MB, same UIDs again and again
        for round in 0..<2 {
            let file = try cli.write("big-\(round).vcf", text)
            let importer = try TestProcess(
                [try CLIProcess.binary(), "import", file],
                environment: cli.environment,
                directory: cli.directory,
                name: "import-\(round)"
            )
            // Truncate once the importer has the file open or mapped (or has finished).
            try await importer.waitUntil("the importer to open the file") { process in
                process.poll() != nil || Self.holds(process.pid, file)
            }
            truncate(file, Int(text.utf8.count / 3))
            let status = try await importer.waitForExit()
            #expect(status == 0 || status == 1, "round \(round): exit status \(status): \(importer.stderr.suffix(500))")
        }
    }

    /// Whether process `pid` has `path` open or mapped.
    static func holds(_ pid: pid_t, _ path: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        if descriptors.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path }) {
            return true
        }
        return ((try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? "").contains(path)
    }

    /// A vdir with a folder that cannot be read: the import fails, names the
    /// folder and writes nothing (it used to leave the folder out and exit 0).
    @Test(.enabled(if: CLIProcess.canRunUnprivileged, CLIProcess.unprivilegedMissing))
    func anUnreadableFolderInAVdirFailsTheImport() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let vdir = cli.path("contacts")
        try FileManager.default.createDirectory(atPath: vdir + "/friends", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: vdir + "/work", withIntermediateDirectories: true)
        try "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Ada\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n".write(
            toFile: vdir + "/friends/a.vcf",
            atomically: true,
            encoding: .utf8
        )
        try "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:b\r\nFN:Bob\r\nBDAY:1991-04-11\r\nEND:VCARD\r\n".write(
            toFile: vdir + "/work/b.vcf",
            atomically: true,
            encoding: .utf8
        )
        try await cli.handToUnprivilegedUser()
        chmod(vdir + "/work", 0)
        let result = try await cli.runUnprivileged(["import", vdir])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr == "Error: cannot read \(vdir)/work: permission denied\n")
        chmod(vdir + "/work", 0o755)
        #expect(try await AppDatabase.openFile(at: cli.databasePath).peopleCount() == 0, "nothing was written")
    }

    /// A FIFO, and a pipe behind /dev/stdin, are read like files.
    @Test func aFIFOAndStandardInputAreRead() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Ada\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n"
        let piped = try await TestProcess.run(
            ["/bin/sh", "-c", "printf '%s' \"$1\" | exec \"$2\" import /dev/stdin", "sh", card, try CLIProcess.binary()],
            environment: cli.environment
        )
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("1 added"))
        let fifo = cli.path("contacts.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let result = try await TestProcess.run(
            [
                "/bin/sh", "-c", "printf '%s' \"$1\" > \"$2\" & exec \"$3\" import \"$2\"", "sh",
                card.replacingOccurrences(of: "UID:a", with: "UID:b"), fifo, try CLIProcess.binary(),
            ],
            environment: cli.environment
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 added"))
    }

    // MARK: - Export through links, never over devices

    @Test func exportWritesThroughASymbolicLink() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let target = cli.path("published/birthdays.ics")
        try FileManager.default.createDirectory(atPath: cli.path("published"), withIntermediateDirectories: true)
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        let link = cli.path("feed.ics")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "published/birthdays.ics")
        let result = try await cli.run("export", "--output", link)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "published/birthdays.ics", "the link stays a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("BEGIN:VCALENDAR"))
    }

    /// A FIFO, a link to one, and (as root) a device node are refused, not replaced.
    @Test func exportRefusesWhatIsNotARegularFile() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let fifo = cli.path("pipe")
        try #require(mkfifo(fifo, 0o600) == 0)
        let link = cli.path("link-to-pipe")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
        var targets = [fifo, link]
        let device = cli.path("null-device")
        if mknod(device, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0 { targets.append(device) }  // 1,3: a copy of /dev/null
        for target in targets {
            let result = try await cli.run("export", "--output", target)
            #expect(result.status == 1)
            #expect(result.stderr.contains("it is not a regular file"), "\(target): \(result.stderr)")
            var info = stat()
            lstat(target, &info)
            #expect(info.st_mode & S_IFMT != S_IFREG, "\(target) was replaced by a file")
        }
    }

    // MARK: - The database

    /// A second daemon through a symbolic link to the database is still the
    /// same database: the lock is taken on the resolved path.
    @Test func theDaemonLockFollowsSymbolicLinks() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let link = cli.path("alias.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: cli.databasePath)
        let first = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        defer { first.stop() }
        try await first.waitUntil("the first daemon") { $0.stderr.contains("birthdays run started") }
        var viaLink = cli
        viaLink.extraEnvironment["BIRTHDAYS_DATABASE"] = link
        let second = try TestProcess([try CLIProcess.binary(), "run"], environment: viaLink.environment, directory: cli.directory, name: "second")
        defer { second.stop() }
        #expect(try await second.waitForExit() == 1)
        #expect(second.stderr.contains("birthdays run is already running for \(link) (pid \(first.pid))"), "\(second.stderr)")
        await #expect(try viaLink.run("status").stdout.contains("Daemon: running (pid \(first.pid))"))
    }

    /// A database this user cannot write (a file another user owns, in a
    /// folder it cannot write) is read by the commands that only read; the
    /// others fail with one line.
    /// Also when its write-ahead log was checkpointed and removed, so that
    /// SQLite could not create the log files in the folder it cannot write.
    @Test(.enabled(if: CLIProcess.canRunUnprivileged, CLIProcess.unprivilegedMissing), arguments: [false, true])
    func aReadOnlyDatabaseCanBeRead(withoutLog: Bool) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        _ = try await cli.run("feed", "url")
        if withoutLog {
            // Closing the last connection checkpoints the log and removes it.
            let checkpoint = try await TestProcess.run([
                SystemTools.python, "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()",
                cli.databasePath,
            ])
            try #require(checkpoint.status == 0, "\(checkpoint.stderr)")
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cli.databasePath + suffix) }
        }
        if geteuid() != 0 {
            chmod(cli.databasePath, 0o444)
            chmod(cli.directory.path, 0o555)
        }
        defer { chmod(cli.directory.path, 0o755) }
        for arguments in [
            ["people"], ["upcoming", "--days", "365"], ["status"], ["pending"], ["show", "ada"], ["export"], ["feed", "url"], ["settings", "show"],
        ] {
            let result = try await cli.runUnprivileged(arguments, writable: false)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        await #expect(try cli.runUnprivileged(["people"], writable: false).stdout.contains("Ada"))
        let write = try await cli.runUnprivileged(["settings", "set", "day-before", "off"], writable: false)
        #expect(write.status == 1)
        #expect(write.stderr.hasPrefix("Error: "))
        #expect(write.stderr.split(separator: "\n").count == 1)
    }
}

/// Another user for the checks that permissions must stop: root reads
/// everything, so as root the commands run as `nobody` through setpriv.
extension CLIProcess {
    static let nobody: uid_t = 65534

    /// Whether permissions can be tested: not root, or root with setpriv.
    static var canRunUnprivileged: Bool { geteuid() != 0 || SystemTools.path("setpriv") != nil }
    static let unprivilegedMissing: Comment = "as root, needs setpriv to run as nobody (apt-get install util-linux)"

    /// Gives the test's folder to `nobody` (as root), so that the commands
    /// run by ``runUnprivileged(_:writable:)`` can use it.
    func handToUnprivilegedUser() async throws {
        guard geteuid() == 0 else { return }
        let result = try await TestProcess.run(["/bin/chown", "-R", "\(Self.nobody):\(Self.nobody)", directory.path])
        try #require(result.status == 0, "chown: \(result.stderr)")
    }

    /// Runs the binary as an ordinary user: this one, or `nobody` as root.
    /// With `writable` false (as root), `nobody` may read the folder and the
    /// database but write neither.
    func runUnprivileged(_ arguments: [String], writable: Bool = true) async throws -> Output {
        guard geteuid() == 0 else { return try await run(arguments) }
        guard let setpriv = SystemTools.path("setpriv") else {
            throw TestSupportError("running as root, this test needs setpriv (apt: util-linux) to run as nobody")
        }
        if !writable {
            // Root's files, readable by all, writable by root only.
            _ = try await TestProcess.run(["/bin/chown", "-R", "0:0", directory.path])
            _ = try await TestProcess.run(["/bin/chmod", "-R", "a+rX,go-w", directory.path])
        }
        let argv = [setpriv, "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "--", try CLIProcess.binary()] + arguments
        return try await TestProcess.run(argv, environment: environment)
    }
}
