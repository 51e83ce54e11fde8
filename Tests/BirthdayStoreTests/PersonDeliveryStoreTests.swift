import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// Per-person delivery in a real SQLite file (issue 20): a person's channels
/// and weekend rule are the user's choices, kept by re-imports and syncs,
/// and the weekend rule moves the pending reminders.
@Suite struct PersonDeliveryStoreTests {
    let importedAt = Date(timeIntervalSince1970: 1_790_000_000)

    private func database(_ dir: TemporaryDirectory) async throws -> AppDatabase {
        let database = try AppDatabase.openFile(at: dir.file("people.sqlite"))
        try await database.setAuthorizationStatus(.authorized)
        return database
    }

    private func scheduler(_ database: AppDatabase) throws -> NotificationScheduler {
        try Fixture.scheduler(database, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
    }

    @discardableResult
    private func importCards(
        _ cards: [[String]],
        as name: String = "contacts.vcf",
        in dir: TemporaryDirectory,
        into database: AppDatabase
    )
        async throws -> ImportReport
    {
        let path = dir.file(name)
        let text = cards.map { (["BEGIN:VCARD", "VERSION:3.0"] + $0 + ["END:VCARD"]).joined(separator: "\r\n") }.joined(separator: "\r\n") + "\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let importer = ContactImporter(database: database, now: importedAt, referenceYear: 2026, scheduler: try scheduler(database))
        return try await importer.importPaths([path])
    }

    private func choose(_ database: AppDatabase, _ id: String = "ada") async throws {
        let result = try await database.setReminderChoices(
            days: .keep,
            channels: .set(["log", "email"]),
            weekend: .set(.friday),
            personID: id,
            now: importedAt,
            rescheduling: scheduler(database)
        )
        #expect(result?.person.channels == ["log", "email"])
        #expect(result?.person.weekend == .friday)
    }

    private func expectChoicesKept(_ database: AppDatabase, _ id: String = "ada") async throws {
        let person = try #require(try await database.person(id: id))
        #expect(person.channels == ["log", "email"])
        #expect(person.weekend == .friday)
    }

    /// The same file again (unchanged, then with the card changed, which
    /// rewrites the row), and another file with the same contact: the
    /// choices stay, as reminder days and exclusions do.
    @Test func reimportsKeepChannelsAndWeekend() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-15"]], in: dir, into: database)
        try await choose(database)
        let unchanged = try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-15"]], in: dir, into: database)
        #expect(unchanged.unchanged == 1)
        try await expectChoicesKept(database)
        let updated = try await importCards([["UID:ada", "FN:Ada L.", "NICKNAME:Addie", "BDAY:1990-03-15"]], in: dir, into: database)
        #expect(updated.updated == 1)
        try await expectChoicesKept(database)
        let other = try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-15"]], as: "phone.vcf", in: dir, into: database)
        #expect(other.updated == 1)
        try await expectChoicesKept(database)
        #expect(try await database.person(id: "ada")?.name == "Ada")
    }

    /// A vdir source's sync (the path a CardDAV sync takes too) rewrites a
    /// changed card's row and keeps the choices.
    @Test func aSourceSyncKeepsChannelsAndWeekend() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        let book = dir.file("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        func card(_ birthday: String) throws {
            let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: book + "/ada.vcf"))
        }
        try card("1990-03-15")
        let source = try await database.addSource(Source(name: "book", kind: .vdir, location: book), now: importedAt)
        let syncer = SourceSync(
            database: database,
            readers: SourceReaders { _ in LocalSourceReader() },
            now: { self.importedAt },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: LogRecorder().logger
        )
        let first = await syncer.sync(source)
        #expect(first.error == nil)
        try await choose(database)
        try card("1990-03-16")
        // A later modification time, so the sync reads the card again.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: book + "/ada.vcf")
        let current = try #require(try await database.sources().first)
        let second = await syncer.sync(current)
        #expect(second.error == nil)
        #expect(try await database.person(id: "ada")?.birthday == event(1990, 3, 16))
        try await expectChoicesKept(database)
    }

    /// A date in another calendar is read with its person's weekend rule too
    /// (the planner moves it like any other).
    @Test func datesInOtherCalendarsCarryTheWeekendRule() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await importCards([["UID:ada", "FN:Ada", "BDAY;CALSCALE=hebrew:57840614"]], in: dir, into: database)
        func rules() async throws -> [WeekendRule?] {
            try await database.read { db in
                var found: [WeekendRule?] = []
                try PersonRecord.forEachEvent(db, rules: TreatmentRules()) { event, traits, _ in
                    if case .otherCalendar = event.date { found.append(traits.weekend) }
                }
                return found
            }
        }
        #expect(try await rules() == [nil])
        try await choose(database)
        #expect(try await rules() == [.friday])
    }

    /// The weekend rule reaches the pending table (the Friday instant and the
    /// day it was moved to, which the ledger needs), and `--default` brings
    /// the weekend days back and clears all three choices.
    @Test func theWeekendRuleMovesPendingRemindersAndDefaultUndoesIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        // Sunday 2026-03-15; now is Tuesday 2026-03-10 in Berlin.
        try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-15"], ["UID:bob", "FN:Bob", "BDAY:1990-03-14"]], in: dir, into: database)
        try await choose(database)
        let zone = try Fixture.zone("Europe/Berlin")
        let pending = try await database.pendingRequests()
        // At Friday 09:00, Bob's Saturday comes before Ada's Sunday.
        #expect(pending.map(\.id) == ["bob-birthday-daybefore", "ada-birthday-dayof", "bob-birthday-dayof"])
        let ada = try #require(pending.first { $0.id == "ada-birthday-dayof" })
        #expect(ISOInstant.format(ada.fireAt, in: zone) == "2026-03-13T09:00:00+01:00")
        #expect(ada.movedTo == date(2026, 3, 13))
        #expect(ada.occurrenceDate == date(2026, 3, 15))
        #expect(ada.body == "Ada turns 36 in 2 days!")

        let reset = try await database.setReminderChoices(
            days: .set(nil),
            channels: .set(nil),
            weekend: .set(nil),
            personID: "ada",
            now: importedAt,
            rescheduling: scheduler(database)
        )
        #expect(reset?.person.channels == nil && reset?.person.weekend == nil && reset?.person.reminderDays == nil)
        let back = try await database.pendingRequests()
        #expect(back.map(\.id) == ["bob-birthday-daybefore", "bob-birthday-dayof", "ada-birthday-daybefore", "ada-birthday-dayof"])
        #expect(back.allSatisfy { $0.movedTo == nil })
        let stored = try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT channels, weekend FROM person WHERE id = 'ada'").map {
                [$0["channels"] as String?, $0["weekend"] as String?]
            }
        }
        #expect(stored == [nil, nil])
    }
}
