import BirthdayCore
import GRDB

/// A row of the `contactPoint` table (migration `v13-contact-points`): one
/// way to reach a person (``ContactPoint``), at its place in the person's
/// order. The rows follow the card: they are replaced whenever the person's
/// row is written (see ``PersonRecord/write(_:createdAt:updatedAt:imported:isNew:_:)``),
/// and go with the person (`ON DELETE CASCADE`). Its SQL is here and
/// nowhere else.
struct ContactPointRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "contactPoint"

    var personId: String
    /// 0 for the preferred one.
    var position: Int
    var kind: ContactPoint.Kind
    var value: String
}

extension ContactPoint.Kind: DatabaseValueConvertible {}

// MARK: - Queries

extension ContactPointRecord {
    /// Replaces the contact points of one person with `points`, in their order.
    static func replace(personID: String, with points: [ContactPoint], _ db: Database) throws {
        // Cached statements bound directly (``RowStatement``): the import's hot path writes these for every person with a way to reach them.
        try RowStatement(db, sql: "DELETE FROM contactPoint WHERE personId = ?").execute { $0.text(personID) }
        try insert(personID: personID, points, db)
    }

    /// Writes the contact points of a person who has none yet (just added).
    static func insert(personID: String, _ points: [ContactPoint], _ db: Database) throws {
        guard !points.isEmpty else { return }
        try insert(personID: personID, points, into: RowStatement(db, sql: insertSQL))
    }

    /// The statement that writes one contact point (``insert(personID:_:into:)``).
    static let insertSQL = "INSERT INTO contactPoint (personId, position, kind, value) VALUES (?, ?, ?, ?)"

    /// ``insert(personID:_:_:)`` through `insert`, the cached statement of
    /// ``insertSQL`` a caller writing many people's looked up once.
    static func insert(personID: String, _ points: [ContactPoint], into insert: RowStatement) throws {
        for (position, point) in points.enumerated() {
            try insert.execute { row in
                row.text(personID)
                row.int(position)
                row.text(point.kind.rawValue)
                row.text(point.value)
            }
        }
    }

    /// The contact points of one person, in order.
    static func points(personID: String, _ db: Database) throws -> [ContactPoint] {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT kind, value FROM contactPoint WHERE personId = ? ORDER BY position",
            arguments: [personID]
        )
        return rows.compactMap(point)
    }

    /// Everyone's contact points by person id (empty for a store without any).
    static func pointsByPerson(_ db: Database) throws -> [String: [ContactPoint]] {
        var found: [String: [ContactPoint]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT personId, kind, value FROM contactPoint ORDER BY personId, position")
        while let row = try rows.next() {
            guard let kind = ContactPoint.Kind.fromDatabaseValue(row[1]) else { continue }
            found[row[0] as String, default: []].append(ContactPoint(kind: kind, value: row[2]))
        }
        return found
    }

    /// The contact points of those of `ids` (at most 900) who have any, by person id.
    static func pointsByPerson(ids: [String], _ db: Database) throws -> [String: [ContactPoint]] {
        guard !ids.isEmpty else { return [:] }
        var found: [String: [ContactPoint]] = [:]
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT personId, kind, value FROM contactPoint WHERE personId IN (\(marks)) ORDER BY personId, position",
            arguments: StatementArguments(ids)
        )
        while let row = try rows.next() {
            guard let kind = ContactPoint.Kind.fromDatabaseValue(row[1]) else { continue }
            found[row[0] as String, default: []].append(ContactPoint(kind: kind, value: row[2]))
        }
        return found
    }

    /// The contact points of the people `ids` who have any or a note, with
    /// the name and nickname the reminders' words choose from and the note
    /// (``PersonRecord/notes(ids:_:)``), by person id.
    static func reach(ids: [String], _ db: Database) throws -> [String: PersonReach] {
        var found: [String: PersonReach] = [:]
        for chunk in ids.chunked(900) {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT contactPoint.personId, contactPoint.kind, contactPoint.value, person.name, person.nickname
                    FROM contactPoint JOIN person ON person.id = contactPoint.personId
                    WHERE contactPoint.personId IN (\(databaseQuestionMarks(count: chunk.count))) ORDER BY contactPoint.personId, contactPoint.position
                    """,
                arguments: StatementArguments(Array(chunk))
            )
            for row in rows {
                guard let kind = ContactPoint.Kind.fromDatabaseValue(row[1]) else { continue }
                let id: String = row[0]
                found[id, default: PersonReach(name: row[3], nickname: row[4], points: [])].points.append(ContactPoint(kind: kind, value: row[2]))
            }
            // The notes (``PersonNote``), of people with or without contact points.
            for (id, note) in try PersonRecord.notes(ids: chunk, db) {
                found[id, default: PersonReach(name: note.name, nickname: note.nickname, points: [])].note = note.note
            }
        }
        return found
    }

    private static func point(_ row: Row) -> ContactPoint? {
        ContactPoint.Kind.fromDatabaseValue(row[0]).map { ContactPoint(kind: $0, value: row[1]) }
    }
}
