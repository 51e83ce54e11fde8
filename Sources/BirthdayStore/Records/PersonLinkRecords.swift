import BirthdayCore
import Foundation
import GRDB

/// A row of the `personLink` table: the stored person `personId` (a card)
/// is shown as the person `shownAs` (migration `v33-person-links`). A card
/// shown as itself has no row; both go with their person (`ON DELETE CASCADE`).
/// Recomputed by ``AppDatabase/relink(_:)``, never written by hand.
struct PersonLinkRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "personLink"

    var personId: String
    var shownAs: String
}

extension PersonLinkRecord {
    /// Every card shown as another person: card id → the id it is shown as.
    static func all(_ db: Database) throws -> [String: String] {
        var found: [String: String] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT personId, shownAs FROM personLink")
        while let row = try rows.next() { found[row[0]] = row[1] }
        return found
    }

    /// Makes the table say `links` (card id → the id it is shown as),
    /// touching only the rows that differ, so an unchanged linking moves no
    /// revision. Returns how many rows changed.
    @discardableResult
    static func replace(with links: [String: String], _ db: Database) throws -> Int {
        let stored = try all(db)
        var changed = 0
        let delete = try db.cachedStatement(sql: "DELETE FROM personLink WHERE personId = ?")
        for (card, shown) in stored where links[card] != shown {
            try delete.execute(arguments: [card])
            changed += 1
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO personLink (personId, shownAs) VALUES (?, ?)")
        for (card, shown) in links where stored[card] != shown {
            try insert.execute(arguments: [card, shown])
            changed += 1
        }
        return changed
    }
}

/// A row of the `linkException` table: the person's decision about the two
/// cards with the ids `first` < `second` (``LinkException``). Kept by the
/// cards' ids, with no reference to `person`: a card that leaves with its
/// file and comes back with it is decided about as before.
struct LinkExceptionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "linkException"

    var first: String
    var second: String
    var kind: LinkException.Kind
}

extension LinkException.Kind: DatabaseValueConvertible {}

extension LinkExceptionRecord {
    /// Every decision, as (first id, second id, kind).
    static func all(_ db: Database) throws -> [LinkExceptionRecord] {
        try LinkExceptionRecord.order(Column("first"), Column("second")).fetchAll(db)
    }

    /// Records `kind` for the two cards (in either order), replacing the decision kept about them.
    static func set(_ kind: LinkException.Kind, _ a: String, _ b: String, _ db: Database) throws {
        guard a != b else { return }
        let (first, second) = a < b ? (a, b) : (b, a)
        try db.execute(
            sql: """
                INSERT INTO linkException (first, second, kind) VALUES (?, ?, ?)
                ON CONFLICT(first, second) DO UPDATE SET kind = excluded.kind
                """,
            arguments: [first, second, kind]
        )
    }

    /// Records `link --date-from SOURCE` for the person of the card `id` (`nil` forgets it).
    static func setDateFrom(_ source: String?, card id: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM linkDateFrom WHERE personId = ?", arguments: [id])
        guard let source else { return }
        try db.execute(sql: "INSERT INTO linkDateFrom (personId, source) VALUES (?, ?)", arguments: [id, source])
    }

    /// Forgets every "keep together" that names `id`.
    static func forgetTogether(_ id: String, _ db: Database) throws {
        try db.execute(
            sql: "DELETE FROM linkException WHERE kind = ? AND (first = ? OR second = ?)",
            arguments: [LinkException.Kind.keepTogether, id, id]
        )
    }
}

extension PersonRecord {
    /// The source a card is told by: the source that holds it by name, else the name of the file it was imported from.
    static func cardSource(held: String?, file: String) -> String { held ?? (file as NSString).lastPathComponent }

    /// Every stored person as a card for ``PersonLinker``, in id order: the
    /// id (the card's `UID` when it is not a derived `c-` id), name,
    /// nickname, e-mail addresses and phone numbers, birthday and when it
    /// last changed; its source is the first source that has it by name, else
    /// the file it was imported from (the file's name).
    static func linkCards(_ db: Database) throws -> [LinkCard] {
        var sources: [String: String] = [:]
        let held = try Row.fetchCursor(
            db,
            sql: "SELECT sp.personId, MIN(s.name) FROM sourcePerson sp JOIN source s ON s.id = sp.sourceId GROUP BY sp.personId"
        )
        while let row = try held.next() { sources[row[0]] = row[1] }
        var emails: [String: [String]] = [:]
        var phones: [String: [String]] = [:]
        for (id, points) in try ContactPointRecord.pointsByPerson(db) {
            for point in points {
                switch point.kind {
                case .email: emails[id, default: []].append(point.value)
                case .phone: phones[id, default: []].append(point.value)
                case .impp: break
                }
            }
        }
        var cards: [LinkCard] = []
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT id, name, nickname, birthdayYear, birthdayMonth, birthdayDay, updatedAt, sourceFile FROM person ORDER BY id"
        )
        while let row = try rows.next() {
            let id: String = row[0]
            let file: String = row[7]
            let source = cardSource(held: sources[id], file: file)
            cards.append(
                LinkCard(
                    key: LinkCard.Key(source: source, id: id),
                    uid: id.hasPrefix("c-") ? nil : id,
                    name: row[1],
                    nickname: row[2],
                    emails: emails[id] ?? [],
                    phones: phones[id] ?? [],
                    birthday: date(row[3], row[4], row[5]),
                    changed: Date(timeIntervalSince1970: row[6])
                )
            )
        }
        return cards
    }
}

/// What the one walk and the feed need of the links: which cards to skip and
/// which birthday each person of several cards has.
struct PersonLinks {
    /// Person id → the birthday ``PersonLinker/birthday(of:preferring:)`` chose among their cards; only people of several cards with one.
    var birthdays: [String: EventDate] = [:]
    /// Whether any card is shown as another person (else the readers' SQL stays as it was).
    var any = false

    /// `AND` this to a `WHERE` over `person` (as `table`) to skip the cards shown as another person.
    func skipping(_ table: String = "person") -> String { any ? " AND \(table).id NOT IN (SELECT personId FROM personLink)" : "" }

    /// `OR` this into a `WHERE` that asks for a date, for the people whose date may come from another card.
    var shown: String { any ? " OR id IN (SELECT shownAs FROM personLink)" : "" }

    /// Reads the links: nothing more than one `SELECT` on an empty table when there are none.
    static func read(_ db: Database) throws -> PersonLinks {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT personLink.shownAs, person.id, person.birthdayYear, person.birthdayMonth, person.birthdayDay, person.updatedAt,
                       (SELECT MIN(source.name) FROM sourcePerson JOIN source ON source.id = sourcePerson.sourceId
                        WHERE sourcePerson.personId = person.id), person.sourceFile,
                       (SELECT source FROM linkDateFrom WHERE linkDateFrom.personId = person.id)
                FROM personLink JOIN person ON person.id = personLink.personId OR person.id = personLink.shownAs
                ORDER BY personLink.shownAs
                """
        )
        guard !rows.isEmpty else { return PersonLinks() }
        var cards: [String: [LinkCard]] = [:]
        var preferred: [String: String] = [:]
        var seen = Set<String>()
        for row in rows {
            let id: String = row[1]
            guard seen.insert(id).inserted else { continue }
            if let source = row[8] as String? { preferred[row[0]] = preferred[row[0]] ?? source }
            let card = LinkCard(
                key: LinkCard.Key(source: PersonRecord.cardSource(held: row[6], file: row[7]), id: id),
                name: "",
                birthday: PersonRecord.date(row[2], row[3], row[4]),
                changed: Date(timeIntervalSince1970: row[5])
            )
            cards[row[0], default: []].append(card)
        }
        var links = PersonLinks(any: true)
        for (shown, group) in cards {
            if let choice = PersonLinker.birthday(of: group, preferring: preferred[shown]) { links.birthdays[shown] = choice.date }
        }
        return links
    }
}
