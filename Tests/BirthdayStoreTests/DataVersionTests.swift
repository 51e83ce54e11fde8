import BirthdayCore
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import BirthdayStore

/// ``AppDatabase/dataVersion()``: what the daemon's database watch reads
/// when the folder's inotify watch says the database may have been written.
@Suite(.timeLimit(.minutes(10)))
struct DataVersionTests {
    /// Another connection's write is told of by a number read while it was
    /// under way: every inotify event of the write-ahead log comes from a
    /// write made under the write lock, before the commit is published in
    /// the shared-memory index (which inotify does not see), and a writer
    /// that stays open sends no event after it. So a number read at the
    /// event, before the commit, must wait for it: else the last event of a
    /// commit can be answered by the number of before it, and nothing wakes
    /// the watch again.
    @Test func aVersionReadDuringAnotherConnectionsWriteTellsOfIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("birthdays.sqlite")
        let daemon = try AppDatabase.openFile(at: path, mapped: false)
        let other = try AppDatabase.openFile(at: path, mapped: false)
        let before = try await daemon.dataVersion()
        let writing = Mutex(false)
        async let write: Void = other.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES ('delivery-time', '10:00') ON CONFLICT DO UPDATE SET value = excluded.value")
            writing.withLock { $0 = true }
            // Committed half a second after the version is asked for.
            Thread.sleep(forTimeInterval: 0.5)
        }
        try await eventually("the write to be under way") { writing.withLock { $0 } }
        let during = try await daemon.dataVersion()
        try await write
        #expect(during != before, "the version read during the write is the one of before it")
        #expect(try await daemon.dataVersion() == during, "and the commit moves it no further")
    }
}
