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
    /// The effective exclusion (``Exclusion/isExcluded``), kept for the readers' `WHERE`.
    var excluded: Bool
    var createdAt: Double
    var updatedAt: Double
    var nickname: String
    var deathDate: String?
    var excludedInCard: Bool
    var exclusionChoice: Exclusion.Choice?
    /// ``ReminderDays`` as text (`7,1,0`).
    var reminderDays: String?
    /// Whether `birthdays import` brought the person: then no sync removes them.
    var imported: Bool
    /// ``Person/channels`` comma-joined (`email,ntfy`); `nil` uses every channel.
    var channels: String?
    /// ``Person/weekend`` (`friday`); `nil` moves nothing.
    var weekend: String?
    /// ``Person/cardZone`` (``PersonZone/storedValue``: `Asia/Tokyo`, `-05:00`); it follows the card.
    var cardZone: String?
    /// ``Person/zoneChoice`` (``ZoneChoice/storedValue``: a zone or `local`); only `birthdays zone` sets it.
    var zoneChoice: String?
    /// ``Person/calendarFilled`` (``calendarFilledColumn(_:)``); read apart (``calendarFilledByPerson(_:)``).
    var calendarFilled: String?

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
    init(_ person: Person, createdAt: Double, updatedAt: Double, imported: Bool = true) {
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
        excluded = person.excluded
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        nickname = person.nickname
        deathDate = person.deathDate
        excludedInCard = person.exclusion.card
        exclusionChoice = person.exclusion.choice
        reminderDays = person.reminderDays?.description
        self.imported = imported
        channels = PersonRecord.encodeChannels(person.channels)
        weekend = person.weekend?.rawValue
        cardZone = person.cardZone?.storedValue
        zoneChoice = person.zoneChoice?.storedValue
        calendarFilled = PersonRecord.calendarFilledColumn(person.calendarFilled)
    }

    var person: Person {
        var person = Person(
            id: id,
            name: name,
            nameParts: NameParts(prefix: namePrefix, given: givenName, additional: additionalName, family: familyName, suffix: nameSuffix),
            nickname: nickname,
            source: ContactSource(file: sourceFile, index: sourceIndex, line: sourceLine),
            birthday: PersonRecord.date(birthdayYear, birthdayMonth, birthdayDay),
            anniversary: PersonRecord.date(anniversaryYear, anniversaryMonth, anniversaryDay),
            invalidDates: PersonRecord.decode(invalidDates),
            exclusion: Exclusion(card: excludedInCard, choice: exclusionChoice),
            deathDate: deathDate,
            reminderDays: reminderDays.flatMap(ReminderDays.init),
            channels: PersonRecord.decodeChannels(channels),
            weekend: weekend.flatMap(WeekendRule.init(rawValue:))
        )
        person.cardZone = cardZone.flatMap(PersonZone.init(cardValue:))
        person.zoneChoice = zoneChoice.flatMap(ZoneChoice.init(storedValue:))
        return person
    }

    /// Reads the effective zone of many rows (``Person/zone``: the choice
    /// wins, `local` is none), each distinct stored text once: Foundation's
    /// zone lookup costs more than reading the row.
    struct ZoneReader {
        private var read: [String: ZoneChoice?] = [:]

        mutating func zone(card: String?, choice: String?) -> PersonZone? {
            if let choice, let chosen = parsed(choice) { return chosen.zone }
            return card.flatMap { parsed($0)?.zone }
        }

        /// A card's zone is read as a choice of it (a card never stores `local`).
        private mutating func parsed(_ text: String) -> ZoneChoice? {
            if let known = read[text] { return known }
            let choice = ZoneChoice(storedValue: text)
            read[text] = choice
            return choice
        }
    }

    /// The person's columns that make their ``PersonTraits``, selected and
    /// read by name: a query puts ``selection`` anywhere in its `SELECT`
    /// (with `person` as the person table's name) and reads each row with
    /// ``traits(_:shared:)``. The columns are found by their names once per
    /// statement (``init(_:)``), so a column added to the query, before or
    /// after them, shifts none of them.
    struct TraitColumns {
        static let selection = """
            person.deathDate IS NOT NULL AS traitDeceased, person.excludedInCard AS traitCard, \
            person.exclusionChoice AS traitChoice, person.reminderDays AS traitDays, person.weekend AS traitWeekend, \
            person.cardZone AS traitCardZone, person.zoneChoice AS traitZoneChoice
            """

        private let deceased: Int
        private let card: Int
        private let choice: Int
        private let days: Int
        private let weekend: Int
        private let cardZone: Int
        private let zoneChoice: Int
        private var zones = ZoneReader()

        /// The places of the columns in `statement`, which selects ``selection``.
        init(_ statement: Statement) throws {
            let names = statement.columnNames
            func place(_ name: String) throws -> Int {
                guard let index = names.lastIndex(of: name) else {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the query selects no column \(name)", sql: statement.sql)
                }
                return index
            }
            deceased = try place("traitDeceased")
            card = try place("traitCard")
            choice = try place("traitChoice")
            days = try place("traitDays")
            weekend = try place("traitWeekend")
            cardZone = try place("traitCardZone")
            zoneChoice = try place("traitZoneChoice")
        }

        /// The traits of the person on `row`, under the rules of their groups and sources (`shared`).
        mutating func traits(_ row: Row, shared: [SharedRule]) -> PersonTraits {
            let choice: String? = row[self.choice]
            let days: String? = row[self.days]
            let weekend: String? = row[self.weekend]
            return PersonTraits(
                exclusion: Exclusion(card: row[card], choice: choice.flatMap(Exclusion.Choice.init(rawValue:))),
                reminderDays: days.flatMap(ReminderDays.init),
                shared: shared,
                deceased: row[deceased],
                weekend: weekend.flatMap(WeekendRule.init(rawValue:)),
                zone: zones.zone(card: row[cardZone], choice: row[zoneChoice])
            )
        }
    }

    /// `email,ntfy`; `nil` for no choice (an empty list is no choice either).
    static func encodeChannels(_ names: [String]?) -> String? {
        guard let names, !names.isEmpty else { return nil }
        return names.joined(separator: ",")
    }

    /// The names of ``encodeChannels(_:)``'s text; `nil` when there are none.
    static func decodeChannels(_ text: String?) -> [String]? {
        let names = (text ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
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
    /// A hash of what the person's card says (names, dates, invalid dates,
    /// nickname, death date, the card's exclusion, its groups, its zone), not of where it came from
    /// nor of the user's own choices: two imports of the same contact have the
    /// same one. The fields added in `v5` count only when set, so a person
    /// stored before keeps the fingerprint their card still gives.
    ///
    /// It is the hash of one text (the parts joined by U+001F, lists by
    /// U+001E), fed piece by piece instead of joined first.
    var fingerprint: String {
        var text = StableHash.Running()
        text.add(id)
        for part in [name, nameParts.prefix, nameParts.given, nameParts.additional, nameParts.family, nameParts.suffix] {
            text.add("\u{1F}")
            text.add(part)
        }
        text.add("\u{1F}")
        if let birthday { text.add(birthday.description) }
        text.add("\u{1F}")
        if let anniversary { text.add(anniversary.description) }
        text.add("\u{1F}")
        text.add(invalidDates, separator: "\u{1E}")
        if !nickname.isEmpty {
            text.add("\u{1F}nickname:")
            text.add(nickname)
        }
        if let deathDate {
            text.add("\u{1F}died:")
            text.add(deathDate)
        }
        if exclusion.card { text.add("\u{1F}excluded-in-card") }
        // Only when there are any, so the fingerprints of everyone else stay as they were.
        if !alternateDates.isEmpty {
            text.add("\u{1F}")
            text.add(alternateDates.map(\.description), separator: "\u{1E}")
        }
        if !labelledDates.isEmpty {
            text.add("\u{1F}labelled:")
            text.add(labelledDates.map(\.description), separator: "\u{1E}")
        }
        if !contactPoints.isEmpty {
            text.add("\u{1F}contact:")
            for (index, point) in contactPoints.enumerated() {
                if index > 0 { text.add("\u{1E}") }
                text.add(point.kind.rawValue)
                text.add(":")
                text.add(point.value)
            }
        }
        if !groups.isEmpty {
            text.add("\u{1F}groups:")
            text.add(groups, separator: "\u{1E}")
        }
        if let cardZone {
            text.add("\u{1F}zone:")
            text.add(cardZone.storedValue)
        }
        return text.hex
    }
}

extension PersonRecord {
    /// The columns the record owns, in the order ``upsert(_:)`` binds them:
    /// what the card says and what ``ContactMerge`` kept of the stored row
    /// (the user's choices included). Every other column of `person` (the
    /// user's `note`) is no import's or sync's to write.
    static let columnList = """
        id, name, namePrefix, givenName, additionalName, familyName, nameSuffix, sourceFile, sourceIndex, sourceLine,
        birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
        invalidDates, fingerprint, excluded, createdAt, updatedAt,
        nickname, deathDate, excludedInCard, exclusionChoice, reminderDays, imported, channels, weekend, cardZone, zoneChoice, calendarFilled
        """

    /// `INSERT … ON CONFLICT(id) DO UPDATE SET col = excluded.col` for every
    /// column of ``columnList`` but the key and `createdAt` (when the person was
    /// first stored), as GRDB's `upsert` writes a record.
    static let upsertSQL: String = {
        let columns = columnList.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let updated = columns.filter { $0 != "id" && $0 != "createdAt" }.map { "\"\($0)\" = excluded.\"\($0)\"" }
        return """
            INSERT INTO person (\(columns.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: columns.count)))
            ON CONFLICT(id) DO UPDATE SET \(updated.joined(separator: ", "))
            """
    }()

    /// Inserts the row, or updates the record's columns of the stored one in
    /// place, through one cached statement: the import's hot path (GRDB's
    /// Codable persistence costs several times more per row).
    ///
    /// The row is never deleted: the person's child rows (`calendarDate`,
    /// `labelledDate`, `contactPoint`, `personGroup`), the rows that refer to
    /// them (`sourcePerson`, `announceExclusion`, `inviteAnswer`) and the
    /// columns the record does not own (`note`) stay as they are. Rewrite the
    /// child rows after this when they changed, as ``write(_:createdAt:updatedAt:imported:isNew:_:)`` does.
    func upsert(_ db: Database) throws {
        try upsert(RowStatement(db, sql: PersonRecord.upsertSQL))
    }

    /// The upsert above through `statement`, the cached statement of
    /// ``upsertSQL`` that a caller writing many rows looked up once (each
    /// lookup hashes the whole SQL text).
    func upsert(_ statement: RowStatement) throws {
        // In columnList's order.
        try statement.execute { row in
            row.text(id)
            row.text(name)
            row.text(namePrefix)
            row.text(givenName)
            row.text(additionalName)
            row.text(familyName)
            row.text(nameSuffix)
            row.text(sourceFile)
            row.int(sourceIndex)
            row.int(sourceLine)
            row.int(birthdayYear)
            row.int(birthdayMonth)
            row.int(birthdayDay)
            row.int(anniversaryYear)
            row.int(anniversaryMonth)
            row.int(anniversaryDay)
            row.text(invalidDates)
            row.text(fingerprint)
            row.bool(excluded)
            row.double(createdAt)
            row.double(updatedAt)
            row.text(nickname)
            row.text(deathDate)
            row.bool(excludedInCard)
            row.text(exclusionChoice?.rawValue)
            row.text(reminderDays)
            row.bool(imported)
            row.text(channels)
            row.text(weekend)
            row.text(cardZone)
            row.text(zoneChoice)
            row.text(calendarFilled)
        }
    }
}

// MARK: - Queries

extension PersonRecord {
    /// Everyone, ordered by name (case-insensitively) then id, with their
    /// dates in other calendars.
    static func people(_ db: Database) throws -> [Person] {
        let alternates = try CalendarDateRecord.datesByPerson(db)
        let labelled = try LabelledDateRecord.datesByPerson(db)
        let contacts = try ContactPointRecord.pointsByPerson(db)
        let groups = try PersonGroupRecord.groupsByPerson(db)
        let rules = try SharedRuleRecord.rulesByPerson(db)
        let notes = try notes(db)
        return try order(Columns.name.collating(.localizedCaseInsensitiveCompare), Columns.id).fetchAll(db).map { record in
            var person = record.person
            person.note = notes[record.id]
            person.alternateDates = alternates[record.id] ?? []
            person.labelledDates = labelled[record.id] ?? []
            person.contactPoints = contacts[record.id] ?? []
            person.groups = groups[record.id] ?? []
            person.sharedRules = rules[record.id] ?? []
            return person
        }
    }

    /// The people of `ids` who exist, ordered by id, with only what
    /// greeting them reads (``GreetingRules``, ``GreetingPlan``): id, name,
    /// birthday (of a person of several cards, the one chosen among them, as
    /// reminders have it: ``PersonLinks``), the card's and the user's
    /// exclusion, reminder days, death date, zones, the rules of their groups
    /// and sources (`rules`) and, when `emails`, their first e-mail address
    /// as their one contact point; no group (the caller knows the greeted
    /// groups' members). Read straight from the columns, 900 ids at a time:
    /// ten thousand friends of a hundred thousand people cost a reschedule
    /// little (issue 44).
    static func greetingPeople(ids: [String], rules: [String: [SharedRule]], emails: Bool, _ db: Database) throws -> [Person] {
        let noSource = ContactSource(file: "", index: 0, line: 0)
        let email = "(SELECT value FROM contactPoint WHERE personId = person.id AND kind = ? ORDER BY position LIMIT 1)"
        // The links read once: a person shown with another card's birthday is greeted on the day they are reminded of.
        let chosen = try PersonLinks.read(db).birthdays
        // Each distinct zone text parsed once: Foundation's zone lookup costs more than reading the row.
        var cardZones: [String: PersonZone?] = [:]
        var choices: [String: ZoneChoice?] = [:]
        var people: [Person] = []
        people.reserveCapacity(ids.count)
        for chunk in ids.chunked(900) {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, deathDate, excludedInCard, exclusionChoice, reminderDays,
                           cardZone, zoneChoice, \(emails ? email : "NULL")
                    FROM person WHERE id IN (\(databaseQuestionMarks(count: chunk.count))) ORDER BY id
                    """,
                arguments: (emails ? StatementArguments([ContactPoint.Kind.email]) : StatementArguments()) + StatementArguments(Array(chunk))
            )
            while let row = try rows.next() {
                let id: String = row[0]
                let choice: String? = row[7]
                let days: String? = row[8]
                let address: String? = row[11]
                var person = Person(
                    id: id,
                    name: row[1],
                    source: noSource,
                    birthday: chosen[id] ?? date(row[2], row[3], row[4]),
                    exclusion: Exclusion(card: row[6], choice: choice.flatMap(Exclusion.Choice.init(rawValue:))),
                    deathDate: row[5],
                    reminderDays: days.flatMap(ReminderDays.init),
                    contactPoints: address.map { [ContactPoint(kind: .email, value: $0)] } ?? []
                )
                if let text: String = row[9] {
                    let zone = cardZones[text] ?? PersonZone(cardValue: text)
                    cardZones[text] = zone
                    person.cardZone = zone
                }
                if let text: String = row[10] {
                    let choice = choices[text] ?? ZoneChoice(storedValue: text)
                    choices[text] = choice
                    person.zoneChoice = choice
                }
                if !rules.isEmpty { person.sharedRules = rules[person.id] ?? [] }
                people.append(person)
            }
        }
        return people
    }

    /// The person with `id`, with their dates in other calendars, their
    /// groups and the rules of their groups and sources.
    static func person(id: String, _ db: Database) throws -> Person? {
        guard var person = try fetchOne(db, key: id)?.person else { return nil }
        person.alternateDates = try CalendarDateRecord.dates(personID: id, db)
        person.labelledDates = try LabelledDateRecord.dates(personID: id, db)
        person.contactPoints = try ContactPointRecord.points(personID: id, db)
        person.groups = try PersonGroupRecord.groups(personID: id, db)
        person.sharedRules = try SharedRuleRecord.rulesByPerson(db)[id] ?? []
        person.note = try String.fetchOne(db, sql: "SELECT note FROM person WHERE id = ?", arguments: [id])
        return person
    }

    /// The notes of everyone who has one (``PersonNote``), by id. The note
    /// is not a column of the record: imports and syncs, which write the
    /// record, never touch it.
    static func notes(_ db: Database) throws -> [String: String] {
        var found: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, note FROM person WHERE note IS NOT NULL") { found[row[0]] = row[1] }
        return found
    }

    /// The death dates of everyone who has one, as they have them, by id.
    static func deathDates(_ db: Database) throws -> [String: String] {
        var found: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, deathDate FROM person WHERE deathDate IS NOT NULL") { found[row[0]] = row[1] }
        return found
    }

    /// The notes of those of `ids` (at most 900) who have one, with the
    /// name and nickname the reminders' words choose from, by id.
    static func notes(ids: some Collection<String>, _ db: Database) throws -> [String: (name: String, nickname: String, note: String)] {
        var found: [String: (name: String, nickname: String, note: String)] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT id, name, nickname, note FROM person WHERE note IS NOT NULL AND id IN (\(databaseQuestionMarks(count: ids.count)))",
            arguments: StatementArguments(Array(ids))
        )
        for row in rows { found[row[0]] = (row[1], row[2], row[3]) }
        return found
    }

    /// Sets or clears (`nil`) the note of the person `id`; whether they
    /// exist. `updatedAt` is left alone: it says when the card last changed,
    /// which chooses a linked person's birthday (``PersonLinker/birthday(of:preferring:)``).
    static func setNote(_ note: String?, id: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "UPDATE person SET note = ? WHERE id = ?", arguments: [note, id])
        return db.changesCount > 0
    }

    /// Everyone as an id and a name only (no dates, no source), read
    /// straight from two columns: what a PERSON typed by a user is matched
    /// against (``PersonLookup``) before the few found are read whole.
    static func identities(_ db: Database) throws -> [Person] {
        let noSource = ContactSource(file: "", index: 0, line: 0)
        var people: [Person] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM person")
        while let row = try rows.next() { people.append(Person(id: row[0], name: row[1], source: noSource)) }
        return people
    }

    /// The channels chosen by everyone who chose any, by id.
    static func channelChoices(_ db: Database) throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, channels FROM person WHERE channels IS NOT NULL") {
            found[row[0]] = decodeChannels(row[1])
        }
        return found
    }

    /// The channels chosen for those of the people `ids` who chose any, by id.
    static func channelChoices(ids: [String], _ db: Database) throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for chunk in ids.chunked(900) {
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, channels FROM person WHERE channels IS NOT NULL AND id IN (\(databaseQuestionMarks(count: chunk.count)))",
                arguments: StatementArguments(Array(chunk))
            )
            for row in rows { found[row[0]] = decodeChannels(row[1]) }
        }
        return found
    }

    /// The names of the people with `ids` (those that exist), by id.
    static func names(ids: [String], _ db: Database) throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, select(Columns.id, Columns.name).filter(keys: Set(ids)))
        return Dictionary(rows.map { ($0[0] as String, $0[1] as String) }, uniquingKeysWith: { first, _ in first })
    }

    /// The people with dates (not excluded by their card or their own
    /// choice), ordered by id, through a raw cursor: what `share list`
    /// counts, people rather than their events, the shown and those left
    /// out alike (the feeds read the walk, ``forEachEvent(_:rules:nameDays:nicknames:_:)``).
    /// They carry only id, name, dates (those in other calendars and
    /// labelled dates too; someone with only such a date is included),
    /// death date, the user's exclusion choice and the rules of their
    /// groups and sources (``RulePrecedence``).
    static func datedPeople(_ db: Database) throws -> [Person] {
        var people: [Person] = []
        let alternates = try CalendarDateRecord.datesByPerson(db, excludedToo: false)
        let labelled = try LabelledDateRecord.datesByPerson(db, excludedToo: false)
        let rules = try SharedRuleRecord.rulesByPerson(db)
        // One person of several cards once, with the birthday chosen among them, as the walk has them (issue 43).
        let links = try PersonLinks.read(db)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay,
                       deathDate, exclusionChoice
                FROM person
                WHERE excluded = 0
                  AND ((birthdayMonth IS NOT NULL AND birthdayDay IS NOT NULL) OR (anniversaryMonth IS NOT NULL AND anniversaryDay IS NOT NULL)
                       OR id IN (SELECT personId FROM calendarDate) OR id IN (SELECT personId FROM labelledDate)\(links.shown))\(links.skipping())
                ORDER BY id
                """
        )
        let noSource = ContactSource(file: "", index: 0, line: 0)
        while let row = try rows.next() {
            let id: String = row[0]
            var person = Person(
                id: id,
                name: row[1],
                source: noSource,
                birthday: links.birthdays[id] ?? date(row[2], row[3], row[4]),
                anniversary: date(row[5], row[6], row[7]),
                alternateDates: alternates.isEmpty ? [] : alternates[id] ?? [],
                deathDate: row[8]
            )
            if !labelled.isEmpty { person.labelledDates = labelled[id] ?? [] }
            // A person of several cards without any date is asked for by `links.shown` only.
            if links.any, person.birthday == nil, person.anniversary == nil, person.alternateDates.isEmpty, person.labelledDates.isEmpty { continue }
            if !rules.isEmpty, let shared = rules[id] {
                // `excluded = 0`: the card does not exclude them, or their choice includes them.
                person.exclusion.choice = (row[9] as String?).flatMap(Exclusion.Choice.init(rawValue:))
                person.sharedRules = shared
            }
            people.append(person)
        }
        return people
    }

    /// What an import or a sync compares a person against: the stored
    /// fingerprint, what the merge rule keeps (``ContactMerge/Stored``), and
    /// the row's bookkeeping.
    struct MergeState {
        var fingerprint: String
        var contact: ContactMerge.Stored
        var createdAt: Double
        var imported: Bool
        /// The name (``Person/name``): whose cards of a file a card may be (``ContactMerge/Holders/inFile``).
        var name = ""
    }

    /// Who holds the ids of cards without a `UID` in the store `states` (``ContactMerge/ids(of:holders:)``),
    /// the run's files named by `file`.
    static func holders(_ states: [String: MergeState], file: @escaping (String) -> String? = { $0 }) -> ContactMerge.Holders {
        let inFile = NameIndex(states)
        return ContactMerge.Holders(
            file: file,
            stored: { id in states[id].map { ContactMerge.Holder(file: $0.contact.sourceFile, birthday: $0.contact.birthday) } },
            inFile: { file, key in inFile.ids(file + "\u{1F}" + key) }
        )
    }

    /// The stored cards by their file and the derivation key of their name,
    /// made at the first card without a `UID` that asks: a run whose cards
    /// all have one (a re-import of a phone's export) never folds the store's
    /// names.
    private final class NameIndex {
        private let states: [String: MergeState]
        private var byKey: [String: [String]]?

        init(_ states: [String: MergeState]) {
            self.states = states
        }

        func ids(_ key: String) -> [String] {
            if let byKey { return byKey[key] ?? [] }
            var made: [String: [String]] = [:]
            for (id, state) in states where !state.name.isEmpty {
                made[state.contact.sourceFile + "\u{1F}n:" + PersonID.normalize(state.name), default: []].append(id)
            }
            byKey = made
            return made[key] ?? []
        }
    }

    /// Every person's ``MergeState``, by id.
    static func mergeStates(_ db: Database) throws -> [String: MergeState] {
        var stored: [String: MergeState] = [:]
        let alternates = try CalendarDateRecord.datesByPerson(db)
        let labelled = try LabelledDateRecord.datesByPerson(db)
        let contacts = try ContactPointRecord.pointsByPerson(db)
        let filled = try calendarFilledByPerson(db)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, fingerprint, sourceFile, birthdayYear, birthdayMonth, birthdayDay,
                       anniversaryYear, anniversaryMonth, anniversaryDay, createdAt,
                       nickname, deathDate, excludedInCard, exclusionChoice, reminderDays, imported, channels, weekend,
                       cardZone, zoneChoice, name, sourceIndex, sourceLine FROM person
                """
        )
        while let row = try rows.next() {
            let choice: String? = row[13]
            let days: String? = row[14]
            let weekend: String? = row[17]
            var contact = ContactMerge.Stored(
                sourceFile: row[2],
                birthday: date(row[3], row[4], row[5]),
                anniversary: date(row[6], row[7], row[8]),
                nickname: row[10],
                deathDate: row[11],
                exclusion: Exclusion(card: row[12], choice: choice.flatMap(Exclusion.Choice.init(rawValue:))),
                reminderDays: days.flatMap(ReminderDays.init),
                alternateDates: alternates.isEmpty ? [] : alternates[row[0] as String] ?? [],
                channels: decodeChannels(row[16]),
                weekend: weekend.flatMap(WeekendRule.init(rawValue:)),
                contactPoints: contacts.isEmpty ? [] : contacts[row[0] as String] ?? [],
                cardZone: (row[18] as String?).flatMap(PersonZone.init(cardValue:)),
                zoneChoice: (row[19] as String?).flatMap(ZoneChoice.init(storedValue:))
            )
            if !labelled.isEmpty { contact.labelledDates = labelled[row[0] as String] ?? [] }
            if !filled.isEmpty { contact.calendarFilled = filled[row[0] as String] ?? [] }
            contact.sourceIndex = row[21]
            contact.sourceLine = row[22]
            stored[row[0]] = MergeState(fingerprint: row[1], contact: contact, createdAt: row[9], imported: row[15], name: row[20])
        }
        return stored
    }

    /// ``Person/calendarFilled`` of everyone who has any, by id.
    static func calendarFilledByPerson(_ db: Database) throws -> [String: Set<EventKind>] {
        var found: [String: Set<EventKind>] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, calendarFilled FROM person WHERE calendarFilled IS NOT NULL") {
            let kinds = calendarFilled(column: row[1])
            if !kinds.isEmpty { found[row[0]] = kinds }
        }
        return found
    }

    /// The `calendarFilled` column's kinds ("birthday,anniversary"; `NULL` for none).
    static func calendarFilled(column text: String?) -> Set<EventKind> {
        Set((text ?? "").split(separator: ",").compactMap { EventKind(rawValue: String($0)) })
    }

    /// The column as ``calendarFilled(column:)`` reads it.
    static func calendarFilledColumn(_ kinds: Set<EventKind>) -> String? {
        kinds.isEmpty ? nil : kinds.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// Stores what the user chose for `person` (``Person/exclusion``,
    /// ``Person/reminderDays``, ``Person/channels``, ``Person/weekend``,
    /// ``Person/zoneChoice``), with
    /// the effective `excluded`; nothing the card gave changes, nor
    /// `updatedAt` (when the card last changed: a choice is no change of the
    /// card, and must not choose a linked person's birthday). Returns
    /// whether the person exists.
    @discardableResult
    static func saveChoices(of person: Person, _ db: Database) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE person SET excluded = ?, exclusionChoice = ?, reminderDays = ?, channels = ?, weekend = ?, zoneChoice = ?
                WHERE id = ?
                """,
            arguments: [
                person.excluded, person.exclusion.choice?.rawValue, person.reminderDays?.description, encodeChannels(person.channels),
                person.weekend?.rawValue, person.zoneChoice?.storedValue, person.id,
            ]
        )
        return db.changesCount > 0
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

extension Person {
    /// Whether the person has rows in a child table (``PersonRecord/insertNew(_:at:createdAt:updatedAt:imported:_:)``).
    fileprivate var hasChildRows: Bool {
        !alternateDates.isEmpty || !labelledDates.isEmpty || !contactPoints.isEmpty || !groups.isEmpty
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements (SQLite limits the arguments of one statement).
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension PersonRecord {
    /// Writes a person an import or a sync brought (merged with what was
    /// stored: ``ContactMerge``) and their three child tables, the one way
    /// both write people.
    ///
    /// - Parameters:
    ///   - createdAt: when the person was first stored (now for a new one).
    ///   - imported: whether an import brought them (a sync alone: `false`).
    ///   - isNew: no row of theirs was stored: child rows are only added
    ///     (none to replace), and only when there are any.
    static func write(_ person: Person, createdAt: Double, updatedAt: Double, imported: Bool, isNew: Bool, _ db: Database) throws {
        try PersonRecord(person, createdAt: createdAt, updatedAt: updatedAt, imported: imported).upsert(db)
        // After the row: a new person's child rows refer to it.
        try writeChildren(of: person, isNew: isNew, db)
    }

    /// Writes people none of whom is stored yet (an import's new people):
    /// their rows in the order given, then their child rows, person by person
    /// in the order of their ids. The child tables are keyed by person id, so
    /// each index entry then lands on or next to the pages the one before
    /// touched, instead of anywhere in the index (a new database of 100,000
    /// people with 250,000 contact points); the file is as large as before.
    ///
    /// - Parameter indices: which of `people` to write (read in place, never copied).
    /// - Returns: their linking keys, for ``AppDatabase/relink(_:adding:changed:)`` not to read them back.
    @discardableResult
    static func insertNew(
        _ people: [Person],
        at indices: [Int],
        createdAt: Double,
        updatedAt: Double,
        imported: Bool,
        _ db: Database
    ) throws -> AddedLinkKeys {
        // New rows take rowids after the largest (no AUTOINCREMENT): every row after it is one of these.
        let added = AddedLinkKeys(after: try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM person") ?? 0, people: people, at: indices)
        var children: [(key: UInt64, id: String, index: Int)] = []
        // Each statement looked up once, not once a row.
        let rows = try RowStatement(db, sql: upsertSQL)
        for index in indices {
            try PersonRecord(people[index], createdAt: createdAt, updatedAt: updatedAt, imported: imported).upsert(rows)
            if people[index].hasChildRows { children.append((sortKey(people[index].id), people[index].id, index)) }
        }
        // Ids are ASCII (``PersonID``): Swift orders them by their bytes, as SQLite's BINARY collation does;
        // their first eight bytes as one number decide almost every comparison without comparing strings.
        children.sort { $0.key != $1.key ? $0.key < $1.key : $0.id < $1.id }
        let points = try RowStatement(db, sql: ContactPointRecord.insertSQL)
        for child in children { try writeChildren(of: people[child.index], isNew: true, points: points, db) }
        return added
    }

    /// The first eight UTF-8 bytes of `id`, big-endian (zeros after a shorter id): ordered as the ids' bytes are.
    private static func sortKey(_ id: String) -> UInt64 {
        var key: UInt64 = 0
        var taken = 0
        for byte in id.utf8.prefix(8) {
            key = key << 8 | UInt64(byte)
            taken += 1
        }
        return taken == 8 ? key : key << (8 * UInt64(8 - taken))
    }

    /// The person's dates in other calendars, labelled dates, contact points
    /// and groups; for a new person (`isNew`) only added, and only those there are.
    /// `points`: the statement of ``ContactPointRecord/insertSQL``, when the caller looked it up already.
    private static func writeChildren(of person: Person, isNew: Bool, points: RowStatement? = nil, _ db: Database) throws {
        if isNew {
            if !person.alternateDates.isEmpty { try CalendarDateRecord.replace(personID: person.id, with: person.alternateDates, db) }
            if !person.labelledDates.isEmpty { try LabelledDateRecord.replace(personID: person.id, with: person.labelledDates, db) }
            if !person.contactPoints.isEmpty {
                try ContactPointRecord.insert(
                    personID: person.id,
                    person.contactPoints,
                    into: points ?? RowStatement(db, sql: ContactPointRecord.insertSQL)
                )
            }
            if !person.groups.isEmpty { try PersonGroupRecord.replace(personID: person.id, with: person.groups, db) }
            return
        }
        try CalendarDateRecord.replace(personID: person.id, with: person.alternateDates, db)
        try LabelledDateRecord.replace(personID: person.id, with: person.labelledDates, db)
        try ContactPointRecord.replace(personID: person.id, with: person.contactPoints, db)
        try PersonGroupRecord.replace(personID: person.id, with: person.groups, db)
    }
}
