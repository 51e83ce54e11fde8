import BirthdayCore
import Foundation
import GRDB
import GRDBSQLite
import TestSupport
import Testing

@testable import BirthdayStore

/// A database opened with one connection (`run --all-users` keeps every
/// user's open) and what ``AppDatabase/releaseMemory()`` hands back at
/// rest: the cache, the parsed schema and the `TEMP` triggers, which every
/// write made after the rest has again.
@Suite(.timeLimit(.minutes(10)))
struct ConnectionAtRestTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// Bytes SQLite says the connection `writer` writes through uses for `status` (`SQLITE_DBSTATUS_*`).
    static func used(_ status: Int32, _ database: AppDatabase) throws -> Int32 {
        try database.writer.writeWithoutTransaction { db in
            var current: Int32 = 0
            var highest: Int32 = 0
            try #require(sqlite3_db_status(db.sqliteConnection, status, &current, &highest, 0) == SQLITE_OK)
            return current
        }
    }

    /// The `TEMP` triggers of the connection `writer` writes through.
    static func temporaryTriggers(_ database: AppDatabase) throws -> [String] {
        try database.writer.writeWithoutTransaction { db in
            try String.fetchAll(db, sql: "SELECT name FROM temp.sqlite_master WHERE type = 'trigger' ORDER BY name")
        }
    }

    static func cacheUsed(_ database: AppDatabase) async throws -> Int32 { try used(SQLITE_DBSTATUS_CACHE_USED, database) }

    static func people(_ count: Int) -> [Person] {
        (0..<count).map { index in
            Person(
                id: "p\(index)",
                name: "Person \(index) " + String(repeating: "x", count: 200),
                source: ContactSource(file: "people.vcf", index: index, line: index * 6 + 1),
                birthday: EventDate(year: 1950 + index % 50, month: 1 + index % 12, day: 1 + index % 28)
            )
        }
    }

    @Test func oneConnectionReadsAndWritesAFileInWALModeAndHearsAnotherConnectionsWrites() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("birthdays.sqlite")
        // Made by a command (a pool), then opened as run --all-users opens it.
        let command = try AppDatabase.openFile(at: path)
        let daemon = try AppDatabase.openFile(at: path, create: false, mapped: false, oneConnection: true)
        #expect(daemon.writer is DatabaseQueue)
        #expect(try await daemon.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        let before = try await daemon.dataVersion()
        try command.insertPeople(Self.people(3), now: Date(timeIntervalSince1970: 0))
        #expect(try await daemon.dataVersion() != before)
        #expect(try await daemon.people().map(\.id).sorted() == ["p0", "p1", "p2"])
        try daemon.insertPeople(Self.people(4), now: Date(timeIntervalSince1970: 0))
        #expect(try await command.people().count == 4)
    }

    /// Pretend time works on a copy, opened as the real file would be (`run --all-users` with `BIRTHDAYS_NOW`).
    @Test func aCopyForPretendTimeIsOpenedWithOneConnectionToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("birthdays.sqlite")
        try AppDatabase.openFile(at: path).insertPeople(Self.people(2), now: Self.now)
        let copy = try AppDatabase.openCopy(of: path, at: directory.file("copy.sqlite"), oneConnection: true)
        #expect(copy.writer is DatabaseQueue)
        #expect(try await copy.people().count == 2)
        #expect(try AppDatabase.openCopy(of: path, at: directory.file("pool.sqlite")).writer is DatabasePool)
    }

    @Test func aNewFileOpenedWithOneConnectionIsInWALMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), mapped: false, oneConnection: true)
        #expect(try await database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test(arguments: [false, true])
    func releasingMemoryEmptiesThePageCacheOfTheConnectionThatWrites(oneConnection: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), mapped: false, oneConnection: oneConnection)
        try database.insertPeople(Self.people(2_000), now: Date(timeIntervalSince1970: 0))
        let full = try await Self.cacheUsed(database)
        try #require(full > 256 * 1024, "the writes filled \(full) bytes of cache")

        await database.releaseMemory()

        let released = try await Self.cacheUsed(database)
        #expect(released < full / 20, "\(released) of \(full) bytes kept")
        #expect(try Self.used(SQLITE_DBSTATUS_SCHEMA_USED, database) == 0, "the schema is read again at the next use")
        #expect(try Self.temporaryTriggers(database) == [])
        // Everything is read again from the file.
        #expect(try await database.people().count == 2_000)
    }

    /// The triggers that move the data revision are the connection's own
    /// (`TEMP`): a rest takes them away, and the next write makes them
    /// again before it changes anything.
    @Test func aWriteAfterTheConnectionRestedMovesTheRevision() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), mapped: false, oneConnection: true)
        try database.insertPeople(Self.people(1), now: Self.now)
        let first = try await database.revision()
        try #require(!(try Self.temporaryTriggers(database).isEmpty))

        await database.releaseMemory()
        #expect(try Self.temporaryTriggers(database) == [])
        try database.insertPeople(Self.people(2), now: Self.now.addingTimeInterval(60))

        let second = try await database.revision()
        #expect(second.value == first.value + 1)
        #expect(second.changedAt == Self.now.addingTimeInterval(60))
    }

    /// The triggers are made inside the first write's transaction: when it
    /// rolls back, so does their making, and the next write makes them again.
    @Test func aFirstWriteThatRollsBackLeavesTheNextOneItsTriggers() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), mapped: false, oneConnection: true)
        let before = try await database.revision()
        #expect(throws: StoreError.self) {
            try database.writeNow { db in
                try PersonRecord(Self.people(1)[0], createdAt: 0, updatedAt: 0).upsert(db)
                throw Refused()
            }
        }
        #expect(try await database.revision().value == before.value)
        try database.insertPeople(Self.people(1), now: Self.now)
        #expect(try await database.revision().value == before.value + 1)
    }

    /// The greetings' plan goes when a greeted friend changes, through a
    /// connection that rested after the plan was made: its next write makes
    /// the plan's triggers again (there is a stamp).
    @Test func aConnectionThatRestedStillTakesTheGreetingsPlanAway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), mapped: false, oneConnection: true)
        let scheduler = try await GreetingStoreTests.anaGreetedByEmail(in: database)
        _ = try await scheduler.reschedule()
        #expect(try await GreetingStoreTests.plannedGreetings(database) == ["ana"])
        try #require(try Self.temporaryTriggers(database).contains { $0.hasPrefix("greetingPlan_") })

        await database.releaseMemory()
        try database.writeNow { db in try ContactPointRecord.replace(personID: "ana", with: [], db) }

        _ = try await scheduler.reschedule()
        #expect(try await GreetingStoreTests.plannedGreetings(database) == [], "her only address removed after the rest")
    }
}
