import BirthdayCore
import Foundation
import GRDB

/// A row of the `greeting` table (migration `v32-greetings`): the owner's
/// choice that a person, or everyone of a group, is greeted
/// (``Greeting``, `birthdays greet add`). A person's row goes with them
/// (`ON DELETE CASCADE`). Never a secret: an Apprise URL lives in the
/// 0600 file `ID.greeting` of the database's secrets folder. Its SQL is here
/// and nowhere else.
struct GreetingRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "greeting"

    /// How the greeting goes out, as the `way` column holds it.
    enum Way: String, Codable, DatabaseValueConvertible {
        case email
        case apprise
    }

    var id: Int64?
    var personId: String?
    var groupName: String?
    var way: Way
    /// `--to`; `nil` is the card's first e-mail address.
    var address: String?
    var message: String?
    var language: String?
    var createdAt: Double

    init(_ greeting: Greeting, createdAt: Date) {
        id = greeting.id
        switch greeting.target {
        case .person(let id): (personId, groupName) = (id, nil)
        case .group(let name): (personId, groupName) = (nil, name)
        }
        switch greeting.way {
        case .email(let given): (way, address) = (.email, given)
        case .apprise: (way, address) = (.apprise, nil)
        }
        message = greeting.message?.text
        language = greeting.language
        self.createdAt = createdAt.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The choice as stored; `nil` for a row naming neither a person nor a
    /// group. Words that no longer read (never written so) are the default text.
    var greeting: Greeting? {
        let target: Greeting.Target
        if let personId {
            target = .person(personId)
        } else if let groupName {
            target = .group(groupName)
        } else {
            return nil
        }
        return Greeting(
            id: id,
            target: target,
            way: way == .apprise ? .apprise : .email(address: address),
            message: message.flatMap { try? GreetingTemplate($0) },
            language: language
        )
    }
}

/// A row of the `greetingSkip` table (migration `v32-greetings`): `greet
/// skip PERSON` for the year of one birthday; it goes with its person.
struct GreetingSkipRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "greetingSkip"

    var personId: String
    var year: Int
}

// MARK: - Queries

extension GreetingRecord {
    /// Every choice, oldest first.
    static func all(_ db: Database) throws -> [Greeting] {
        try GreetingRecord.order(Column("createdAt"), Column("id")).fetchAll(db).compactMap(\.greeting)
    }

    /// Every choice as the person it greets is shown (issue 43): a choice made
    /// on a card shown as another person greets that person, after the
    /// person's own (which wins when both chose, ``GreetingRules``).
    static func allAsShown(_ db: Database) throws -> [Greeting] {
        let greetings = try all(db)
        let shownAs = try PersonLinkRecord.all(db)
        guard !shownAs.isEmpty else { return greetings }
        var own: [Greeting] = []
        var carried: [Greeting] = []
        for var greeting in greetings {
            guard case .person(let id) = greeting.target, let shown = shownAs[id] else {
                own.append(greeting)
                continue
            }
            greeting.target = .person(shown)
            carried.append(greeting)
        }
        return own + carried
    }

    /// The choice for `target`, if any: a person's own, else one made on a
    /// card shown as them (``ofPerson(_:_:)``), which greets them.
    static func find(_ target: Greeting.Target, _ db: Database) throws -> Greeting? {
        switch target {
        case .person(let id): try ofPerson(id, db).first
        case .group(let name): try GreetingRecord.filter(Column("groupName") == name).fetchOne(db)?.greeting
        }
    }

    /// The choices that greet person `id`: their own first, then those made
    /// on a card shown as them (issue 43: left there when both had one, ``carry(_:_:)``), oldest first.
    static func ofPerson(_ id: String, _ db: Database) throws -> [Greeting] {
        try GreetingRecord.fetchAll(
            db,
            sql: """
                SELECT * FROM greeting WHERE personId = ? OR personId IN (SELECT personId FROM personLink WHERE shownAs = ?)
                ORDER BY personId <> ?, createdAt, id
                """,
            arguments: [id, id, id]
        ).compactMap(\.greeting)
    }

    /// Moves the choice made on each card of `links` (a card newly shown as
    /// another person, with that person's id) to the person it is shown as,
    /// when the person has none: the one row per person stays one, the
    /// ledger's greetings are the person's already, and a sync that drops
    /// the card no longer takes the choice (and leaves its file) with it. An
    /// e-mail to the card's first address keeps going there (its `--to`).
    /// A person with a choice of their own keeps it, and the card keeps its
    /// own (a conflict ``conflicts(_:_:)`` says).
    static func carry(_ links: [(card: String, shownAs: String)], _ db: Database) throws {
        var chose = Set(try String.fetchAll(db, sql: "SELECT personId FROM greeting WHERE personId IS NOT NULL"))
        // In card order: the person shown before (the smallest id of their cards) first, when a new card is shown instead.
        for (card, shown) in links where chose.contains(card) && !chose.contains(shown) {
            var address: String?
            if let row = try GreetingRecord.filter(Column("personId") == card).fetchOne(db), row.way == .email, row.address == nil,
                let person = try PersonRecord.person(id: card, db)
            {
                address = person.contactPoints.first { $0.kind == .email }?.value
            }
            try db.execute(
                sql: "UPDATE greeting SET personId = ?, address = COALESCE(address, ?) WHERE personId = ?",
                arguments: [shown, address, card]
            )
            chose.remove(card)
            chose.insert(shown)
        }
    }

    /// Moves the greeting of `from` (the card a person was shown as, split
    /// off by `unlink --card`) to `to`, the card the rest of their cards are
    /// shown as now, when `to` has none of its own: the person the user
    /// keeps stays greeted, once (never a copy: one friend, one greeting).
    /// Its `--to` is kept; without one it goes to the first address of the
    /// person kept, not of the card split off. A greeting `to` kept of its
    /// own at the link (a conflict) greets them instead, and `from` keeps its.
    static func handOver(from: String, to: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE greeting SET personId = ? WHERE personId = ? AND NOT EXISTS (SELECT 1 FROM greeting WHERE personId = ?)",
            arguments: [to, from, to]
        )
    }

    /// Stores `greeting`; the choice as stored (with its id), or `nil` when
    /// its person or group has one already (nothing is written then).
    static func add(_ greeting: Greeting, now: Date, _ db: Database) throws -> Greeting? {
        guard try find(greeting.target, db) == nil else { return nil }
        var record = GreetingRecord(greeting, createdAt: now)
        record.id = nil
        try record.insert(db)
        return record.greeting
    }

    /// Removes the choice with `id`; whether there was one.
    static func remove(id: Int64, _ db: Database) throws -> Bool {
        try GreetingRecord.deleteOne(db, key: id)
    }
}

extension GreetingSkipRecord {
    /// Skips the greeting of person `id` in `year`; false when it was skipped already.
    static func skip(personID id: String, year: Int, _ db: Database) throws -> Bool {
        guard try GreetingSkipRecord.fetchOne(db, key: ["personId": id, "year": year]) == nil else { return false }
        try GreetingSkipRecord(personId: id, year: year).insert(db)
        return true
    }

    /// Copies the years skipped on each card of `links` (a card newly shown
    /// as another person, with that person's id) to that person, so they
    /// stay skipped when the card leaves; the card keeps its own.
    static func carry(_ links: [(card: String, shownAs: String)], _ db: Database) throws {
        let copy = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO greetingSkip (personId, year) SELECT ?, year FROM greetingSkip WHERE personId = ?"
        )
        for (card, shown) in links { try copy.execute(arguments: [shown, card]) }
    }

    /// The year of the latest greeting of the person `from` that went (sent,
    /// being sent, or cut off while sending: never sent again) becomes a
    /// skipped year of the card `to` that leaves them or takes their greeting
    /// (`unlink`, `unlink --card`, a card that goes): one friend is greeted
    /// once per birthday, not again under another id the same day. Only when
    /// `to`'s birthday is on the greeted day (29 February on 28 February or
    /// 1 March): a card with another birthday is someone else's greeting.
    static func carryGreeted(from: String, to: String, _ db: Database) throws {
        guard from != to else { return }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO greetingSkip (personId, year)
                SELECT person.id, CAST(substr(latest.day, 1, 4) AS INTEGER)
                FROM (SELECT MAX(occurrenceDate) AS day FROM delivery WHERE notificationId = ? AND state IN (?, ?, ?)) AS latest
                JOIN person ON person.id = ?
                WHERE latest.day IS NOT NULL AND (
                    (person.birthdayMonth = CAST(substr(latest.day, 6, 2) AS INTEGER)
                        AND person.birthdayDay = CAST(substr(latest.day, 9, 2) AS INTEGER))
                    OR (person.birthdayMonth = 2 AND person.birthdayDay = 29 AND substr(latest.day, 6, 5) IN ('02-28', '03-01')))
                """,
            arguments: [
                Greeting.notificationID(personID: from), DeliveryEntry.State.delivered, DeliveryEntry.State.sending,
                DeliveryEntry.State.interrupted, to,
            ]
        )
    }

    /// The skipped years, by person id: a year skipped on a card shown as another person (issue 43) is that person's.
    static func skips(_ db: Database) throws -> [String: Set<Int>] {
        var found: [String: Set<Int>] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT COALESCE(l.shownAs, s.personId), s.year FROM greetingSkip s LEFT JOIN personLink l ON l.personId = s.personId"
        )
        while let row = try rows.next() { found[row[0], default: []].insert(row[1]) }
        return found
    }
}
