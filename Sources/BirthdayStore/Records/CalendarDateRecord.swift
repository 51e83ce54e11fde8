import BirthdayCore
import GRDB

/// A row of the `calendarDate` table (migration `v6-calendar-dates`): one
/// person's birthday or anniversary in a calendar other than the Gregorian
/// one, as the contact gives it. At most one per person, kind and calendar;
/// the row goes with its person (`ON DELETE CASCADE`) and is rewritten
/// whenever an import or a sync writes the person (``replace(personID:with:_:)``;
/// the person's row itself is updated in place: ``PersonRecord/upsert(_:)``).
/// Its SQL is here and nowhere else.
struct CalendarDateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "calendarDate"

    var personId: String
    var kind: EventKind
    var calendar: CalendarSystem
    var era: Int?
    var year: Int?
    var month: Int
    var leapMonth: Bool
    var day: Int
    /// Days since 1970-01-01 of the Gregorian day of the date itself, when its year is known.
    var gregorianDay: Int?

    enum Columns {
        static let personId = Column(CodingKeys.personId)
        static let kind = Column(CodingKeys.kind)
        static let calendar = Column(CodingKeys.calendar)
    }

    init(personID: String, _ date: AlternateDate) {
        personId = personID
        kind = date.kind
        calendar = date.date.calendar
        era = date.date.era
        year = date.date.year
        month = date.date.month
        leapMonth = date.date.isLeapMonth
        day = date.date.day
        gregorianDay = date.date.gregorian?.dayNumber
    }

    /// The date as stored: accepted once, it is not checked again (see ``CalendarDate/init(stored:era:year:month:isLeapMonth:day:)``).
    var alternate: AlternateDate {
        AlternateDate(
            kind: kind,
            date: CalendarDate(
                stored: calendar,
                era: era,
                year: year,
                month: month,
                isLeapMonth: leapMonth,
                day: day,
                gregorian: gregorianDay.map(LocalDate.init(dayNumber:))
            )
        )
    }

    static func alternate(_ row: Row, from column: Int) -> AlternateDate? {
        guard let kind = EventKind.fromDatabaseValue(row[column]), let calendar = CalendarSystem.fromDatabaseValue(row[column + 1]) else {
            return nil
        }
        let date = CalendarDate(
            stored: calendar,
            era: row[column + 2],
            year: row[column + 3],
            month: row[column + 4],
            isLeapMonth: row[column + 5],
            day: row[column + 6],
            gregorian: (row[column + 7] as Int?).map(LocalDate.init(dayNumber:))
        )
        return AlternateDate(kind: kind, date: date)
    }

    /// The columns ``alternate(_:from:)`` reads, in its order.
    static let selection = "kind, calendar, era, year, month, leapMonth, day, gregorianDay"
}

// MARK: - Queries

extension CalendarDateRecord {
    /// Replaces the dates of one person with `dates`.
    static func replace(personID: String, with dates: [AlternateDate], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM calendarDate WHERE personId = ?", arguments: [personID])
        for date in dates {
            try CalendarDateRecord(personID: personID, date).insert(db)
        }
    }

    /// The dates of one person, in ``AlternateDate`` order.
    static func dates(personID: String, _ db: Database) throws -> [AlternateDate] {
        try filter(Columns.personId == personID).fetchAll(db).map(\.alternate).sorted()
    }

    /// Everyone's dates by person id, each list in ``AlternateDate`` order
    /// (empty for a store without any: one query that finds nothing).
    static func datesByPerson(_ db: Database, excludedToo: Bool = true) throws -> [String: [AlternateDate]] {
        var result: [String: [AlternateDate]] = [:]
        let sql =
            excludedToo
            ? "SELECT personId, \(selection) FROM calendarDate"
            : "SELECT calendarDate.personId, \(selection) FROM calendarDate JOIN person ON person.id = calendarDate.personId WHERE person.excluded = 0"
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            guard let date = alternate(row, from: 1) else { continue }
            result[row[0] as String, default: []].append(date)
        }
        for key in result.keys { result[key]?.sort() }
        return result
    }
}
