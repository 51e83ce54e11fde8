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

extension LabelledDateRecord {
    /// Calls `body` with every labelled date of everyone not excluded, with
    /// its ordinal among the person's dates of the same label
    /// (``LabelledDate/withOrdinals(_:)``) and what the treatment rules need
    /// of the person (as ``CalendarDateRecord/forEachDatedEvent(_:_:)``);
    /// `identity` reads the id, name and nickname.
    static func forEachDatedEvent(
        _ db: Database,
        _ body: (
            _ date: LabelledDate, _ ordinal: Int, _ traits: PersonTraits, _ identity: () -> (id: String, name: String, nickname: String)
        ) -> Void
    ) throws {
        // Read at the first row: most stores have no labelled date.
        var rules: [String: [SharedRule]]?
        var ordinals: [String: Int] = [:]
        var person = ""
        let statement = try db.makeStatement(
            sql: """
                SELECT labelledDate.label, labelledDate.year, labelledDate.month, labelledDate.day,
                       person.id, person.name, person.nickname, \(PersonRecord.TraitColumns.selection)
                FROM labelledDate JOIN person ON person.id = labelledDate.personId
                WHERE person.excluded = 0
                ORDER BY labelledDate.personId, labelledDate.position
                """
        )
        var traitColumns = try PersonRecord.TraitColumns(statement)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            guard let date = PersonRecord.date(row[1], row[2], row[3]) else { continue }
            let labelled = LabelledDate(label: row[0], date: date)
            let id: String = row[4]
            if id != person {
                person = id
                ordinals.removeAll(keepingCapacity: true)
            }
            let ordinal = (ordinals[labelled.key] ?? 0) + 1
            ordinals[labelled.key] = ordinal
            if rules == nil { rules = try SharedRuleRecord.rulesByPerson(db) }
            let traits = traitColumns.traits(row, shared: rules?[id] ?? [])
            body(labelled, ordinal, traits) { (id: id, name: row[5] as String, nickname: row[6] as String) }
        }
    }
}
