import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem

#if canImport(Glibc)
import Glibc
#endif

/// The password command and the inotify watcher of local sources, with a
/// real shell and real file operations (vdirsyncer's rename and link).
/// The time limit only stops a hang: under `make test` beside compilers on
/// two cores, three short shells once took more than a minute to be scheduled.
@Suite(.timeLimit(.minutes(10)))
struct SourceAdapterTests {
    // MARK: - Password command

    @Test func thePasswordIsTheFirstLineOfTheOutput() async throws {
        let environment = ["PATH": "/usr/bin:/bin", "SECRET": "s3cr3t pass"]
        #expect(try await PasswordCommand.run("printf '%s\\nsecond line\\n' \"$SECRET\"", environment: environment) == "s3cr3t pass")
        #expect(try await PasswordCommand.run("printf 'crlf\\r\\n'", environment: environment) == "crlf")
        #expect(try await PasswordCommand.run("printf 'no newline'", environment: environment) == "no newline")
    }

    @Test(arguments: [
        ("echo hunter2; exit 3", "it exited with status 3"),
        ("true", "it printed no password"),
        ("printf '\\n'", "it printed no password"),
        ("kill -9 $$", "it was killed by signal 9"),
    ])
    func aFailingCommandSaysWhyWithoutItsOutput(command: String, reason: String) async {
        await #expect(throws: RemoteError.passwordCommand(reason: reason)) {
            try await PasswordCommand.run(command, environment: ["PATH": "/usr/bin:/bin"])
        }
        #expect(!RemoteError.passwordCommand(reason: reason).description.contains("hunter2"))
    }

    @Test func aCommandThatHangsIsStoppedAtTheTimeout() async {
        let started = ContinuousClock.now
        await #expect(throws: RemoteError.passwordCommand(reason: "it did not finish within 1 s")) {
            try await PasswordCommand.run("sleep 120", environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(1))
        }
        // Well before `sleep 120` would end on its own, however loaded the machine: under `make test`
        // beside two compilers, this task alone waited 35 s for a thread to resume on.
        #expect(ContinuousClock.now - started < .seconds(90))
    }

    // MARK: - Watching local sources

    /// The source ids the watcher reported, as they come.
    final class Seen: Sendable {
        let ids = Mutex<[Int64]>([])
        var all: [Int64] { ids.withLock { $0 } }
        func count(_ id: Int64) -> Int { all.filter { $0 == id }.count }
    }

    func watch(_ targets: [SourceWatcher.Target]) throws -> (SourceWatcher, Seen, Task<Void, Never>) {
        let watcher = try SourceWatcher(targets)
        let seen = Seen()
        let task = Task { for await id in watcher.changes { seen.ids.withLock { $0.append(id) } } }
        return (watcher, seen, task)
    }

    @Test func vdirsyncersRenamesLinksAndDeletesAreSeenAndItsTemporaryFilesAreNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let vdir = directory.file("book")
        try FileManager.default.createDirectory(atPath: vdir + "/sub", withIntermediateDirectories: true)
        let (watcher, seen, task) = try watch([SourceWatcher.Target(sourceID: 7, kind: .vdir, path: vdir)])
        defer {
            watcher.stop()
            task.cancel()
        }

        // A temporary file written and removed: nothing.
        try Data("BEGIN:VCARD".utf8).write(to: URL(fileURLWithPath: vdir + "/tmpo5uow035"))
        try FileManager.default.removeItem(atPath: vdir + "/tmpo5uow035")
        try Data("x".utf8).write(to: URL(fileURLWithPath: vdir + "/.hidden.vcf"))
        // A new card as vdirsyncer makes it: link() of the temporary file, then unlink.
        try Data("BEGIN:VCARD".utf8).write(to: URL(fileURLWithPath: vdir + "/tmpvdc0pj9m"))
        #expect(link(vdir + "/tmpvdc0pj9m", vdir + "/dave.vcf") == 0)
        try FileManager.default.removeItem(atPath: vdir + "/tmpvdc0pj9m")
        try await eventually("the new card") { seen.count(7) >= 1 }

        // An update: rename over; a card in a sub-folder; a deletion.
        let before = seen.count(7)
        try Data("BEGIN:VCARD".utf8).write(to: URL(fileURLWithPath: vdir + "/tmpzz"))
        #expect(rename(vdir + "/tmpzz", vdir + "/dave.vcf") == 0)
        try await eventually("the update") { seen.count(7) > before }
        let afterUpdate = seen.count(7)
        try Data("BEGIN:VCARD".utf8).write(to: URL(fileURLWithPath: vdir + "/sub/eve.VCF"))
        try await eventually("the card in the sub-folder") { seen.count(7) > afterUpdate }
        let afterSub = seen.count(7)
        try FileManager.default.removeItem(atPath: vdir + "/dave.vcf")
        try await eventually("the deletion") { seen.count(7) > afterSub }
        #expect(seen.all.allSatisfy { $0 == 7 })
    }

    @Test func whichNamesConcernASource() {
        let vdir = SourceWatcher.Rule(sourceID: 1, fileName: nil)
        #expect(vdir.matches("dave.vcf") && vdir.matches("Eve.VCF") && vdir.matches("x.vcard"))
        #expect(!vdir.matches("tmpo5uow035") && !vdir.matches(".dave.vcf.swp") && !vdir.matches(".hidden.vcf") && !vdir.matches("notes.txt"))
        let file = SourceWatcher.Rule(sourceID: 2, fileName: "phone.vcf")
        #expect(file.matches("phone.vcf") && !file.matches("other.vcf") && !file.matches("phone.vcf.part"))
    }

    @Test func aFileSourceIsWatchedThroughItsFolderByName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.file("phone.vcf")
        try Data("BEGIN:VCARD".utf8).write(to: URL(fileURLWithPath: file))
        let (watcher, seen, task) = try watch([
            SourceWatcher.Target(sourceID: 1, kind: .file, path: file),
            SourceWatcher.Target(sourceID: 2, kind: .carddav, path: "http://example.invalid/"),
        ])
        defer {
            watcher.stop()
            task.cancel()
        }
        #expect(watcher.failures.isEmpty)
        // Another file in the same folder: nothing; ours, replaced by a rename: reported.
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("other.vcf")))
        try Data("BEGIN:VCARD\r\n".utf8).write(to: URL(fileURLWithPath: directory.file("phone.vcf.part")))
        #expect(rename(directory.file("phone.vcf.part"), file) == 0)
        try await eventually("the replaced file") { seen.count(1) >= 1 }
        #expect(seen.all.allSatisfy { $0 == 1 })
    }

    @Test func aFolderThatCannotBeWatchedIsReportedAndStopEndsTheStream() async throws {
        let watcher = try SourceWatcher([SourceWatcher.Target(sourceID: 3, kind: .vdir, path: "/nonexistent/birthdays-test")])
        #expect(watcher.failures.map(\.path) == ["/nonexistent/birthdays-test"])
        watcher.stop()
        var count = 0
        for await _ in watcher.changes { count += 1 }
        #expect(count == 0)
    }
}
