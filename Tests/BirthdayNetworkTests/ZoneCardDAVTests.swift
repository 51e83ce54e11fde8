import BirthdayCore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork
@testable import BirthdayStore

/// A person's `TZ` in a CardDAV address book on a real Radicale server
/// (issue 26): it follows the card at each sync, and a database from before
/// `v15-person-zone` reads every card once more so the zones arrive.
@Suite(.serialized) struct ZoneCardDAVTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z

    static func card(_ zone: String?) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:mei\r\nFN:Mei Tanaka\r\nBDAY:1990-03-12\r\n" + (zone.map { "TZ:\($0)\r\n" } ?? "") + "END:VCARD\r\n"
    }

    @Test func theZoneFollowsTheCardAndAnOldDatabaseReadsItOnce() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.file("birthdays.sqlite")
        let logs = LogRecorder()
        func sync(_ database: AppDatabase) async throws -> SourceSyncReport {
            let syncer = SourceSync(
                database: database,
                readers: SourceReaders { _ in CardDAVReader(password: { _ in "secret" }) },
                now: { Self.now },
                systemTimeZone: { TimeZone(identifier: "Europe/Berlin")! },
                logger: logs.logger
            )
            let report = await syncer.sync(try #require(try await database.sources().first))
            #expect(report.error == nil, "\(String(describing: report.error))")
            return report
        }

        var database: AppDatabase? = try AppDatabase.openFile(at: path)
        _ = try await database?.addSource(
            Source(name: "Friends", kind: .carddav, location: server.bookURL("friends"), username: server.user, passwordCommand: "unused"),
            now: Self.now
        )
        try await server.put("friends", file: "mei.vcf", card: Self.card("-05:00"))
        _ = try await sync(try #require(database))
        #expect(try await database?.person(id: "mei")?.cardZone?.storedValue == "-05:00")
        try await server.put("friends", file: "mei.vcf", card: Self.card("Asia/Tokyo"))
        #expect(try await sync(try #require(database)).counts == [0, 1, 0, 0])
        #expect(try await database?.person(id: "mei")?.cardZone?.storedValue == "Asia/Tokyo")

        // What a database of the previous version holds after that sync: no columns, the old
        // index, and the fingerprints a person without a zone has.
        var old = try #require(try await database?.person(id: "mei"))
        old.cardZone = nil
        let oldFingerprint = old.fingerprint
        try await database?.write { db in
            // The data revision's triggers name every column of this connection's schema: gone with the columns.
            for change in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER temp.revision_person_\(change)") }
            try db.execute(sql: "DROP INDEX person_special")
            try db.execute(sql: "ALTER TABLE person DROP COLUMN cardZone")
            try db.execute(sql: "ALTER TABLE person DROP COLUMN zoneChoice")
            try db.execute(
                sql: """
                    CREATE INDEX person_special ON person (deathDate, reminderDays, weekend)
                    WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL OR weekend IS NOT NULL
                    """
            )
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v15-person-zone'")
            try db.execute(sql: "UPDATE person SET fingerprint = ?", arguments: [oldFingerprint])
            try db.execute(sql: "UPDATE sourcePerson SET fingerprint = ?", arguments: [oldFingerprint])
        }
        database = nil

        let upgraded = try AppDatabase.openFile(at: path)
        #expect(try await upgraded.person(id: "mei")?.cardZone == nil)
        #expect(try await sync(upgraded).counts == [0, 1, 0, 0])
        #expect(try await upgraded.person(id: "mei")?.cardZone?.storedValue == "Asia/Tokyo")
        // Once: the next sync asks with its new token and changes nothing.
        let again = try await sync(upgraded)
        #expect((again.counts, again.requests) == ([0, 0, 0, 1], 1))

        // The card drops its TZ: so does the store.
        try await server.put("friends", file: "mei.vcf", card: Self.card(nil))
        _ = try await sync(upgraded)
        #expect(try await upgraded.person(id: "mei")?.cardZone == nil)
        #expect(!logs.all.joined().contains("Tokyo") && !logs.all.joined().contains("Mei"))
    }
}
