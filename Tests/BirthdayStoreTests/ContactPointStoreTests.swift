import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The ways to reach a person through the store (migration
/// `v13-contact-points`): a real import and a vdir sync into SQLite, the
/// rows following the card on every import and sync, and leaving with it.
@Suite final class ContactPointStoreTests {
    static let now = Date(timeIntervalSince1970: 1_772_352_000)

    static func card(uid: String = "ada", name: String = "Ada Lovelace", _ lines: String...) -> String {
        "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(uid)\r\nFN:\(name)\r\nBDAY:1990-03-10\r\n" + lines.map { $0 + "\r\n" }.joined() + "END:VCARD\r\n"
    }

    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }
    deinit { directory.cleanup() }

    func importing(_ text: String, into database: AppDatabase, file name: String = "contacts.vcf") async throws -> ImportReport {
        let path = try directory.write(name, text)
        return try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: LocalDate(iso: "2026-03-01"))
            .importPaths([path])
    }

    func rows(_ database: AppDatabase, _ id: String) async throws -> [String] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT position, kind, value FROM contactPoint WHERE personId = ? ORDER BY position", arguments: [id])
                .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as String)" }
        }
    }

    @Test func anImportStoresThemInOrderAndAnEditReplacesThem() async throws {
        let database = try AppDatabase.inMemory()
        let first = try await importing(
            Self.card("TEL;VALUE=uri:tel:+44-20-7946-0000", "EMAIL:ada@example.org", "IMPP:xmpp:ada@example.org"),
            into: database
        )
        #expect((first.added, first.problems.count) == (1, 0))
        #expect(try await rows(database, "ada") == ["0 email ada@example.org", "1 impp xmpp:ada@example.org", "2 phone +44-20-7946-0000"])
        #expect(try await database.person(id: "ada")?.contactPoints.first?.uri == "mailto:ada@example.org")
        #expect(try await database.people().first?.contactPoints.count == 3)

        let again = try await importing(
            Self.card("TEL;VALUE=uri:tel:+44-20-7946-0000", "EMAIL:ada@example.org", "IMPP:xmpp:ada@example.org"),
            into: database
        )
        #expect((again.updated, again.unchanged) == (0, 1))

        // The card changes its address and loses its phone: so does the store, at once.
        let edited = try await importing(Self.card("EMAIL;PREF=1:ada@new.example", "IMPP:xmpp:ada@example.org"), into: database)
        #expect(edited.updated == 1)
        #expect(try await rows(database, "ada") == ["0 email ada@new.example", "1 impp xmpp:ada@example.org"])

        // An address that is not one is reported; the person stays, without it.
        let bad = try await importing(Self.card("EMAIL:ada(at)example.org"), into: database)
        #expect(bad.problems.map(\.message) == ["EMAIL 'ada(at)example.org' is not an e-mail address; left out"])
        #expect(try await rows(database, "ada") == [])
        #expect(try await database.person(id: "ada") != nil)
    }

    @Test func theUsersChoicesDoNotTakeThemAndARemovedPersonTakesThemAlong() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card("EMAIL:ada@example.org") + Self.card(uid: "bob", name: "Bob", "TEL:+1 555 0100"), into: database)
        // Excluding (an UPDATE of the person's row) keeps them.
        _ = try await database.setExclusion(.exclude, personID: "ada", now: Self.now)
        #expect(try await rows(database, "ada") == ["0 email ada@example.org"])
        // The card loses its date in its own file: the person stays, undated, with the ways to reach them.
        let dateless = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bob\r\nFN:Bob\r\nTEL:+1 555 0100\r\nEND:VCARD\r\n"
        let undated = try await importing(Self.card("EMAIL:ada@example.org") + dateless, into: database)
        #expect((undated.updated, undated.removed) == (1, 0))
        #expect(try await rows(database, "bob").count == 1)
        // Its name goes too: the person leaves, and their rows with them.
        let empty = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bob\r\nFN:\r\nEND:VCARD\r\n"
        let report = try await importing(Self.card("EMAIL:ada@example.org") + empty, into: database)
        #expect(report.removed == 1)
        #expect(try await rows(database, "bob") == [])
        #expect(try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM contactPoint") } == 1)
    }

    @Test func anotherFileWithoutAnyKeepsTheStoredOnes() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card("EMAIL:ada@example.org"), into: database)
        let other = try await importing(Self.card(name: "Ada L."), into: database, file: "other.vcf")
        #expect(other.updated == 1)
        #expect(try await rows(database, "ada") == ["0 email ada@example.org"])
    }

    @Test func aVdirSyncFollowsTheCard() async throws {
        let bed = try SourceSyncTests.Bed()
        defer { bed.folder.cleanup() }
        try bed.write("book/ada.vcf", Self.card("EMAIL:ada@example.org", "TEL;TYPE=cell:+44 7700 900123", "EMAIL:bad.example.org"))
        let source = try await bed.add("book", .vdir, "book")
        let first = await bed.syncer.sync(try #require(try await bed.database.sources().first), allowMassRemoval: false)
        #expect(first.problems.map(\.message) == ["EMAIL 'bad.example.org' is not an e-mail address; left out"])
        #expect(try await rows(bed.database, "ada") == ["0 email ada@example.org", "1 phone +44 7700 900123"])

        try bed.write("book/ada.vcf", Self.card("TEL;TYPE=cell,pref:+44 7700 900123", "IMPP:matrix:u/ada:example.org"))
        _ = try await bed.sync(source)
        #expect(try await rows(bed.database, "ada") == ["0 phone +44 7700 900123", "1 impp matrix:u/ada:example.org"])

        try bed.remove("book/ada.vcf")
        _ = try await bed.sync(source, allowMassRemoval: true)
        #expect(try await bed.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM contactPoint") } == 0)
        // Nothing about them reached the log.
        for line in bed.logs.all {
            #expect(!line.contains("example.org") && !line.contains("7700") && !line.contains("matrix:"), "\(line)")
        }
    }

    /// A source synced before `v13-contact-points` holds its people without
    /// their contact points, and an unchanged card is not read again: the
    /// migration makes the next sync read every card once, so they come.
    @Test func theMigrationMakesTheNextSyncReadEveryCardOnce() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.file("birthdays.sqlite")
        try FileManager.default.createDirectory(atPath: folder.file("book"), withIntermediateDirectories: true)
        _ = try folder.write("book/ada.vcf", Self.card("EMAIL:ada@example.org"))
        func sync(_ database: AppDatabase) async throws -> SourceSyncReport {
            let syncer = SourceSync(
                database: database,
                readers: SourceReaders { _ in LocalSourceReader() },
                now: { Self.now },
                systemTimeZone: { .gmt },
                logger: LogRecorder().logger
            )
            return await syncer.sync(try #require(try await database.sources().first), allowMassRemoval: false)
        }
        var database: AppDatabase? = try AppDatabase.openFile(at: path)
        _ = try await database?.addSource(Source(name: "book", kind: .vdir, location: folder.file("book")), now: Self.now)
        _ = try await sync(try #require(database))
        // What a database of the previous version holds after that sync: no table, and the
        // fingerprints a person without contact points has.
        var old = try #require(try await database?.person(id: "ada"))
        old.contactPoints = []
        let oldFingerprint = old.fingerprint
        try await database?.write { db in
            try db.execute(sql: "DROP TABLE contactPoint")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v13-contact-points'")
            try db.execute(sql: "UPDATE person SET fingerprint = ?", arguments: [oldFingerprint])
            try db.execute(sql: "UPDATE sourcePerson SET fingerprint = ?", arguments: [oldFingerprint])
        }
        database = nil

        let upgraded = try AppDatabase.openFile(at: path)
        #expect(try await rows(upgraded, "ada") == [])
        let report = try await sync(upgraded)
        #expect((report.added, report.updated) == (0, 1))
        #expect(try await rows(upgraded, "ada") == ["0 email ada@example.org"])
        // Once: the next sync reads nothing.
        #expect(try await sync(upgraded).unchanged == 1)
    }

    /// Migration `v28-compact-contact-points`: the table becomes its own
    /// primary-key index (WITHOUT ROWID), with every row a database of the
    /// version before held, and every way the store reads and writes it working.
    @Test func theCompactTableKeepsEveryRowOfTheVersionBefore() async throws {
        let path = directory.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "v27-invitations")
        try await queue.write { db in
            for id in ["ada", "alan"] {
                try db.execute(
                    sql: """
                        INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayYear, birthdayMonth, birthdayDay,
                                            fingerprint, excluded, createdAt, updatedAt, imported)
                        VALUES (?, ?, '/contacts.vcf', 0, 1, 1990, 3, 10, 'old', 0, 0, 0, 1)
                        """,
                    arguments: [id, id.capitalized]
                )
            }
            // Written out of order, as edits leave them.
            for (id, position, kind, value) in [
                ("alan", 0, "phone", "+44 20 7946 0001"), ("ada", 1, "impp", "xmpp:ada@example.org"), ("ada", 0, "email", "ada@example.org"),
            ] {
                try db.execute(
                    sql: "INSERT INTO contactPoint (personId, position, kind, value) VALUES (?, ?, ?, ?)",
                    arguments: [id, position, kind, value]
                )
            }
        }
        try queue.close()

        let upgraded = try AppDatabase.openFile(at: path)
        let schema = try await upgraded.read { db in
            try String.fetchAll(db, sql: "SELECT coalesce(sql, name) FROM sqlite_master WHERE tbl_name = 'contactPoint' ORDER BY name")
        }
        #expect(schema.count == 1)
        #expect(schema.first?.contains("WITHOUT ROWID") == true)
        #expect(try await rows(upgraded, "ada") == ["0 email ada@example.org", "1 impp xmpp:ada@example.org"])
        #expect(try await rows(upgraded, "alan") == ["0 phone +44 20 7946 0001"])
        #expect(try await upgraded.person(id: "ada")?.contactPoints.map(\.uri) == ["mailto:ada@example.org", "xmpp:ada@example.org"])
        #expect(try await upgraded.people().map(\.contactPoints.count) == [2, 1])
        // The foreign key still holds, and still cascades.
        #expect(try await upgraded.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count } == 0)
        try await upgraded.write { db in try db.execute(sql: "DELETE FROM person WHERE id = 'alan'") }
        #expect(try await rows(upgraded, "alan") == [])
        #expect(try await upgraded.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM contactPoint") } == 2)
        // An import writes it as before: an edited card replaces the rows.
        let report = try await importing(Self.card("TEL:+44 20 7946 0000"), into: upgraded)
        #expect(report.updated == 1)
        #expect(try await rows(upgraded, "ada") == ["0 phone +44 20 7946 0000"])
    }

    /// The rows the import binds straight into SQLite (``RowStatement``): an
    /// empty text is stored as '', not NULL; a refused row throws SQLite's
    /// error and leaves the statement usable for the next row.
    @Test func rowsBoundDirectlyKeepEmptyTextAndReportARefusedRow() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card(), into: database)
        try await database.write { db in
            try ContactPointRecord.insert(personID: "ada", [ContactPoint(kind: .impp, value: "")], db)
        }
        #expect(
            try await database.read { db in try String.fetchOne(db, sql: "SELECT quote(value) FROM contactPoint WHERE personId = 'ada'") } == "''"
        )
        #expect(try await database.read { db in try String.fetchOne(db, sql: "SELECT quote(namePrefix) FROM person WHERE id = 'ada'") } == "''")
        let refused = await #expect(throws: StoreError.self) {
            try await database.write { db in
                // Position 0 is taken: the primary key refuses the row.
                try ContactPointRecord.insert(personID: "ada", [ContactPoint(kind: .email, value: "ada@example.org")], db)
            }
        }
        #expect(refused.map(String.init(describing:))?.contains("UNIQUE constraint failed: contactPoint.personId, contactPoint.position") == true)
        try await database.write { db in
            try ContactPointRecord.replace(personID: "ada", with: [ContactPoint(kind: .email, value: "ada@example.org")], db)
        }
        #expect(try await rows(database, "ada") == ["0 email ada@example.org"])
    }

    /// A text with U+0000 is stored up to it, as GRDB binds a `String`, so
    /// the import's direct rows hold what GRDB's writes would; and a row
    /// whose values do not match the SQL's parameters is refused, never
    /// written with the row before's values.
    @Test func rowsBoundDirectlyStopAtNULAndRefuseAMissingValue() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card(name: "Ada\u{0}X"), into: database)
        let stored = try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT name, length(CAST(name AS BLOB)) AS bytes FROM person WHERE id = 'ada'")
                .map { "\($0["name"] as String? ?? "-") \($0["bytes"] as Int? ?? -1)" }
        }
        #expect(stored == "Ada 3")
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE pair (a TEXT NOT NULL, b TEXT)")
            let insert = try RowStatement(db, sql: "INSERT INTO pair (a, b) VALUES (?, ?)")
            try insert.execute { values in
                values.text("first")
                values.text("second")
            }
            #expect(throws: DatabaseError.self) {
                try insert.execute { values in values.text("only one") }
            }
            #expect(throws: DatabaseError.self) {
                try insert.execute { values in
                    values.text("one")
                    values.text("two")
                    values.text("three")
                }
            }
        }
        let pairs = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT a, b FROM pair").map { "\($0["a"] as String? ?? "-") \($0["b"] as String? ?? "-")" }
        }
        #expect(pairs == ["first second"])
    }
}
