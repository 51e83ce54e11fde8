import BirthdayCore
import Foundation
import GRDB

/// A row of the `person` table: one person and their dates. Its SQL is
/// here and nowhere else.
struct PersonRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"

    var id: String
    var name: String
    var namePrefix: String
    var givenName: String
    var additionalName: String
    var familyName: String
    var nameSuffix: String
    var sourceFile: String
    var sourceIndex: Int
    var sourceLine: Int
    var birthdayYear: Int?
    var birthdayMonth: Int?
    var birthdayDay: Int?
    var anniversaryYear: Int?
    var anniversaryMonth: Int?
    var anniversaryDay: Int?
    var invalidDates: String
    var fingerprint: String
    var excluded: Bool
    var createdAt: Double
    var updatedAt: Double

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let excluded = Column(CodingKeys.excluded)
    }

    /// A date needs both month and day; `nil` otherwise or when the day does not exist.
    /// A year outside ``EventDate/yearRange`` (stored before the readers refused
    /// such years) is read as no year, so the day keeps its reminders.
    static func date(_ year: Int?, _ month: Int?, _ day: Int?) -> EventDate? {
        guard let month, let day else { return nil }
        return EventDate(year: year, month: month, day: day) ?? EventDate(year: nil, month: month, day: day)
    }
}

extension PersonRecord {
    init(_ person: Person, excluded: Bool = false, createdAt: Double, updatedAt: Double) {
        id = person.id
        name = person.name
        namePrefix = person.nameParts.prefix
        givenName = person.nameParts.given
        additionalName = person.nameParts.additional
        familyName = person.nameParts.family
        nameSuffix = person.nameParts.suffix
        sourceFile = person.source.file
        sourceIndex = person.source.index
        sourceLine = person.source.line
        birthdayYear = person.birthday?.year
        birthdayMonth = person.birthday?.month
        birthdayDay = person.birthday?.day
        anniversaryYear = person.anniversary?.year
        anniversaryMonth = person.anniversary?.month
        anniversaryDay = person.anniversary?.day
        invalidDates = PersonRecord.encode(person.invalidDates)
        fingerprint = person.fingerprint
        self.excluded = excluded
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    var person: Person {
        Person(
            id: id,
            name: name,
            nameParts: NameParts(prefix: namePrefix, given: givenName, additional: additionalName, family: familyName, suffix: nameSuffix),
            source: ContactSource(file: sourceFile, index: sourceIndex, line: sourceLine),
            birthday: PersonRecord.date(birthdayYear, birthdayMonth, birthdayDay),
            anniversary: PersonRecord.date(anniversaryYear, anniversaryMonth, anniversaryDay),
            invalidDates: PersonRecord.decode(invalidDates),
            excluded: excluded
        )
    }

    static func encode(_ list: [String]) -> String {
        guard !list.isEmpty, let data = try? JSONEncoder().encode(list) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> [String] {
        guard text != "[]" else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}

extension Person {
    /// A hash of what the person says (names, dates, invalid dates), not of
    /// where it came from: two imports of the same contact have the same one.
    var fingerprint: String {
        var text = id
        for part in [name, nameParts.prefix, nameParts.given, nameParts.additional, nameParts.family, nameParts.suffix] {
            text += "\u{1F}" + part
        }
        text += "\u{1F}" + (birthday?.description ?? "") + "\u{1F}" + (anniversary?.description ?? "")
        text += "\u{1F}" + invalidDates.joined(separator: "\u{1E}")
        // Only when there are any, so the fingerprints of everyone else stay as they were.
        if !alternateDates.isEmpty { text += "\u{1F}" + alternateDates.map(\.description).joined(separator: "\u{1E}") }
        return StableHash.hex(text)
    }
}

extension PersonRecord {
    static let columnList = """
        id, name, namePrefix, givenName, additionalName, familyName, nameSuffix, sourceFile, sourceIndex, sourceLine,
        birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
        invalidDates, fingerprint, excluded, createdAt, updatedAt
        """

    var arguments: StatementArguments {
        [
            id, name, namePrefix, givenName, additionalName, familyName, nameSuffix, sourceFile, sourceIndex, sourceLine,
            birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
            invalidDates, fingerprint, excluded, createdAt, updatedAt,
        ]
    }

    /// Inserts or replaces the row through one cached statement: the import's
    /// hot path (GRDB's Codable persistence costs several times more per row).
    ///
    /// Replacing a row deletes it first, and the delete cascades: the
    /// person's `calendarDate` rows go with it. Write them again after this
    /// (``CalendarDateRecord/replace(personID:with:_:)``), as the import does;
    /// to change a column of an existing person, use an `UPDATE`.
    func upsert(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO person (\(PersonRecord.columnList)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        )
        statement.setUncheckedArguments(arguments)
        try statement.execute()
    }
}

// MARK: - Queries

extension PersonRecord {
    /// Everyone, ordered by name (case-insensitively) then id, with their
    /// dates in other calendars.
    static func people(_ db: Database) throws -> [Person] {
        let alternates = try CalendarDateRecord.datesByPerson(db)
        return try order(Columns.name.collating(.localizedCaseInsensitiveCompare), Columns.id).fetchAll(db).map { record in
            var person = record.person
            person.alternateDates = alternates[record.id] ?? []
            return person
        }
    }

    /// The person with `id`, with their dates in other calendars.
    static func person(id: String, _ db: Database) throws -> Person? {
        guard var person = try fetchOne(db, key: id)?.person else { return nil }
        person.alternateDates = try CalendarDateRecord.dates(personID: id, db)
        return person
    }

    /// The names of the people with `ids` (those that exist), by id.
    static func names(ids: [String], _ db: Database) throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, select(Columns.id, Columns.name).filter(keys: Set(ids)))
        return Dictionary(rows.map { ($0[0] as String, $0[1] as String) }, uniquingKeysWith: { first, _ in first })
    }

    /// The people with dates (not excluded), ordered by id, through a raw
    /// cursor over the eight columns the feed uses: several times faster than
    /// decoding whole records. They carry only id, name and dates (those in
    /// other calendars too; someone with only such a date is included).
    static func datedPeople(_ db: Database) throws -> [Person] {
        var people: [Person] = []
        let alternates = try CalendarDateRecord.datesByPerson(db, excludedToo: false)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay
                FROM person
                WHERE excluded = 0
                  AND ((birthdayMonth IS NOT NULL AND birthdayDay IS NOT NULL) OR (anniversaryMonth IS NOT NULL AND anniversaryDay IS NOT NULL)
                       OR id IN (SELECT personId FROM calendarDate))
                ORDER BY id
                """
        )
        let noSource = ContactSource(file: "", index: 0, line: 0)
        while let row = try rows.next() {
            let id: String = row[0]
            people.append(
                Person(
                    id: id,
                    name: row[1],
                    source: noSource,
                    birthday: date(row[2], row[3], row[4]),
                    anniversary: date(row[5], row[6], row[7]),
                    alternateDates: alternates.isEmpty ? [] : alternates[id] ?? []
                )
            )
        }
        return people
    }

    /// Calls `body` with every dated event of everyone not excluded
    /// (anniversaries only when `anniversaries`), reading only the date
    /// columns for most rows: `identity` reads the id and name, for the
    /// events the caller keeps.
    static func forEachDatedEvent(
        _ db: Database,
        anniversaries: Bool,
        _ body: (_ date: EventDate, _ kind: EventKind, _ identity: () -> (id: String, name: String)) -> Void
    ) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay, id, name
                FROM person
                WHERE excluded = 0 AND (birthdayMonth IS NOT NULL OR anniversaryMonth IS NOT NULL)
                """
        )
        while let row = try rows.next() {
            let identity = { (id: row[6] as String, name: row[7] as String) }
            if let birthday = date(row[0], row[1], row[2]) { body(birthday, .birthday, identity) }
            if anniversaries, let anniversary = date(row[3], row[4], row[5]) { body(anniversary, .anniversary, identity) }
        }
    }

    /// What an import compares a person against: the stored fingerprint,
    /// where the person came from, their dates and whether they are excluded.
    struct MergeState {
        var fingerprint: String
        var sourceFile: String
        var birthday: EventDate?
        var anniversary: EventDate?
        var alternateDates: [AlternateDate]
        var excluded: Bool
        var createdAt: Double
    }

    /// Every person's ``MergeState``, by id.
    static func mergeStates(_ db: Database) throws -> [String: MergeState] {
        var stored: [String: MergeState] = [:]
        let alternates = try CalendarDateRecord.datesByPerson(db)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, fingerprint, sourceFile, birthdayYear, birthdayMonth, birthdayDay,
                       anniversaryYear, anniversaryMonth, anniversaryDay, excluded, createdAt FROM person
                """
        )
        while let row = try rows.next() {
            stored[row[0]] = MergeState(
                fingerprint: row[1],
                sourceFile: row[2],
                birthday: date(row[3], row[4], row[5]),
                anniversary: date(row[6], row[7], row[8]),
                alternateDates: alternates.isEmpty ? [] : alternates[row[0] as String] ?? [],
                excluded: row[9],
                createdAt: row[10]
            )
        }
        return stored
    }
}
