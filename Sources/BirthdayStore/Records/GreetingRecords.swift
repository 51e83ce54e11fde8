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

    /// The choice for `target`, if any.
    static func find(_ target: Greeting.Target, _ db: Database) throws -> Greeting? {
        switch target {
        case .person(let id): try GreetingRecord.filter(Column("personId") == id).fetchOne(db)?.greeting
        case .group(let name): try GreetingRecord.filter(Column("groupName") == name).fetchOne(db)?.greeting
        }
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

    /// The skipped years, by person id.
    static func skips(_ db: Database) throws -> [String: Set<Int>] {
        var found: [String: Set<Int>] = [:]
        for record in try GreetingSkipRecord.fetchAll(db) { found[record.personId, default: []].insert(record.year) }
        return found
    }
}
