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
    /// Whether `birthdays import` brought the person: then no sync removes them.
    var imported: Bool

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let excluded = Column(CodingKeys.excluded)
        static let imported = Column(CodingKeys.imported)
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
    init(_ person: Person, excluded: Bool = false, createdAt: Double, updatedAt: Double, imported: Bool = true) {
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
        self.imported = imported
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
        return StableHash.hex(text)
    }
}

extension PersonRecord {
    static let columnList = """
        id, name, namePrefix, givenName, additionalName, familyName, nameSuffix, sourceFile, sourceIndex, sourceLine,
        birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
        invalidDates, fingerprint, excluded, createdAt, updatedAt, imported
        """

    var arguments: StatementArguments {
        [
            id, name, namePrefix, givenName, additionalName, familyName, nameSuffix, sourceFile, sourceIndex, sourceLine,
            birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
            invalidDates, fingerprint, excluded, createdAt, updatedAt, imported,
        ]
    }

    /// Inserts or replaces the row through one cached statement: the import's
    /// hot path (GRDB's Codable persistence costs several times more per row).
    func upsert(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO person (\(PersonRecord.columnList)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        )
        statement.setUncheckedArguments(arguments)
        try statement.execute()
    }
}

// MARK: - Queries

extension PersonRecord {
    /// Everyone, ordered by name (case-insensitively) then id.
    static func people(_ db: Database) throws -> [Person] {
        try order(Columns.name.collating(.localizedCaseInsensitiveCompare), Columns.id).fetchAll(db).map(\.person)
    }

    /// The people with dates (not excluded), ordered by id, through a raw
    /// cursor over the eight columns the feed uses: several times faster than
    /// decoding whole records. They carry only id, name and dates.
    static func datedPeople(_ db: Database) throws -> [Person] {
        var people: [Person] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay
                FROM person
                WHERE excluded = 0
                  AND ((birthdayMonth IS NOT NULL AND birthdayDay IS NOT NULL) OR (anniversaryMonth IS NOT NULL AND anniversaryDay IS NOT NULL))
                ORDER BY id
                """
        )
        let noSource = ContactSource(file: "", index: 0, line: 0)
        while let row = try rows.next() {
            people.append(
                Person(
                    id: row[0],
                    name: row[1],
                    source: noSource,
                    birthday: date(row[2], row[3], row[4]),
                    anniversary: date(row[5], row[6], row[7])
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
        var excluded: Bool
        var createdAt: Double
        var imported: Bool
    }

    /// Every person's ``MergeState``, by id.
    static func mergeStates(_ db: Database) throws -> [String: MergeState] {
        var stored: [String: MergeState] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, fingerprint, sourceFile, birthdayYear, birthdayMonth, birthdayDay,
                       anniversaryYear, anniversaryMonth, anniversaryDay, excluded, createdAt, imported FROM person
                """
        )
        while let row = try rows.next() {
            stored[row[0]] = MergeState(
                fingerprint: row[1],
                sourceFile: row[2],
                birthday: date(row[3], row[4], row[5]),
                anniversary: date(row[6], row[7], row[8]),
                excluded: row[9],
                createdAt: row[10],
                imported: row[11]
            )
        }
        return stored
    }
}

// MARK: - Sources

extension PersonRecord {
    /// Marks the people `ids` as brought by an import (so no sync removes them).
    static func markImported(_ ids: [String], _ db: Database) throws {
        for chunk in ids.chunked(900) {
            try filter(chunk.contains(Columns.id)).updateAll(db, Columns.imported.set(to: true))
        }
    }

    /// Of `ids`, those an import brought.
    static func importedAmong(_ ids: [String], _ db: Database) throws -> Set<String> {
        var found = Set<String>()
        for chunk in ids.chunked(900) {
            found.formUnion(try String.fetchAll(db, filter(chunk.contains(Columns.id) && Columns.imported == true).select(Columns.id)))
        }
        return found
    }

    /// Deletes the people `ids`; how many rows went.
    static func delete(ids: [String], _ db: Database) throws -> Int {
        var count = 0
        for chunk in ids.chunked(900) {
            count += try filter(chunk.contains(Columns.id)).deleteAll(db)
        }
        return count
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements (SQLite limits the arguments of one statement).
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
