import BirthdayCore
import GRDB

/// A row of the `labelledDate` table (migration `v19-labelled-dates`): one
/// date a person's card keeps under a label of its own (``LabelledDate``).
/// The rows go with their person (`ON DELETE CASCADE`) and are rewritten
/// whenever an import or a sync writes the person (see
/// ``PersonRecord/write(_:createdAt:updatedAt:imported:isNew:_:)``). Its SQL
/// is here and nowhere else.
struct LabelledDateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "labelledDate"

    var personId: String
    /// The place of the date among the person's, in ``LabelledDate`` order.
    var position: Int
    var label: String
    var year: Int?
    var month: Int
    var day: Int

    enum Columns {
        static let personId = Column(CodingKeys.personId)
        static let position = Column(CodingKeys.position)
    }

    init(personID: String, position: Int, _ date: LabelledDate) {
        personId = personID
        self.position = position
        label = date.label
        year = date.date.year
        month = date.date.month
        day = date.date.day
    }

    /// The date as stored; `nil` for a day that does not exist.
    var labelled: LabelledDate? {
        PersonRecord.date(year, month, day).map { LabelledDate(label: label, date: $0) }
    }
}

// MARK: - Queries

extension LabelledDateRecord {
    /// Replaces the labelled dates of one person with `dates`.
    static func replace(personID: String, with dates: [LabelledDate], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM labelledDate WHERE personId = ?", arguments: [personID])
        for (position, date) in dates.enumerated() {
            try LabelledDateRecord(personID: personID, position: position, date).insert(db)
        }
    }

    /// The labelled dates of one person, in ``LabelledDate`` order.
    static func dates(personID: String, _ db: Database) throws -> [LabelledDate] {
        try filter(Columns.personId == personID).order(Columns.position).fetchAll(db).compactMap(\.labelled)
    }

    /// Everyone's labelled dates by person id, each list in ``LabelledDate``
    /// order (empty for a store without any: one query that finds nothing).
    static func datesByPerson(_ db: Database, excludedToo: Bool = true) throws -> [String: [LabelledDate]] {
        var result: [String: [LabelledDate]] = [:]
        let sql =
            excludedToo
            ? "SELECT personId, label, year, month, day FROM labelledDate ORDER BY personId, position"
            : """
            SELECT labelledDate.personId, label, year, month, day FROM labelledDate JOIN person ON person.id = labelledDate.personId
            WHERE person.excluded = 0 ORDER BY labelledDate.personId, position
            """
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            guard let date = PersonRecord.date(row[2], row[3], row[4]) else { continue }
            result[row[0] as String, default: []].append(LabelledDate(label: row[1], date: date))
        }
        return result
    }
}
