import BirthdayCore
import GRDB

/// A row of the `sourceItem` table: an item a source held at its last sync
/// (a card, a vdir file, the file of a file source) and its entity tag or
/// file stamp, so the next sync fetches only what changed. Cards without
/// dates are here too, though they bring nobody.
struct SourceItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sourceItem"

    var sourceId: Int64
    var href: String
    var etag: String

    enum Columns {
        static let sourceId = Column(CodingKeys.sourceId)
        static let href = Column(CodingKeys.href)
    }
}

extension SourceItemRecord {
    /// The source's items, href → etag.
    static func items(sourceId: Int64, _ db: Database) throws -> [String: String] {
        var items: [String: String] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT href, etag FROM sourceItem WHERE sourceId = ?", arguments: [sourceId])
        while let row = try rows.next() { items[row[0]] = row[1] }
        return items
    }

    /// Records `href` with `etag` (a new row, or the stored one's tag updated in place).
    static func save(sourceId: Int64, href: String, etag: String, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO sourceItem (sourceId, href, etag) VALUES (?, ?, ?) ON CONFLICT(sourceId, href) DO UPDATE SET etag = excluded.etag"
        )
        try statement.execute(arguments: [sourceId, href, etag])
    }

    static func delete(sourceId: Int64, href: String, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM sourceItem WHERE sourceId = ? AND href = ?")
        try statement.execute(arguments: [sourceId, href])
    }
}
