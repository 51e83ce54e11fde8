import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore
@testable import BirthdayText

/// Per-person control in a real SQLite database (issue 12): the import of
/// nicknames, death dates and Nextcloud's exclusion, the user's choices
/// against re-imports, the reminders they give, and the migration.
@Suite struct PersonControlStoreTests {
    let importedAt = Date(timeIntervalSince1970: 1_790_000_000)

    /// A real file database with notifications allowed.
    private func database(_ dir: TemporaryDirectory) async throws -> AppDatabase {
        let database = try AppDatabase.openFile(at: dir.file("people.sqlite"))
        try await database.setAuthorizationStatus(.authorized)
        return database
    }

    /// Imports `cards` (vCard lines) written to `name` in `dir`, rescheduling
    /// at 2026-03-10 08:00 in Berlin.
    @discardableResult
    private func importCards(
        _ cards: [[String]],
        as name: String = "contacts.vcf",
        in dir: TemporaryDirectory,
        into database: AppDatabase
    ) async throws
        -> ImportReport
    {
        let path = dir.file(name)
        let text = cards.map { (["BEGIN:VCARD", "VERSION:3.0"] + $0 + ["END:VCARD"]).joined(separator: "\r\n") }.joined(separator: "\r\n") + "\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let importer = ContactImporter(
            database: database,
            now: importedAt,
            referenceYear: 2026,
            scheduler: try Fixture.scheduler(database, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
        )
        return try await importer.importPaths([path])
    }

    private func scheduler(_ database: AppDatabase) throws -> NotificationScheduler {
        try Fixture.scheduler(database, now: Fixture.instant("2026-03-10T08:00:00+01:00"), zone: Fixture.zone("Europe/Berlin"))
    }

    private func pendingIDs(_ database: AppDatabase) async throws -> [String] {
        try await database.pendingRequests().map(\.id)
    }

    // MARK: - Exclusion

    @Test func theCardsExclusionAndTheUsersChoice() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        let excludedCard = ["UID:ada", "FN:Ada", "BDAY:1990-03-11", "X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR;TYPE=boolean:true"]
        let plainCard = ["UID:ada", "FN:Ada", "BDAY:1990-03-11"]
        let bob = ["UID:bob", "FN:Bob", "BDAY:--03-12"]

        // The card excludes: stored, but no reminders and no feed event.
        try await importCards([excludedCard, bob], in: dir, into: database)
        var ada = try #require(try await database.person(id: "ada"))
        #expect(ada.excluded && ada.exclusion == Exclusion(card: true))
        #expect(try await pendingIDs(database) == ["bob-birthday-daybefore", "bob-birthday-dayof"])
        #expect(try await database.feedContents().events.map(\.person.id) == ["bob"])

        // The user includes Ada: the choice wins over the card, at once and after re-imports.
        let included = try #require(try await database.setExclusion(.include, personID: "ada", now: importedAt, rescheduling: scheduler(database)))
        #expect(!included.person.excluded)
        #expect(included.rescheduled?.requests.map(\.personID).contains("ada") == true)
        try await importCards([excludedCard, bob], in: dir, into: database)
        ada = try #require(try await database.person(id: "ada"))
        #expect(!ada.excluded && ada.exclusion == Exclusion(card: true, choice: .include))
        #expect(try await pendingIDs(database).contains("ada-birthday-dayof"))

        // The user excludes her: kept even after the card stops asking for it.
        _ = try await database.setExclusion(.exclude, personID: "ada", now: importedAt, rescheduling: scheduler(database))
        try await importCards([plainCard, bob], in: dir, into: database)
        ada = try #require(try await database.person(id: "ada"))
        #expect(ada.excluded && ada.exclusion == Exclusion(card: false, choice: .exclude))
        #expect(try await !pendingIDs(database).contains { $0.hasPrefix("ada-") })
        #expect(try await database.upcoming(UpcomingEvents(today: date(2026, 3, 10))).map(\.personID) == ["bob"])

        // No such person: nothing written.
        #expect(try await database.setExclusion(.exclude, personID: "nobody", now: importedAt) == nil)
    }

    @Test func aCardsExclusionFollowsItsFileAndAnotherFileNeverErasesIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        let card = ["UID:ada", "FN:Ada", "NICKNAME:Addie", "BDAY:1990-03-11", "DEATHDATE:2020-01-02", "X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR:true"]
        try await importCards([card], as: "nextcloud.vcf", in: dir, into: database)
        // The same contact in another file that says none of it.
        let report = try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-11"]], as: "phone.vcf", in: dir, into: database)
        #expect(report.unchanged == 1)
        var ada = try #require(try await database.person(id: "ada"))
        #expect(ada.nickname == "Addie" && ada.deathDate == "2020-01-02" && ada.exclusion.card)
        // Its own file without them: gone, as the card now says.
        try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-11"]], as: "nextcloud.vcf", in: dir, into: database)
        ada = try #require(try await database.person(id: "ada"))
        #expect(ada.nickname.isEmpty && ada.deathDate == nil && !ada.excluded)
    }

    // MARK: - Reminder days

    @Test func aPersonsOwnDaysOutlastImportsAndGiveTheirIDs() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        let cards = [["UID:ada", "FN:Ada", "BDAY:1990-03-20"], ["UID:bob", "FN:Bob", "ANNIVERSARY:2016-03-19"]]
        try await importCards(cards, in: dir, into: database)
        let week = try #require(ReminderDays("7,1,0"))
        let result = try #require(try await database.setReminderDays(week, personID: "ada", now: importedAt, rescheduling: scheduler(database)))
        #expect(result.person.reminderDays == week)
        try await importCards(cards, in: dir, into: database)
        #expect(try await database.person(id: "ada")?.reminderDays == week)
        #expect(
            try await pendingIDs(database) == [
                "ada-birthday-7daysbefore", "bob-anniversary-daybefore", "bob-anniversary-dayof", "ada-birthday-daybefore", "ada-birthday-dayof",
            ]
        )
        let request = try #require(try await database.pendingRequests().first)
        #expect(request.title == "Birthday in a week" && request.body == "Ada turns 36 in a week!")
        #expect(request.timing.rawValue == "7-days-before")
        #expect(ISOInstant.format(request.fireAt, in: try Fixture.zone("Europe/Berlin")) == "2026-03-13T09:00:00+01:00")

        // The setting for everyone else, and --default.
        try await database.setSetting(.reminders, to: "0", now: importedAt)
        _ = try await scheduler(database).reschedule()
        #expect(try await pendingIDs(database).filter { $0.hasPrefix("bob-") } == ["bob-anniversary-dayof"])
        _ = try await database.setReminderDays(nil, personID: "ada", now: importedAt, rescheduling: scheduler(database))
        #expect(try await pendingIDs(database) == ["bob-anniversary-dayof", "ada-birthday-dayof"])
        #expect(try await database.person(id: "ada")?.reminderDays == nil)
    }

    /// A week-ahead reminder whose moment passes while the daemon is stopped
    /// is moved to the ledger for its own local day, and a reschedule never
    /// brings it back: exactly once holds for every lead.
    @Test func aPassedWeekAheadReminderGoesToTheLedgerOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await database.setSetting(.reminders, to: "7,1,0", now: importedAt)
        try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-20"]], in: dir, into: database)
        #expect(try await pendingIDs(database).first == "ada-birthday-7daysbefore")
        let zone = try Fixture.zone("Europe/Berlin")
        let later = try Fixture.scheduler(database, now: Fixture.instant("2026-03-13T10:00:00+01:00"), zone: zone)
        _ = try await later.reschedule()
        #expect(try await pendingIDs(database) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
        let ledger = try await database.deliveries(updatedSince: Date(timeIntervalSince1970: 0))
        #expect(ledger.map(\.notificationID) == ["ada-birthday-7daysbefore"])
        #expect(ledger.first?.state == .queued)
        #expect(ledger.first?.localDay(in: zone, deliveryTime: Settings().deliveryTime, quietAfter: Settings().quietAfter) == date(2026, 3, 13))
        _ = try await later.reschedule()
        #expect(try await database.deliveries(updatedSince: Date(timeIntervalSince1970: 0)).count == 1)
        #expect(try await pendingIDs(database) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
    }

    @Test func theCapKeepsTheSoonest64OfEveryLead() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await database.setSetting(.reminders, to: "7,1,0", now: importedAt)
        let start = date(2026, 3, 10)
        let cards = (1...60).map { i -> [String] in
            let day = start.adding(days: i)
            return ["UID:p\(String(format: "%02d", i))", "FN:P\(i)", String(format: "BDAY:--%02d%02d", day.month, day.day)]
        }
        try await importCards(cards, in: dir, into: database)
        let pending = try await database.pendingRequests()
        #expect(pending.count == 64)
        // Planned one by one into the reference notification center, the same 64 stay.
        let all = try await planAll(database)
        let center = PendingNotificationStore(database: try AppDatabase.inMemory())
        try center.setAuthorizationStatus(.authorized)
        for request in all { try center.add(request, now: try Fixture.instant("2026-03-10T08:00:00+01:00")) }
        #expect(try center.pending() == pending)
        #expect(Set(pending.map(\.timing.daysBefore)) == [0, 1, 7])
    }

    /// Every reminder the store's people give, without the cap.
    private func planAll(_ database: AppDatabase) async throws -> [NotificationRequest] {
        let settings = try await database.settings()
        let zone = try Fixture.zone("Europe/Berlin")
        var planner = ReminderPlanner(settings: settings, timeZone: zone, now: try Fixture.instant("2026-03-10T08:00:00+01:00"), capacity: 10_000)
        for person in try await database.people() {
            guard let birthday = person.birthday, let treatment = settings.treatment(of: .birthday, for: PersonTraits(person)) else { continue }
            planner.offer(birthday, kind: .birthday, treatment: treatment) { (person.id, person.name, person.nickname) }
        }
        return planner.requests()
    }

    // MARK: - Deceased and nicknames

    @Test func deceasedPeopleAreSkippedOrRemembered() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await database.setSetting(.reminders, to: "7,1,0", now: importedAt)
        let cards = [
            ["UID:eve", "FN:Eve", "BDAY:1946-03-20", "ANNIVERSARY:1970-03-21", "DEATHDATE:2024-02-01"],
            ["UID:bob", "FN:Bob", "BDAY:--03-25"],
        ]
        try await importCards(cards, in: dir, into: database)
        #expect(try await database.person(id: "eve")?.deathDate == "2024-02-01")
        #expect(try await !pendingIDs(database).contains { $0.hasPrefix("eve-") })
        #expect(try await database.upcoming(UpcomingEvents(today: date(2026, 3, 10))).map(\.personID) == ["bob"])

        try await database.setSetting(.deceased, to: "remember", now: importedAt)
        let rescheduled = try await scheduler(database).reschedule()
        let eve = rescheduled.requests.filter { $0.personID == "eve" }
        #expect(eve.map(\.id) == ["eve-birthday-dayof"])
        #expect(eve.map(\.title) == ["Remembering Eve"])
        #expect(eve.map(\.body) == ["Eve would have turned 80 today."])
        let upcoming = try await database.upcoming(
            UpcomingEvents(today: date(2026, 3, 10), settings: try await database.settings(), nameDays: NameDaySetup())
        )
        #expect(upcoming.map { "\($0.personID) \($0.kind) \($0.memorial)" } == ["eve birthday true", "bob birthday false"])
    }

    @Test func namesNicknameChangesTheWordsNotTheLists() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try await database(dir)
        try await importCards([["UID:ada", "FN:Ada Lovelace", "NICKNAME:Addie,Countess", "BDAY:1990-03-11"]], in: dir, into: database)
        #expect(try await database.pendingRequests().map(\.body) == ["Ada Lovelace turns 36 tomorrow!", "Ada Lovelace turns 36 today!"])
        try await database.setSetting(.names, to: "nickname", now: importedAt)
        let requests = try await scheduler(database).reschedule().requests
        #expect(requests.map(\.body) == ["Addie turns 36 tomorrow!", "Addie turns 36 today!"])
        #expect(try await database.upcoming(UpcomingEvents(today: date(2026, 3, 10))).map(\.name) == ["Ada Lovelace"])
        #expect(try await database.feedContents().events.first?.person.nickname == "Addie")
    }

    // MARK: - Migration

    /// A database written before `v5-person-control`: `day-before off`
    /// becomes `reminders 0`, and its people keep their fingerprints.
    @Test(arguments: [("off", "0"), ("on", "1,0")])
    func theMigrationTurnsDayBeforeIntoReminders(dayBefore: String, reminders: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "v4-public-id-key")
        let old = Person(
            id: "ada",
            name: "Ada",
            source: ContactSource(file: dir.file("contacts.vcf"), index: 0, line: 1),
            birthday: EventDate(year: 1990, month: 3, day: 11)
        )
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES ('day-before', ?)", arguments: [dayBefore])
            try db.execute(
                sql: """
                    INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayYear, birthdayMonth, birthdayDay,
                                        fingerprint, excluded, createdAt, updatedAt)
                    VALUES ('ada', 'Ada', ?, 0, 1, 1990, 3, 11, ?, 0, 0, 0)
                    """,
                arguments: [old.source.file, old.fingerprint]
            )
        }
        try queue.close()

        let database = try AppDatabase.openFile(at: path)
        let settings = try await database.settings()
        #expect(settings.text(for: .reminders) == reminders)
        #expect(try await database.read { db in try SettingRecord.value(for: "day-before", db) } == nil)
        let ada = try #require(try await database.person(id: "ada"))
        #expect(ada.nickname.isEmpty && ada.deathDate == nil && ada.exclusion == Exclusion() && ada.reminderDays == nil)
        // The same card imported again is unchanged: the new fields do not move old fingerprints.
        let report = try await importCards([["UID:ada", "FN:Ada", "BDAY:1990-03-11"]], in: dir, into: database)
        #expect((report.added, report.updated, report.unchanged) == (0, 0, 1))
    }
}
