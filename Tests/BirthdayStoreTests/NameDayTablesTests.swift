import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The name-day lists of your own and the choices per person have a table
/// each (migration `v30-name-day-tables`), a choice going with its person.
@Suite struct NameDayTablesTests {
    static let now = SourceSyncTests.now

    /// "country|text" of every list and "personId|month|day" of every choice (`-` for NULL), and the
    /// `setting` keys that start with `name-day`.
    private static func contents(_ database: AppDatabase) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'list ' || country || '|' || text FROM nameDayList
                    UNION ALL SELECT 'choice ' || personId || '|' || coalesce(month, '-') || '|' || coalesce(day, '-') FROM nameDayChoice
                    UNION ALL SELECT 'setting ' || key FROM setting WHERE key GLOB 'name-day*'
                    ORDER BY 1
                    """
            )
        }
    }

    @Test func theMigrationMovesTheListsAndChoicesAndDropsTheChoiceOfSomeoneGone() async throws {
        // Given a database of the version before, with a list of your own that the `name-days`
        // setting names, and choices for Ann, Bob and someone no longer stored.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("old.sqlite")
        try AppDatabase.writeOld(
            at: path,
            upTo: "v29-person-references",
            sql: """
                INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayMonth, birthdayDay, fingerprint, createdAt, updatedAt)
                VALUES ('ann', 'Anna', '/book/ann.vcf', 0, 1, 4, 12, 'old', 0, 0),
                       ('bob', 'Josef', '/book/bob.vcf', 0, 1, 5, 1, 'old', 0, 0);
                INSERT INTO setting (key, value) VALUES ('name-day-list-cz', '03-19,josef' || char(10) || '03-20,anna,josef'),
                       ('name-days', 'cz'), ('name-day-choices', 'ann=off' || char(10) || 'bob=06-24' || char(10) || 'gone=07-01');
                """
        )

        // When it is opened.
        let database = try AppDatabase.openFile(at: path)

        // Then the list and the choices of the people stored are in their tables, the one of
        // someone gone is dropped, and the old setting rows are gone.
        #expect(
            try await Self.contents(database) == [
                "choice ann|-|-", "choice bob|6|24", "list cz|03-19,josef\n03-20,anna,josef", "setting name-days",
            ]
        )
        // And the settings still name the list, which makes name days as before.
        let settings = try await database.settings()
        #expect(settings.nameDays == ["cz"] && settings.ownNameDayCodes == ["cz"])
        let nameDays = try await database.nameDays(for: settings)
        #expect(nameDays.lists.map(\.country) == ["cz"] && nameDays.lists.first?.days(of: "Anna").count == 1)
        #expect(nameDays.choices == ["ann": .off, "bob": .day(EventDate(year: nil, month: 6, day: 24)!)])
    }

    @Test func removingAPersonRemovesTheirChoice() async throws {
        // Given Ann and Bob from a source, each with a name day of their own choosing.
        let bed = try SourceSyncTests.Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        let source = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(source).counts == [2, 0, 0, 0])
        let day = NameDayChoice.day(EventDate(year: nil, month: 3, day: 3)!)
        let before = try await bed.database.revision().value
        _ = try await bed.database.setNameDayChoice(day, personID: "ann", now: Self.now)
        _ = try await bed.database.setNameDayChoice(.off, personID: "bob", now: Self.now)
        // A choice changes events: the data revision moves (the feed's ETag, the publisher).
        #expect(try await bed.database.revision().value == before + 2)
        _ = try await bed.database.setSetting(.nameDays, to: "lv", now: Self.now)

        // When Ann leaves the source, and the store, and comes back.
        try bed.remove("book/ann.vcf")
        #expect(try await bed.sync(source).counts == [0, 0, 1, 1])
        #expect(try await Self.contents(bed.database) == ["choice bob|-|-", "setting name-days"])
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        #expect(try await bed.sync(source).counts == [1, 0, 0, 1])

        // Then her old choice went with her: the lists decide her name day again.
        let nameDays = try await bed.database.nameDays(for: try await bed.database.settings())
        #expect(nameDays.choices == ["bob": .off])
    }
}
