import BirthdayCore
import GRDB

/// A row of the `sourcePerson` table: the source `sourceId` has the person
/// `personId` on its item `href`, and as that item has them the person's
/// fingerprint is `fingerprint` (so an unchanged card is told from an edit
/// without touching the person). The row goes with its person and with
/// its source (`ON DELETE CASCADE`, migration `v29-person-references`).
struct SourcePersonRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sourcePerson"

    var sourceId: Int64
    var href: String
    var personId: String
    var fingerprint: String

    enum Columns {
        static let sourceId = Column(CodingKeys.sourceId)
        static let personId = Column(CodingKeys.personId)
    }
}

extension SourcePersonRecord {
    /// What the source brings, per href: person id → fingerprint.
    static func contributions(sourceId: Int64, _ db: Database) throws -> [String: [String: String]] {
        var byHref: [String: [String: String]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT href, personId, fingerprint FROM sourcePerson WHERE sourceId = ?", arguments: [sourceId])
        while let row = try rows.next() {
            byHref[row[0], default: [:]][row[1]] = row[2]
        }
        return byHref
    }

    /// Records that `href` brings the person `personId`, who must be stored
    /// (the row refers to them, and goes with them); a row already kept gets the new fingerprint.
    static func insert(sourceId: Int64, href: String, personId: String, fingerprint: String, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO sourcePerson (sourceId, href, personId, fingerprint) VALUES (?, ?, ?, ?)
                ON CONFLICT(sourceId, href, personId) DO UPDATE SET fingerprint = excluded.fingerprint
                """
        )
        try statement.execute(arguments: [sourceId, href, personId, fingerprint])
    }

    /// Forgets everything `href` of the source brought.
    static func deleteItem(sourceId: Int64, href: String, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM sourcePerson WHERE sourceId = ? AND href = ?")
        try statement.execute(arguments: [sourceId, href])
    }

    /// Of `ids`, the people some source still has.
    static func owned(among ids: [String], _ db: Database) throws -> Set<String> {
        var found = Set<String>()
        for chunk in ids.chunked(900) {
            found.formUnion(try String.fetchAll(db, filter(chunk.contains(Columns.personId)).select(Columns.personId).distinct()))
        }
        return found
    }

    /// The people the source has.
    static func people(sourceId: Int64, _ db: Database) throws -> [String] {
        try String.fetchAll(db, filter(Columns.sourceId == sourceId).select(Columns.personId).distinct())
    }

    /// The items that bring the person `personId`: (source id, href), by source id and href.
    static func items(personId: String, _ db: Database) throws -> [(sourceId: Int64, href: String)] {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT sourceId, href FROM sourcePerson WHERE personId = ? ORDER BY sourceId, href",
            arguments: [personId]
        )
        return rows.map { (sourceId: $0[0], href: $0[1]) }
    }

    /// How many people each source has, by source id.
    static func peopleCounts(_ db: Database) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT sourceId, COUNT(DISTINCT personId) FROM sourcePerson GROUP BY sourceId")
        while let row = try rows.next() { counts[row[0]] = row[1] }
        return counts
    }
}
