import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The links an import makes (issue 43) from the keys of the cards it has
/// just written, taken as written, and of the cards stored before, read:
/// the same links as reading every card back.
@Suite final class ImportRelinkTests {
    /// 2026-03-01T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_772_352_000)

    static func card(_ uid: String, _ name: String, _ birthday: String, _ extra: String = "") -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\n\(extra)BDAY:\(birthday)\r\nEND:VCARD\r\n"
    }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    deinit { directory.cleanup() }

    func importing(_ text: String, into database: AppDatabase, file name: String) async throws -> ImportReport {
        let path = try directory.write(name, text)
        return try await ContactImporter(database: database, now: Self.now, referenceYear: 2026).importPaths([path])
    }

    /// The links as they are, and whether relinking from every stored card changes none.
    func links(_ database: AppDatabase) throws -> (links: [String: String], unchanged: Bool) {
        try database.writeNow { db in
            let links = try PersonLinkRecord.all(db)
            try AppDatabase.relink(db)
            return (links, try PersonLinkRecord.all(db) == links)
        }
    }

    @Test func newCardsLinkToStoredOnesToEachOtherAndByAUIDInAnotherCase() async throws {
        let database = try AppDatabase.inMemory()
        let first =
            Self.card("ada-a", "Ada Lovelace", "1815-12-10", "EMAIL:ada@example.org\r\n")
            + Self.card("grace", "Grace Hopper", "1906-12-09", "TEL:+1 555 010 0100\r\n")
        #expect(try await importing(first, into: database, file: "a.vcf").added == 2)
        #expect(try links(database) == ([:], true))

        // Into a store that has cards: the new ones' keys from the import, the stored ones' read.
        let second =
            Self.card("ada-b", "Ada Lovelace", "--12-10", "EMAIL:ADA@example.org\r\n")
            + Self.card("grace-b", "Grace Hopper", "1906-12-09", "TEL:(555) 010-0100\r\n")
            + Self.card("alan-1", "Alan Turing", "1912-06-23", "EMAIL:alan@example.org\r\n")
            + Self.card("alan-2", "Alan Turing", "1912-06-23", "EMAIL:alan@example.org\r\n")
            + Self.card("lone", "Mary Somerville", "1780-12-26", "EMAIL:mary@example.org\r\n")
        #expect(try await importing(second, into: database, file: "b.vcf").added == 5)
        let expected = ["ada-b": "ada-a", "grace-b": "grace", "alan-2": "alan-1"]
        #expect(try links(database) == (expected, true))

        // A UID that is another's in other case is the same UID: its card has nothing else in common with them.
        #expect(try await importing(Self.card("ADA-A", "A. L.", "1815-12-10"), into: database, file: "c.vcf").added == 1)
        let byUID = ["ada-a": "ADA-A", "ada-b": "ADA-A", "grace-b": "grace", "alan-2": "alan-1"]
        #expect(try links(database) == (byUID, true))
    }

    /// A person written after the cut that is not among the added cards
    /// (a future caller writing between `insertNew` and `relink`): everyone
    /// is read, so that person is not left out of linking.
    @Test func aPersonWrittenAfterTheCutButNotAddedIsStillLinked() async throws {
        let database = try AppDatabase.inMemory()
        let twice = ["ada-a", "ada-b"].map { Self.card($0, "Ada Lovelace", "1815-12-10", "EMAIL:ada@example.org\r\n") }.joined()
        #expect(try await importing(twice, into: database, file: "a.vcf").added == 2)
        #expect(try links(database) == (["ada-b": "ada-a"], true))
        let relinked = try database.writeNow { db in
            _ = try PersonLinkRecord.replace(with: [:], db)
            let first = try #require(try Int64.fetchOne(db, sql: "SELECT rowid FROM person WHERE id = 'ada-a'"))
            // Claims that nothing was added after ada-a, though ada-b was.
            try AppDatabase.relink(db, adding: AddedLinkKeys(after: first, people: [], at: []))
            return try PersonLinkRecord.all(db)
        }
        #expect(relinked == ["ada-b": "ada-a"])
    }
}
