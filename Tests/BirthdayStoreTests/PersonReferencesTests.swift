import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// A person's row is updated in place by every import and sync (`INSERT …
/// ON CONFLICT DO UPDATE`), so what the card does not own stays, and the
/// tables that name a person refer to them (migration `v29-person-references`).
@Suite struct PersonReferencesTests {
    static let now = SourceSyncTests.now

    /// An importer of files into the bed's store.
    private static func importer(_ bed: SourceSyncTests.Bed) -> ContactImporter {
        ContactImporter(database: bed.database, now: now, referenceYear: 2026)
    }

    /// "id|column|column…" of every person, by id (`-` for NULL).
    private static func rows(_ database: AppDatabase, _ columns: [String]) async throws -> [String] {
        let joined = (["id"] + columns).map { "coalesce(\($0), '-')" }.joined(separator: " || '|' || ")
        return try await database.read { db in try String.fetchAll(db, sql: "SELECT \(joined) FROM person ORDER BY id") }
    }

    @Test func aColumnTheCardDoesNotOwnSurvivesEveryImportAndSync() async throws {
        // Given a column no record knows of (as a later version may add), and the user's note,
        // on a person a source brought and on one an import brought.
        let bed = try SourceSyncTests.Bed()
        defer { bed.folder.cleanup() }
        try bed.database.writeNow { db in try db.execute(sql: "ALTER TABLE person ADD COLUMN kept TEXT") }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        let source = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(source).counts == [1, 0, 0, 0])
        try bed.card("files/ada.vcf", uid: "ada", name: "Ada", birthday: "1815-12-10")
        #expect(try await Self.importer(bed).importPaths([bed.folder.file("files/ada.vcf")]).added == 1)
        try bed.database.writeNow { db in try db.execute(sql: "UPDATE person SET kept = 'kept-' || id, note = 'note of ' || id") }

        // When a sync, an import of the same file and an import of another file write them again.
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-13")
        #expect(try await bed.sync(source).counts == [0, 1, 0, 0])
        try bed.card("files/ada.vcf", uid: "ada", name: "Ada", birthday: "1815-12-11")
        #expect(try await Self.importer(bed).importPaths([bed.folder.file("files/ada.vcf")]).updated == 1)
        try bed.card("files/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-13", anniversary: "2015-06-20")
        #expect(try await Self.importer(bed).importPaths([bed.folder.file("files/ann.vcf")]).updated == 1)

        // Then the card's columns changed, and the others are as they were.
        #expect(
            try await Self.rows(bed.database, ["birthdayDay", "anniversaryYear", "kept", "note"]) == [
                "ada|11|-|kept-ada|note of ada", "ann|13|2015|kept-ann|note of ann",
            ]
        )
    }

    @Test func aPersonsRowsElsewhereStayWhileTheyAreWrittenAndGoWithThem() async throws {
        // Given Ann, left out of a room and added by an invitation's answer, and Bob.
        let bed = try SourceSyncTests.Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        let source = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(source).counts == [2, 0, 0, 0])
        try bed.database.writeNow { db in
            try db.execute(
                sql: """
                    INSERT INTO announceRoom (name, groupName, kind, target, ages, weekend, createdAt) VALUES ('team', 'Team', 'webhook', 'https', 0, 'friday', 0);
                    INSERT INTO announceExclusion (room, personId) VALUES ('team', 'ann'), ('team', 'bob');
                    INSERT INTO invitation (name, tokenHash, createdAt) VALUES ('family', 'hash', 0);
                    INSERT INTO inviteAnswer (invitationId, invitationName, name, month, day, arrivedAt, state, personId)
                    VALUES (1, 'family', 'Ann', 4, 12, 0, 'accepted', 'ann');
                    """
            )
        }
        func elsewhere() async throws -> [String] {
            try await bed.database.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT 'exclusion ' || personId FROM announceExclusion
                        UNION ALL SELECT 'source ' || personId FROM sourcePerson
                        UNION ALL SELECT 'answer ' || name || ' ' || coalesce(personId, '-') FROM inviteAnswer
                        ORDER BY 1
                        """
                )
            }
        }

        // When her card changes, they stay.
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-13")
        #expect(try await bed.sync(source).counts == [0, 1, 0, 1])
        #expect(try await elsewhere() == ["answer Ann ann", "exclusion ann", "exclusion bob", "source ann", "source bob"])

        // When she leaves the source, and the store, her rows go; the answer stays as history.
        try bed.remove("book/ann.vcf")
        #expect(try await bed.sync(source).counts == [0, 0, 1, 1])
        #expect(try await elsewhere() == ["answer Ann -", "exclusion bob", "source bob"])
    }

    @Test func theMigrationAddsTheReferencesAndCleansWhatThePeopleWhoAreGoneLeft() async throws {
        // Given a database of the version before, with rows of a person no longer stored,
        // and an answer id taken by an answer that was removed.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("old.sqlite")
        try AppDatabase.writeOld(
            at: path,
            upTo: "v28-compact-contact-points",
            sql: """
                INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayMonth, birthdayDay, fingerprint, createdAt, updatedAt)
                VALUES ('ann', 'Ann', '/book/ann.vcf', 0, 1, 4, 12, 'old', 0, 0);
                INSERT INTO announceRoom (name, groupName, kind, target, ages, weekend, createdAt) VALUES ('team', 'Team', 'webhook', 'https', 0, 'friday', 0);
                INSERT INTO announceExclusion (room, personId) VALUES ('team', 'ann'), ('team', 'gone');
                INSERT INTO source (name, kind, location, createdAt) VALUES ('book', 'vdir', '/book', 0);
                INSERT INTO sourcePerson (sourceId, href, personId, fingerprint) VALUES (1, 'ann.vcf', 'ann', 'a'), (1, 'gone.vcf', 'gone', 'g');
                INSERT INTO invitation (name, tokenHash, createdAt) VALUES ('family', 'hash', 0);
                INSERT INTO inviteAnswer (invitationId, invitationName, name, month, day, arrivedAt, state, personId)
                VALUES (1, 'family', 'Ann', 4, 12, 0, 'accepted', 'ann'), (1, 'family', 'Gone', 5, 1, 0, 'accepted', 'gone'),
                       (1, 'family', 'Removed', 6, 1, 0, 'waiting', NULL);
                DELETE FROM inviteAnswer WHERE id = 3;
                """
        )

        // When it is opened.
        let database = try AppDatabase.openFile(at: path)

        // Then the rows of the person who is gone are cleaned, each table refers to `person`,
        // its indexes are back, and the next answer gets the id after the removed one.
        func contents() async throws -> [String] {
            try await database.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT 'exclusion ' || personId FROM announceExclusion
                        UNION ALL SELECT 'source ' || personId FROM sourcePerson
                        UNION ALL SELECT 'answer ' || id || ' ' || coalesce(personId, '-') FROM inviteAnswer
                        ORDER BY 1
                        """
                )
            }
        }
        #expect(try await contents() == ["answer 1 ann", "answer 2 -", "exclusion ann", "source ann"])
        let references = try await database.read { db in
            try ["announceExclusion", "sourcePerson", "inviteAnswer"].flatMap { table in
                try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table))").map { row in
                    "\(table).\(row["from"] as String) \(row["table"] as String) \(row["on_delete"] as String)"
                }
            }.sorted()
        }
        #expect(
            references == [
                "announceExclusion.personId person CASCADE", "announceExclusion.room announceRoom CASCADE",
                "inviteAnswer.invitationId invitation SET NULL", "inviteAnswer.personId person SET NULL",
                "sourcePerson.personId person CASCADE", "sourcePerson.sourceId source CASCADE",
            ]
        )
        let indexes = try await database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                    AND tbl_name IN ('announceExclusion', 'sourcePerson', 'inviteAnswer') ORDER BY name
                    """
            )
        }
        #expect(indexes == ["announceExclusion_person", "inviteAnswer_person", "inviteAnswer_state", "sourcePerson_personId"])
        let next = try await database.write { db -> Int64 in
            try db.execute(
                sql: """
                    INSERT INTO inviteAnswer (invitationId, invitationName, name, month, day, arrivedAt, state)
                    VALUES (1, 'family', 'Next', 7, 1, 0, 'waiting')
                    """
            )
            return db.lastInsertedRowID
        }
        #expect(next == 4)

        // And when Ann goes, her rows go with her, and her answer forgets her.
        try await database.write { db in try db.execute(sql: "DELETE FROM person WHERE id = 'ann'") }
        #expect(try await contents() == ["answer 1 -", "answer 2 -", "answer 4 -"])
    }
}
