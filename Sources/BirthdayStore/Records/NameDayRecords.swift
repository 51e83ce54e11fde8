import BirthdayCore
import BirthdayText
import GRDB

/// A row of the `nameDayList` table (migration `v30-name-day-tables`): a
/// name-day list of your own (`birthdays name-days import FILE --country
/// CODE`), under its code, in its text (``NameDayList/text``). Its SQL is here and nowhere else.
struct NameDayListRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "nameDayList"

    /// The code the `name-days` setting names it by (`cz`).
    var country: String
    /// `MM-DD,name,name…`, one day a line.
    var text: String

    /// The list the text gives.
    var list: NameDayList { NameDayList.parse(text, country: country, file: country).list }
}

/// A row of the `nameDayChoice` table (migration `v30-name-day-tables`): the
/// user's choice for one person's name day (``NameDayChoice``), which goes
/// with its person (`ON DELETE CASCADE`); `month` and `day` are both `NULL`
/// for `off`. Imports and syncs never write it. Its SQL is here and nowhere else.
struct NameDayChoiceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "nameDayChoice"

    var personId: String
    var month: Int?
    var day: Int?

    init(personID: String, _ choice: NameDayChoice) {
        personId = personID
        switch choice {
        case .off: (month, day) = (nil, nil)
        case .day(let date): (month, day) = (date.month, date.day)
        }
    }

    /// The choice as stored; `nil` for a day that does not exist.
    var choice: NameDayChoice? {
        guard let month, let day else { return .off }
        return EventDate(year: nil, month: month, day: day).map { .day($0) }
    }
}

// MARK: - Queries

extension NameDayListRecord {
    /// Stores `list` under its code, replacing the one stored before.
    static func store(_ list: NameDayList, _ db: Database) throws {
        try NameDayListRecord(country: list.country, text: list.text).upsert(db)
    }

    /// The codes of the lists of your own.
    static func codes(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT country FROM nameDayList"))
    }

    /// Every list of your own, by code.
    static func lists(_ db: Database) throws -> [String: NameDayList] {
        Dictionary(try fetchAll(db).map { ($0.country, $0.list) }, uniquingKeysWith: { first, _ in first })
    }

    /// The lists of your own among `codes`, by code.
    static func lists(codes: [String], _ db: Database) throws -> [String: NameDayList] {
        Dictionary(try filter(keys: codes).fetchAll(db).map { ($0.country, $0.list) }, uniquingKeysWith: { first, _ in first })
    }

    /// What name days are made of under `settings`: the lists its `name-days`
    /// setting names and the choices; nothing is read when it names none (name days are off).
    static func setup(for settings: Settings, _ db: Database) throws -> NameDaySetup {
        guard !settings.nameDays.isEmpty else { return NameDaySetup() }
        let own = try lists(codes: settings.nameDays.filter { settings.ownNameDayCodes.contains($0) }, db)
        return NameDaySetup(codes: settings.nameDays, own: own, choices: try NameDayChoiceRecord.choices(db))
    }
}

extension NameDayChoiceRecord {
    /// Records `choice` for the person `id`; `nil` forgets it, and any made on a card shown as them (issue 43).
    static func set(_ choice: NameDayChoice?, personID id: String, _ db: Database) throws {
        if let choice {
            try NameDayChoiceRecord(personID: id, choice).upsert(db)
        } else {
            try db.execute(
                sql: "DELETE FROM nameDayChoice WHERE personId = ? OR personId IN (SELECT personId FROM personLink WHERE shownAs = ?)",
                arguments: [id, id]
            )
        }
    }

    /// Gives `to` the choice of `from`, when it has one, over its own
    /// (`unlink --card` handing a person's choices to the cards kept); `from` keeps its.
    static func copy(from: String, to: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO nameDayChoice (personId, month, day) SELECT ?, month, day FROM nameDayChoice WHERE personId = ?
                ON CONFLICT(personId) DO UPDATE SET month = excluded.month, day = excluded.day
                """,
            arguments: [to, from]
        )
    }

    /// Every choice, by person id: one made on a card shown as another
    /// person is that person's (issue 43), unless they made their own.
    static func choices(_ db: Database) throws -> [String: NameDayChoice] {
        let shownAs = try PersonLinkRecord.all(db)
        var result: [String: NameDayChoice] = [:]
        for record in try fetchAll(db) {
            guard let choice = record.choice else { continue }
            if let shown = shownAs[record.personId] {
                if result[shown] == nil { result[shown] = choice }
            } else {
                result[record.personId] = choice
            }
        }
        return result
    }
}
