import Foundation
import GRDB

/// A row of the `person` table.
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

    static func date(_ year: Int?, _ month: Int?, _ day: Int?) -> EventDate? {
        guard let month, let day else { return nil }
        return EventDate(year: year, month: month, day: day)
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
    func upsert(_ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO person (\(PersonRecord.columnList)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
        statement.setUncheckedArguments(arguments)
        try statement.execute()
    }
}
