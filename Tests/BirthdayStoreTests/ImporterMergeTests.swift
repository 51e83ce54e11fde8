import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The importer's identity and merge rules, fed with parsed contacts so they
/// hold whatever parser produced them.
@Suite struct ImporterMergeTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func contact(
        _ name: String,
        file: String = "a.vcf",
        index: Int = 0,
        uid: String? = nil,
        birthday: EventDate? = nil,
        anniversary: EventDate? = nil
    ) -> ParsedContact {
        ParsedContact(
            source: ContactSource(file: file, index: index, line: index * 5 + 1),
            uid: uid,
            formattedName: name,
            birthday: birthday,
            anniversary: anniversary
        )
    }

    func apply(_ contacts: [ParsedContact], to database: AppDatabase) throws -> ImportReport {
        var report = ImportReport()
        let people = ContactMerge.people(from: contacts, report: &report)
        try database.writeNow { db in _ = try ContactImporter.merge(people, into: db, now: now, report: &report, write: true) }
        return report
    }

    @Test func reimportIsIdempotentAndEditsUpdateInPlace() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        let first = [contact("Ada", uid: "u1", birthday: event(1815, 12, 10)), contact("Alan", index: 1, birthday: event(1912, 6, 23))]
        let r1 = try apply(first, to: database)
        #expect((r1.added, r1.updated, r1.unchanged) == (2, 0, 0))
        let revision = try await database.revision().value
        let r2 = try apply(first, to: database)
        #expect((r2.added, r2.updated, r2.unchanged) == (0, 0, 2))
        #expect(try await database.revision().value == revision, "an unchanged re-import must not bump the revision")
        var edited = first
        edited[1].birthday = event(1912, 6, 24)
        let r3 = try apply(edited, to: database)
        #expect((r3.added, r3.updated, r3.unchanged) == (0, 1, 1))
        #expect(try await database.peopleCount() == 2)
        #expect(try await database.people().first { $0.name == "Alan" }?.birthday == event(1912, 6, 24))
    }

    @Test func samNamedPeopleInOneFileStayTwo() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        let report = try apply(
            [contact("Ms. Test", birthday: event(1988, 1, 1)), contact("Ms. Test", index: 1, birthday: event(1990, 2, 2))],
            to: database
        )
        #expect(report.added == 2)
        #expect(Set(try await database.people().compactMap(\.birthday)) == [event(1988, 1, 1), event(1990, 2, 2)])
    }

    @Test func contactsWithoutDatesAreKeptUndated() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        let report = try apply([contact("Nobody"), contact("Ada", index: 1, birthday: event(nil, 12, 10)), contact("", index: 2)], to: database)
        #expect((report.withoutDates, report.emptySkipped) == (1, 1))
        #expect(report.added == 2)
        #expect(try await database.people().map { "\($0.name) \($0.isUndated)" } == ["Ada false", "Nobody true"])
    }

    @Test func sameContactInTwoFilesMergesAndReportsConflicts() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        let report = try apply(
            [
                contact("Ada", file: "phone.vcf", birthday: event(1815, 12, 10)),
                contact("Ada", file: "google.csv", anniversary: event(1835, 7, 8)),
                contact("Bob", file: "phone.vcf", index: 1, uid: "bob", birthday: event(1950, 1, 1)),
                contact("Bob", file: "google.csv", index: 1, uid: "bob", birthday: event(1951, 1, 1)),
                // Without a UID, the same name on the same day in another year is a namesake: no conflict, two people.
                contact("Carl", file: "phone.vcf", index: 2, birthday: event(1950, 1, 1)),
                contact("Carl", file: "google.csv", index: 2, birthday: event(1951, 1, 1)),
            ],
            to: database
        )
        #expect(report.added == 4)
        #expect(try await database.people().filter { $0.name == "Carl" }.compactMap(\.birthday?.year).sorted() == [1950, 1951])
        let ada = try #require(try await database.people().first { $0.name == "Ada" })
        #expect(ada.birthday == event(1815, 12, 10))
        #expect(ada.anniversary == event(1835, 7, 8))
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.file == "google.csv")
        #expect(report.problems.first?.message.contains("Bob") == false, "problems never name people")
    }

    @Test func aLaterImportFromAnotherFileNeverErasesABirthday() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        _ = try apply([contact("Ada", file: "phone.vcf", birthday: event(1815, 12, 10))], to: database)
        _ = try apply([contact("Ada", file: "google.csv", anniversary: event(1835, 7, 8))], to: database)
        let ada = try #require(try await database.people().first)
        #expect(ada.birthday == event(1815, 12, 10))
        #expect(ada.anniversary == event(1835, 7, 8))
        // The same file without the birthday: the user removed it, so it goes.
        _ = try apply([contact("Ada", file: "google.csv", anniversary: event(1835, 7, 8))], to: database)
        _ = try apply([contact("Ada", file: "phone.vcf", anniversary: event(1835, 7, 8))], to: database)
        #expect(try await database.people().first?.birthday == nil)
    }

    @Test func aFailingWriteLeavesTheStoreUnchanged() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("b.sqlite"))
        _ = try apply([contact("Ada", uid: "u1", birthday: event(1815, 12, 10))], to: database)
        struct Boom: Error {}
        #expect(throws: StoreError.self) {
            try database.writeNow { db in
                var report = ImportReport()
                try ContactImporter.merge(
                    [Person(id: "u2", name: "Bob", source: ContactSource(file: "x", index: 0, line: 1), birthday: event(1950, 1, 1))],
                    into: db,
                    now: now,
                    report: &report,
                    write: true
                )
                throw Boom()
            }
        }
        #expect(try await database.peopleCount() == 1)
    }
}

/// A re-import mirrors the file: a contact that comes back without any date
/// loses its dates, and the person leaves the store.
@Suite struct ReimportMirrorsTheFileTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    func card(_ uid: String, _ name: String, _ lines: [String]) -> String {
        (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)"] + lines + ["END:VCARD", ""]).joined(separator: "\r\n")
    }

    func importing(_ text: String, as name: String, into database: AppDatabase, in directory: TemporaryDirectory) async throws -> ImportReport {
        try await ContactImporter(database: database, now: Self.now, referenceYear: 2026).importPaths([try directory.write(name, text)])
    }

    @Test(arguments: [
        ["BDAY:1815-12-10"],
        ["ANNIVERSARY:2000-06-01"],
        ["BDAY:1815-12-10", "ANNIVERSARY:2000-06-01"],
    ])
    func aContactWhoseOnlyDatesWereDeletedStaysUndated(_ dates: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        let first = card("ada", "Ada Lovelace", dates) + card("alan", "Alan Turing", ["BDAY:1912-06-23"])
        #expect(try await importing(first, as: "book.vcf", into: database, in: directory).added == 2)

        let edited = card("ada", "Ada Lovelace", ["EMAIL:ada@example.org"]) + card("alan", "Alan Turing", ["BDAY:1912-06-23"])
        let report = try await importing(edited, as: "book.vcf", into: database, in: directory)
        #expect((report.updated, report.unchanged, report.removed, report.withoutDates) == (1, 1, 0, 1))
        #expect(try await database.people().map(\.id) == ["ada", "alan"])
        #expect(try await database.person(id: "ada")?.isUndated == true)
        #expect(try await database.feedContents().events.map(\.person.id) == ["alan"])
    }

    @Test func aContactLeftWithNeitherANameNorADateLeaves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        _ = try await importing(card("ada", "Ada Lovelace", ["BDAY:1815-12-10"]), as: "book.vcf", into: database, in: directory)
        let report = try await importing(card("ada", "", []), as: "book.vcf", into: database, in: directory)
        #expect((report.removed, report.emptySkipped) == (1, 1))
        #expect(try await database.people().isEmpty)
    }

    @Test func oneOfTwoDatesDeletedIsUpdatedInPlace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        _ = try await importing(
            card("ada", "Ada Lovelace", ["BDAY:1815-12-10", "ANNIVERSARY:1835-07-08"]),
            as: "book.vcf",
            into: database,
            in: directory
        )
        let report = try await importing(card("ada", "Ada Lovelace", ["ANNIVERSARY:1835-07-08"]), as: "book.vcf", into: database, in: directory)
        #expect((report.updated, report.removed) == (1, 0))
        let ada = try #require(try await database.person(id: "ada"))
        #expect(ada.birthday == nil)
        #expect(ada.anniversary == EventDate(year: 1835, month: 7, day: 8))
    }

    @Test func anotherFileWithoutTheDateRemovesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        _ = try await importing(card("ada", "Ada Lovelace", ["BDAY:1815-12-10"]), as: "phone.vcf", into: database, in: directory)
        let report = try await importing(
            card("ada", "Ada Lovelace", ["EMAIL:ada@example.org"]) + card("alan", "Alan Turing", ["BDAY:1912-06-23"]),
            as: "work.vcf",
            into: database,
            in: directory
        )
        #expect(report.removed == 0)
        #expect(try await database.person(id: "ada")?.birthday == EventDate(year: 1815, month: 12, day: 10))
    }

    @Test func aCSVRowWithoutItsBirthdayStaysUndatedToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        _ = try await importing("Name,Birthday\nAda Lovelace,1815-12-10\nAlan Turing,1912-06-23\n", as: "google.csv", into: database, in: directory)
        let report = try await importing("Name,Birthday\nAda Lovelace,\nAlan Turing,1912-06-23\n", as: "google.csv", into: database, in: directory)
        #expect((report.updated, report.removed) == (1, 0))
        #expect(try await database.people().map(\.name) == ["Ada Lovelace", "Alan Turing"])
        #expect(try await database.people().filter(\.isUndated).map(\.name) == ["Ada Lovelace"])
    }
}

@Suite struct FutureBirthDateTests {
    @Test func isReportedAndGetsNoReminderBeforeIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.inMemory()
        let file = try directory.write("typo.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:typo\r\nFN:Typo Person\r\nBDAY:2030-01-10\r\nEND:VCARD\r\n")
        let now = try Fixture.instant("2026-11-23T08:00:00Z")
        let today = LocalDate.today(at: now, in: .gmt)
        let report = try await ContactImporter(database: database, now: now, referenceYear: 2026, today: today).importPaths([file])
        #expect(report.added == 1)
        #expect(report.problems.map(\.description) == ["\(file):1: the birth date is in the future (year 2030); no reminder or age before it"])
        #expect(!report.problems[0].message.contains("Typo"))
        try await database.setAuthorizationStatus(.authorized)
        let result = try await Fixture.scheduler(database, now: now, zone: .gmt).reschedule()
        let first = try #require(result.requests.first)
        #expect(first.occurrenceDate == LocalDate(year: 2030, month: 1, day: 10))
        #expect(result.requests.allSatisfy { !$0.body.contains("turns") })
    }
}
