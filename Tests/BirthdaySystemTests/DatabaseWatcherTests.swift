import Foundation
import TestSupport
import Testing

@testable import BirthdaySystem

/// The database's watch on a real folder: a write is a change, and the
/// folder moved away is `gone` (`run --all-users` ends that user's daemon).
@Suite(.timeLimit(.minutes(10)))
struct DatabaseWatcherTests {
    @Test func aWriteIsAChangeAndTheFolderMovedAwayIsGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folder = directory.file("alice")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let watcher = try DatabaseWatcher(database: folder + "/birthdays.sqlite")
        defer { watcher.stop() }
        var changes = watcher.changes.makeAsyncIterator()
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/birthdays.sqlite"))
        #expect(await changes.next() != nil)

        #expect(rename(folder, directory.file(".alice.removing-x")) == 0)
        var gone = watcher.gone.makeAsyncIterator()
        #expect(await gone.next() != nil, "the move is reported as the folder gone")
    }
}
