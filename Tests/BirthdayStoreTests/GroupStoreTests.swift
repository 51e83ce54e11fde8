import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// Reminders by group and by source in a real SQLite store (issue 26): the
/// groups of imported files and of a vdir source, rules kept by name as
/// cards join and leave groups, and the pending reminders, the feed and
/// `upcoming` following ``RulePrecedence``.
@Suite struct GroupStoreTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z, 08:00 in Berlin

    private static func scheduler(_ database: AppDatabase) throws -> NotificationScheduler {
        try Fixture.scheduler(database, now: now, zone: Fixture.zone("Europe/Berlin"))
    }

    private static func pending(_ database: AppDatabase) async throws -> [String] {
        try await database.pendingRequests().map(\.id).sorted()
    }

    private static func card(_ lines: [String], version: String = "3.0") -> String {
        (["BEGIN:VCARD", "VERSION:\(version)"] + lines + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
    }

    /// Ada (CATEGORIES Family, Work; Mar 20), Bob (Mar 25) and Cy (no group; Mar 28),
    /// and Apple's group card "Chess" listing Bob and someone not in the file.
    static let file =
        card(["UID:ada", "FN:Ada", "BDAY:1990-03-20", "CATEGORIES:Family,Work"])
        + card(["UID:bob", "FN:Bob", "BDAY:1985-03-25"])
        + card(["UID:cy", "FN:Cy", "BDAY:1970-03-28"])
        + card([
            "N:Chess", "FN:Chess", "X-ADDRESSBOOKSERVER-KIND:group", "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:bob",
            "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:ghost", "UID:chess-group",
        ])

    private func imported(_ text: String = GroupStoreTests.file) async throws -> (AppDatabase, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let database = try AppDatabase.openFile(at: dir.file("people.sqlite"))
        try await database.setAuthorizationStatus(.authorized)
        let path = dir.file("contacts.vcf")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let report = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, scheduler: try Self.scheduler(database))
            .importPaths([path])
        #expect(report.added == 3 && report.withoutDates == 0)
        return (database, dir)
    }

    @Test func importedGroupsAndTheirRulesDecideThePendingReminders() async throws {
        let (database, dir) = try await imported()
        defer { dir.cleanup() }
        #expect(
            try await database.groups() == [
                GroupSummary(name: "Chess", people: 1), GroupSummary(name: "Family", people: 1), GroupSummary(name: "Work", people: 1),
            ]
        )
        #expect(try await database.person(id: "ada")?.groups == ["Family", "Work"])
        #expect(try await database.person(id: "bob")?.groups == ["Chess"])
        let everyone = [
            "ada-birthday-daybefore", "ada-birthday-dayof", "bob-birthday-daybefore", "bob-birthday-dayof", "cy-birthday-daybefore",
            "cy-birthday-dayof",
        ]
        #expect(try await Self.pending(database) == everyone)

        // Work is left out: Ada goes, with her feed event and her `upcoming` entry; her date stays.
        let scheduler = try Self.scheduler(database)
        _ = try await database.setSharedRule(.group("Work"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await Self.pending(database) == everyone.filter { !$0.hasPrefix("ada-") })
        #expect(try await database.feedContents().events.map(\.person.id) == ["bob", "cy"])
        #expect(try await database.upcoming(UpcomingEvents(today: date(2026, 3, 10))).map(\.personID) == ["bob", "cy"])
        let ada = try #require(try await database.person(id: "ada"))
        #expect(ada.birthday != nil && ada.decision.excluded && ada.decision.exclusionBy == .shared(.group("Work")))

        // Family says include: include beats exclude between groups.
        _ = try await database.setSharedRule(.group("Family"), exclusion: .set(.include), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await Self.pending(database) == everyone)

        // A rule on the person beats every group rule.
        _ = try await database.setExclusion(.exclude, personID: "ada", now: Self.now, rescheduling: scheduler)
        #expect(try await !Self.pending(database).contains { $0.hasPrefix("ada-") })
        _ = try await database.setExclusion(.include, personID: "ada", now: Self.now, rescheduling: scheduler)

        // Days of several groups are joined; the person's own days win.
        _ = try await database.setSharedRule(
            .group("Work"),
            exclusion: .set(nil),
            days: .set(ReminderDays([7])),
            now: Self.now,
            rescheduling: scheduler
        )
        _ = try await database.setSharedRule(
            .group("Family"),
            exclusion: .keep,
            days: .set(ReminderDays([3, 0])),
            now: Self.now,
            rescheduling: scheduler
        )
        _ = try await database.setSharedRule(.group("Chess"), exclusion: .keep, days: .set(ReminderDays([2])), now: Self.now, rescheduling: scheduler)
        #expect(
            try await Self.pending(database) == [
                "ada-birthday-3daysbefore", "ada-birthday-7daysbefore", "ada-birthday-dayof", "bob-birthday-2daysbefore",
                "cy-birthday-daybefore", "cy-birthday-dayof",
            ]
        )
        _ = try await database.setReminderDays(ReminderDays([1]), personID: "ada", now: Self.now, rescheduling: scheduler)
        #expect(try await Self.pending(database).filter { $0.hasPrefix("ada-") } == ["ada-birthday-daybefore"])
        #expect(try await database.people(inGroup: "Chess").map(\.id) == ["bob"])
    }

    @Test func googleLabelsFromACSVExportAndAStarredRule() async throws {
        let csv = """
            First Name,Last Name,Birthday,Labels
            Ada,Lovelace,1990-03-20,* myContacts ::: * starred ::: Family
            Bob,Builder,1985-03-25,* myContacts
            Cy,Young,1970-03-28,* myContacts ::: Family

            """
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("people.sqlite"))
        try await database.setAuthorizationStatus(.authorized)
        let path = dir.file("google.csv")
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        let scheduler = try Self.scheduler(database)
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, scheduler: scheduler).importPaths([path])
        #expect(try await database.groups().map { "\($0.name) \($0.people)" } == ["Family 2", "Starred 1"])
        // Only the starred get a week's notice; everyone else follows the setting.
        _ = try await database.setSharedRule(
            .group("Starred"),
            exclusion: .keep,
            days: .set(ReminderDays([7, 0])),
            now: Self.now,
            rescheduling: scheduler
        )
        let ids = try await Self.pending(database)
        #expect(ids.filter { $0.contains("7daysbefore") }.count == 1)
        let ada = try #require(try await database.people().first { $0.name == "Ada Lovelace" })
        #expect(ids.contains("\(ada.id)-birthday-7daysbefore"))
        #expect(ada.decision.reminderDaysBy == [.group("Starred")])
    }

    @Test func aReimportReplacesTheGroupsAndTheRulesStayByName() async throws {
        let (database, dir) = try await imported()
        defer { dir.cleanup() }
        let scheduler = try Self.scheduler(database)
        _ = try await database.setSharedRule(.group("Chess"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await !Self.pending(database).contains { $0.hasPrefix("bob-") })

        // Bob leaves the chess group card and Cy joins it: the rule follows the name.
        let moved = Self.file.replacingOccurrences(of: "urn:uuid:bob", with: "urn:uuid:cy")
        let path = dir.file("contacts.vcf")
        try Data(moved.utf8).write(to: URL(fileURLWithPath: path))
        let report = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, scheduler: scheduler).importPaths([path])
        #expect(report.updated == 2)
        #expect(try await Self.pending(database).contains("bob-birthday-dayof"))
        #expect(try await !Self.pending(database).contains { $0.hasPrefix("cy-") })
        #expect(try await database.groups().first { $0.name == "Chess" }?.people == 1)
        #expect(try await database.person(id: "bob")?.groups == [])
    }

    @Test func groupsCountInTheFingerprintOnlyWhenThereAreAny() {
        let source = ContactSource(file: "f", index: 0, line: 1)
        var person = Person(id: "ada", name: "Ada", source: source, birthday: EventDate(year: 1990, month: 3, day: 11))
        let plain = person.fingerprint
        person.groups = ["Family"]
        #expect(person.fingerprint != plain)
        person.groups = []
        #expect(person.fingerprint == plain)
    }

    /// A database from before `v14-groups` whose vdir source already holds a
    /// card with `CATEGORIES`: the migration makes the next sync read the card
    /// again (its file stamp is unchanged), so its groups arrive.
    @Test func theMigrationMakesSourcesReadTheirCardsAgain() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let folder = dir.file("book")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(Self.card(["UID:ada", "FN:Ada", "BDAY:1990-03-20", "CATEGORIES:Family"]).utf8).write(to: URL(fileURLWithPath: folder + "/ada.vcf"))
        let stamp = try #require(LocalSourceReader.stamp(folder + "/ada.vcf")).text
        let old = Person(
            id: "ada",
            name: "Ada",
            source: ContactSource(file: folder + "/ada.vcf", index: 0, line: 1),
            birthday: EventDate(year: 1990, month: 3, day: 20)
        )
        let path = dir.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "v11-publish")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO source (id, name, kind, location, failures, createdAt, lastSyncAt) VALUES (1, 'book', 'vdir', ?, 0, 0, 0)",
                arguments: [folder]
            )
            try db.execute(
                sql: """
                    INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayYear, birthdayMonth, birthdayDay,
                                        fingerprint, excluded, createdAt, updatedAt, imported)
                    VALUES ('ada', 'Ada', ?, 0, 1, 1990, 3, 20, ?, 0, 0, 0, 0)
                    """,
                arguments: [old.source.file, old.fingerprint]
            )
            try db.execute(sql: "INSERT INTO sourceItem (sourceId, href, etag) VALUES (1, 'ada.vcf', ?)", arguments: [stamp])
            try db.execute(
                sql: "INSERT INTO sourcePerson (sourceId, href, personId, fingerprint) VALUES (1, 'ada.vcf', 'ada', ?)",
                arguments: [old.fingerprint]
            )
        }
        try queue.close()

        let database = try AppDatabase.openFile(at: path)
        let source = try #require(try await database.sources().first)
        let report = await SourceSync(
            database: database,
            readers: SourceReaders { _ in LocalSourceReader() },
            now: { Self.now },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: LogRecorder().logger
        ).sync(source)
        #expect(report.error == nil)
        #expect(report.counts == [0, 1, 0, 0])
        #expect(try await database.person(id: "ada")?.groups == ["Family"])
    }

    // MARK: - A vdir source

    struct Book {
        let database: AppDatabase
        let folder: TemporaryDirectory
        let logs = LogRecorder()
        var source: Source?

        init() async throws {
            folder = try TemporaryDirectory()
            database = try AppDatabase.openFile(at: folder.file("people.sqlite"))
            try await database.setAuthorizationStatus(.authorized)
            try FileManager.default.createDirectory(atPath: folder.file("book"), withIntermediateDirectories: true)
            source = try await database.addSource(Source(name: "book", kind: .vdir, location: folder.file("book")), now: GroupStoreTests.now)
        }

        func write(_ file: String, _ text: String) throws {
            let target = folder.file("book/" + file)
            let temporary = target + ".tmp"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            _ = rename(temporary, target)
        }

        func sync() async throws -> SourceSyncReport {
            let syncer = SourceSync(
                database: database,
                readers: SourceReaders { _ in LocalSourceReader() },
                now: { GroupStoreTests.now },
                systemTimeZone: { TimeZone(identifier: "Europe/Berlin")! },
                logger: logs.logger
            )
            let current = try #require(try await database.sources().first { $0.id == source?.id })
            let report = await syncer.sync(current)
            #expect(report.error == nil, "\(String(describing: report.error))")
            return report
        }
    }

    @Test func aVdirBookFollowsCategoriesAndGroupCardsFromSync() async throws {
        let book = try await Book()
        defer { book.folder.cleanup() }
        try book.write("ada.vcf", Self.card(["UID:ada", "FN:Ada", "BDAY:1990-03-20", "CATEGORIES:Family"]))
        try book.write("bob.vcf", Self.card(["UID:bob", "FN:Bob", "BDAY:1985-03-25"], version: "4.0"))
        try book.write("cy.vcf", Self.card(["UID:cy", "FN:Cy", "BDAY:1970-03-28"]))
        try book.write(
            "work.vcf",
            Self.card(["KIND:group", "FN:Work", "MEMBER:urn:uuid:bob", "MEMBER:urn:uuid:ghost", "UID:urn:uuid:work"], version: "4.0")
        )
        let first = try await book.sync()
        #expect(first.counts == [3, 0, 0, 0])
        #expect(try await book.database.groups().map { "\($0.name) \($0.people)" } == ["Family 1", "Work 1"])
        let scheduler = try Self.scheduler(book.database)
        _ = try await book.database.setSharedRule(.group("Family"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        _ = try await book.database.setSharedRule(
            .group("Work"),
            exclusion: .keep,
            days: .set(ReminderDays([7])),
            now: Self.now,
            rescheduling: scheduler
        )
        #expect(try await Self.pending(book.database) == ["bob-birthday-7daysbefore", "cy-birthday-daybefore", "cy-birthday-dayof"])

        // On the phone, Ada leaves Family and Cy joins Work (only the group card changes).
        try book.write("ada.vcf", Self.card(["UID:ada", "FN:Ada", "BDAY:1990-03-20"]))
        try book.write(
            "work.vcf",
            Self.card(["KIND:group", "FN:Work", "MEMBER:urn:uuid:bob", "MEMBER:urn:uuid:cy", "UID:urn:uuid:work"], version: "4.0")
        )
        let second = try await book.sync()
        #expect(second.peopleChanged)
        #expect(
            try await Self.pending(book.database) == [
                "ada-birthday-daybefore", "ada-birthday-dayof", "bob-birthday-7daysbefore", "cy-birthday-7daysbefore",
            ]
        )
        #expect(try await book.database.person(id: "cy")?.groups == ["Work"])

        // The group card goes: nobody is in Work, its rule is kept by name.
        try FileManager.default.removeItem(atPath: book.folder.file("book/work.vcf"))
        _ = try await book.sync()
        #expect(try await Self.pending(book.database).contains("cy-birthday-dayof"))
        #expect(try await book.database.groups().map { "\($0.name) \($0.people)" } == ["Family 0", "Work 0"])
        #expect(!book.logs.all.joined().contains("Work"), "logs never name a group")
    }

    @Test func aWholeSourceIsLeftOutAndAGroupTakesItsPeopleBackIn() async throws {
        let book = try await Book()
        defer { book.folder.cleanup() }
        try book.write("ada.vcf", Self.card(["UID:ada", "FN:Ada", "BDAY:1990-03-20", "CATEGORIES:Family"]))
        try book.write("bob.vcf", Self.card(["UID:bob", "FN:Bob", "BDAY:1985-03-25"]))
        _ = try await book.sync()
        let scheduler = try Self.scheduler(book.database)
        _ = try await book.database.setSharedRule(.source("book"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await Self.pending(book.database) == [])
        #expect(try await book.database.people().count == 2, "the dates are kept")
        _ = try await book.database.setSharedRule(.group("Family"), exclusion: .set(.include), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await Self.pending(book.database) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
        // Undone, the rule is forgotten.
        let undone = try await book.database.setSharedRule(.source("book"), exclusion: .set(nil), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(undone.rule.isEmpty)
        #expect(try await book.database.sourceRules() == [])
        #expect(try await Self.pending(book.database).count == 4)
    }

    /// Imports `text` (cards) into the book's store, from a file beside the book.
    private static func importing(_ text: String, into book: Book) async throws {
        let path = book.folder.file("export.vcf")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let scheduler = try Self.scheduler(book.database)
        _ = try await ContactImporter(database: book.database, now: Self.now, referenceYear: 2026, scheduler: scheduler).importPaths([path])
    }

    @Test func aCardThatMakesAnImportedFriendTheSourcesPutsThemInItsGreetedGroupCard() async throws {
        let book = try await Book()
        defer { book.folder.cleanup() }
        // Ana, imported from a file, her birthday today; the book's group card Family lists her, and Family is greeted.
        let ana = Self.card(["UID:ana", "FN:Ana Lima", "BDAY:1990-03-10"])
        try await Self.importing(ana, into: book)
        try book.write("family.vcf", Self.card(["KIND:group", "FN:Family", "MEMBER:urn:uuid:ana", "UID:urn:uuid:family"], version: "4.0"))
        _ = try await book.database.addGreeting(Greeting(target: .group("Family"), way: .apprise), now: Self.now)
        #expect(try await book.sync().peopleChanged, "a new group card")
        #expect(try await book.database.groups().first { $0.name == "Family" }?.people ?? 0 == 0, "the book has not brought her card")
        #expect(try await !Self.pending(book.database).contains("greet:ana"))

        // The book brings her card, as the file has it: she is in Family now, and greeted at 09:00.
        try book.write("ana.vcf", ana)
        let before = try await book.database.revision()
        let brought = try await book.sync()
        #expect(brought.counts == [1, 0, 0, 0])
        #expect(brought.peopleChanged, "rescheduled")
        #expect(try await book.database.revision().value == before.value + 1)
        #expect(try await book.database.groups().map { "\($0.name) \($0.people)" } == ["Family 1"])
        #expect(try await Self.pending(book.database).contains("greet:ana"), "her greeting is planned")

        // The same cards again: no change, no move.
        let again = try await book.sync()
        #expect(!again.peopleChanged)
        #expect(try await book.database.revision().value == before.value + 1)
    }

    @Test func aCardThatMakesAnImportedFriendTheSourcesPutsThemUnderItsRuleUntilTheSourceGoes() async throws {
        let book = try await Book()
        defer { book.folder.cleanup() }
        let ada = Self.card(["UID:ada", "FN:Ada", "BDAY:1990-03-20"])
        try await Self.importing(ada + Self.card(["UID:bob", "FN:Bob", "BDAY:1985-03-25"]), into: book)
        let scheduler = try Self.scheduler(book.database)
        _ = try await book.database.setSharedRule(.source("book"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        let everyone = ["ada-birthday-daybefore", "ada-birthday-dayof", "bob-birthday-daybefore", "bob-birthday-dayof"]
        #expect(try await Self.pending(book.database) == everyone, "the book has nobody")

        // The book brings Ada's card, as the file has it: she is left out with the book.
        try book.write("ada.vcf", ada)
        #expect(try await book.sync().peopleChanged)
        #expect(try await Self.pending(book.database) == everyone.filter { !$0.hasPrefix("ada-") })
        _ = try await scheduler.reschedule()
        #expect(try await Self.pending(book.database) == everyone.filter { !$0.hasPrefix("ada-") })

        // The book goes, Ada stays (an import brought her): back in, and the feed's revision moved.
        let before = try await book.database.revision()
        #expect(try await book.database.removeSource(named: "book", keepPeople: true, now: Self.now, systemTimeZone: .gmt) == 0)
        #expect(try await book.database.revision().value == before.value + 1)
        #expect(try await Self.pending(book.database) == everyone)
    }
}
