import BirthdayCore
import BirthdayStore
import Foundation
import Logging
import Testing

/// A database for one test: in memory (GRDB's `DatabaseQueue`), or a real
/// SQLite file in a fresh temporary directory when `file` (for tests that
/// open it twice, as two processes would); removed on deinit.
package final class TemporaryDatabase: Sendable {
    package let directory: URL?
    package let database: AppDatabase

    package init(file: Bool = false) throws {
        if file {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-tests-" + UUID().uuidString)
            self.directory = directory
            database = try AppDatabase.openFile(at: directory.appendingPathComponent("test.sqlite").path)
        } else {
            directory = nil
            database = try AppDatabase.inMemory()
        }
    }

    deinit { directory.map { try? FileManager.default.removeItem(at: $0) } }
}

public enum Fixture {
    /// Parses `2026-03-10T08:00:00+01:00` (or a local time in `zone`).
    public static func instant(_ text: String, zone: TimeZone = TimeZone(identifier: "UTC")!) throws -> Date {
        try #require(ReferenceTime.parse(text, timeZone: zone), "bad instant \(text)")
    }

    public static func zone(_ identifier: String) throws -> TimeZone {
        try #require(TimeZone(identifier: identifier), "unknown zone \(identifier)")
    }

    /// A person with a birthday written like "1990-03-11" or "--03-11".
    public static func person(
        _ id: String,
        _ name: String,
        birthday: String? = nil,
        anniversary: String? = nil,
        excluded: Bool = false
    ) throws -> Person {
        Person(
            id: id,
            name: name,
            source: ContactSource(file: "fixture.vcf", index: 0, line: 1),
            birthday: try birthday.map(date),
            anniversary: try anniversary.map(date),
            exclusion: Exclusion(choice: excluded ? .exclude : nil)
        )
    }

    public static func date(_ text: String) throws -> EventDate {
        guard case .date(let date) = DateValue.vCard(text) else {
            Issue.record("bad date \(text)")
            throw CancellationError()
        }
        return date
    }

    /// A scheduler over `database` at a fixed instant and system zone.
    package static func scheduler(
        _ database: AppDatabase,
        now: Date,
        zone: TimeZone,
        logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    ) -> NotificationScheduler {
        NotificationScheduler(database: database, now: { now }, systemTimeZone: { zone }, logger: logger)
    }
}
