import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

@Suite struct StoreTests {
    @Test func createsDirectory0700AndFile0600InWALMode() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("nested/data/birthdays.sqlite")
        let database = try AppDatabase.openFile(at: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: dir.file("nested/data"))
        #expect((dirAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let mode = try database.readNow { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    /// Commands read through a mapping of the file; `run` and `serve` open it
    /// unmapped, so the idle daemon keeps no shared pages of it resident.
    @Test func onlyShortLivedCommandsMapTheFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("birthdays.sqlite")
        let mapped = try AppDatabase.openFile(at: path)
        #expect(try mapped.readNow { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == AppDatabase.mappedBytes)
        let unmapped = try AppDatabase.openFile(at: path, mapped: false)
        #expect(try unmapped.readNow { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == 0)
    }

    @Test func reopeningKeepsDataAndMigrationsRunOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("b.sqlite")
        let now = Date(timeIntervalSince1970: 1_000)
        try await AppDatabase.openFile(at: path).setSetting(.deliveryTime, to: "08:30", now: now)
        let reopened = try AppDatabase.openFile(at: path)
        #expect(try await reopened.settings().deliveryTime.description == "08:30")
        let applied = try reopened.readNow { db in try AppDatabase.migrator.appliedMigrations(db) }
        #expect(applied == ["v1-people"] || applied.first == "v1-people")
    }

    /// A command that only reads opens a current database read-only: it
    /// writes nothing, not even the table GRDB's pool creates and drops to
    /// fill an empty write-ahead log, and still reads what a writer commits
    /// after it opened. When it writes after all (`feed url`'s first token),
    /// the write goes through a writer opened then, and is read back.
    @Test func aReadingCommandOpensACurrentDatabaseReadOnly() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("b.sqlite")
        let now = Date(timeIntervalSince1970: 1_000)
        try await AppDatabase.openFile(at: path).setSetting(.deliveryTime, to: "08:30", now: now)
        let reader = try AppDatabase.openFile(at: path, create: false, readOnlyIfNotWritable: true, readsOnly: true)
        #expect(try await reader.settings().deliveryTime.description == "08:30")
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(log == 0, "the write-ahead log holds \(log) bytes: opening wrote")
        let writer = try AppDatabase.openFile(at: path)
        try await writer.setSetting(.deliveryTime, to: "09:15", now: now)
        #expect(try await reader.settings().deliveryTime.description == "09:15")
        try await reader.setSetting(.deliveryTime, to: "10:00", now: now)
        #expect(try await reader.settings().deliveryTime.description == "10:00")
        #expect(try await writer.settings().deliveryTime.description == "10:00")
    }

    /// A reading command given a database whose schema is not current (here an
    /// empty file) opens it as a writer and migrates it, as it always did.
    @Test func aReadingCommandMigratesAnOldDatabase() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = try dir.write("b.sqlite", "")
        let reader = try AppDatabase.openFile(at: path, create: false, readOnlyIfNotWritable: true, readsOnly: true)
        #expect(try await reader.peopleCount() == 0)
        #expect(try reader.readNow { db in try AppDatabase.migrator.hasCompletedMigrations(db) })
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = try dir.write("junk.sqlite", String(repeating: "this is not sqlite ", count: 100))
        #expect(throws: StoreError.notADatabase(path: path)) { try AppDatabase.openFile(at: path) }
    }

    @Test func defaultPathFollowsXDG() {
        #expect(AppDatabase.defaultPath(environment: ["BIRTHDAYS_DATABASE": "/x/y.sqlite", "HOME": "/home/u"]) == "/x/y.sqlite")
        #expect(AppDatabase.defaultPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]) == "/data/birthdays/birthdays.sqlite")
        #expect(AppDatabase.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.local/share/birthdays/birthdays.sqlite")
        #expect(
            AppDatabase.defaultPath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.local/share/birthdays/birthdays.sqlite"
        )
    }

    @Test func settingsRoundTripAndRejectBadValues() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        let now = Date(timeIntervalSince1970: 5_000)
        let before = try await database.revision().value
        try await database.setSetting(.leapDay, to: "mar1", now: now)
        #expect(try await database.settings().leapDay == .mar1)
        #expect(try await database.revision().value == before + 1)
        await #expect(throws: SettingsError(key: "leap-day", value: "march")) { try await database.setSetting(.leapDay, to: "march", now: now) }
        // A name-days code is checked against the lists stored (issue 41): refused as itself, not as a database error.
        await #expect(throws: SettingsError(key: "name-days", value: "fi")) { try await database.setSetting(.nameDays, to: "fi", now: now) }
        #expect(try await database.settings().leapDay == .mar1)
        try await database.resetSetting(.leapDay, now: now)
        #expect(try await database.settings().leapDay == .feb28)
    }
}

@Suite struct SettingsTests {
    @Test(arguments: [
        (SettingKey.deliveryTime, "7:05", "07:05"), (.deliveryTime, "23:59", "23:59"), (.deliveryTime, "00:00", "00:00"),
        (.timeZone, "Europe/Berlin", "Europe/Berlin"), (.timeZone, "system", "system"), (.timeZone, "UTC", "UTC"),
        (.leapDay, "MAR1", "mar1"), (.dayBefore, "off", "off"), (.anniversaries, "no", "off"), (.emoji, "on", "on"),
    ])
    func acceptsValidValues(key: SettingKey, input: String, shown: String) throws {
        var settings = Settings()
        try settings.set(key, to: input)
        #expect(settings.text(for: key) == shown)
    }

    @Test(arguments: [
        (SettingKey.deliveryTime, "24:00"), (.deliveryTime, "9"), (.deliveryTime, "09:60"), (.deliveryTime, "nine"),
        (.timeZone, "Mars/Olympus"), (.timeZone, "CEST"), (.leapDay, "feb29"), (.dayBefore, "maybe"), (.calendarName, " "),
    ])
    func rejectsInvalidValuesNamingTheAllowedOnes(key: SettingKey, input: String) {
        var settings = Settings()
        #expect(throws: SettingsError.self) { try settings.set(key, to: input) }
        let message = SettingsError(key: key.rawValue, value: input).description
        #expect(message.contains(key.allowedValues))
        #expect(!message.contains("\n"))
    }

    @Test func unknownStoredKeysAndValuesFallBackToDefaults() {
        let settings = Settings(stored: ["delivery-time": "25:00", "future-setting": "x", "leap-day": "mar1"])
        #expect(settings.deliveryTime.description == "09:00")
        #expect(settings.leapDay == .mar1)
    }
}
