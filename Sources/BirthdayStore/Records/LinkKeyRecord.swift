import BirthdayCore
import Foundation
import GRDB

/// A row of the `linkKey` table (migration `v34-link-keys`): the card
/// `personId` holds a key whose ``LinkKey/value`` is `value` (a `UID`, an
/// address or a number as ``PersonLinker`` compares them). Whole only while
/// `internal.links.index` is set (``AppDatabase/relink(_:adding:changed:)``):
/// then every stored card's keys are here, and perhaps a few rows of keys a
/// card no longer holds, which the cards' own keys tell apart.
struct LinkKeyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "linkKey"

    var value: Int64
    var personId: String
}

extension LinkKeyRecord {
    /// Whether the table holds every stored card's keys and `personLink` is
    /// what relinking everyone gives: ``keep(_:)`` said so under these
    /// rules (``PersonLinker/rulesVersion``) at the data revision this
    /// transaction started from. A card changed since by a writer that
    /// keeps neither (an older `birthdays` still running beside this one:
    /// it moves the revision, as every version has, with a card's row, whose
    /// fingerprint changes with its addresses and numbers) or linked under
    /// other rules makes it not whole.
    static func isWhole(_ db: Database) throws -> Bool {
        try SettingRecord.value(.linkIndex, db) == (try mark(revision: RevisionRecord.atTransactionStart(db)))
    }

    /// Says the table and the links follow every card, as of this
    /// transaction: the last thing a relink that kept them does.
    static func keep(_ db: Database) throws {
        try SettingRecord.set(try mark(revision: RevisionRecord.current(db).value), for: .linkIndex, db)
    }

    /// Says the table may no longer follow the cards (cards changed without
    /// it), and `personLink` does, as of this transaction: the last thing a
    /// relink of everyone that did not keep the table does.
    static func keepLinksOnly(_ db: Database) throws {
        try SettingRecord.set(try mark(revision: RevisionRecord.current(db).value) + linksOnly, for: .linkIndex, db)
    }

    /// Says neither the table nor the links may follow the cards (a card changed without them).
    static func forget(_ db: Database) throws {
        try SettingRecord.set(nil, for: .linkIndex, db)
    }

    /// Whether `personLink` is what relinking everyone gives now: a relink
    /// (``keep(_:)`` or ``keepLinksOnly(_:)``) said so under these rules at the
    /// data revision of now, so no card was written since without one. Not
    /// in a store whose cards were never relinked since they were linked
    /// at all (a store of a version before links), nor after a card written
    /// by a version that does not say so. For a read: a write asks
    /// ``isWhole(_:)`` at its transaction's start.
    static func linksAreCurrent(_ db: Database) throws -> Bool {
        let mark = try mark(revision: RevisionRecord.current(db).value)
        return try SettingRecord.value(.linkIndex, db).map { $0 == mark || $0 == mark + linksOnly } ?? false
    }

    /// What `internal.links.index` holds while the table is whole: the rules' version, the data revision.
    private static func mark(revision: Int64) -> String {
        "\(PersonLinker.rulesVersion) \(revision)"
    }

    /// What ``keepLinksOnly(_:)`` adds to ``mark(revision:)``: the links alone follow the cards.
    private static let linksOnly = " links"

    /// Makes the table hold the keys of `cards` (every stored card, as
    /// ``PersonRecord/linkKeys(upTo:_:)`` reads them) and nothing else:
    /// the rows in key order, each after the one before.
    static func rebuild(from cards: [LinkCard], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM linkKey")
        var rows: [(value: Int64, id: String)] = []
        rows.reserveCapacity(cards.count * 2)
        for card in cards {
            for key in LinkKey.keys(of: card) { rows.append((key.value, card.key.id)) }
        }
        rows.sort { $0.value != $1.value ? $0.value < $1.value : $0.id < $1.id }
        let insert = try RowStatement(db, sql: "INSERT OR IGNORE INTO linkKey (value, personId) VALUES (?, ?)")
        for row in rows {
            try insert.execute { values in
                values.int(Int(row.value))
                values.text(row.id)
            }
        }
    }

    /// Takes away the rows of the keys `cards` held (each card as it was
    /// before a change), then adds the keys of the stored cards `ids` as they
    /// are now: a card that stays keeps a row for each key it holds.
    static func replace(before cards: [LinkCard], now ids: [String], _ db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM linkKey WHERE value = ? AND personId = ?")
        for card in cards {
            for key in LinkKey.keys(of: card) { try delete.execute(arguments: [key.value, card.key.id]) }
        }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO linkKey (value, personId) VALUES (?, ?)")
        for card in try PersonRecord.linkKeys(ids: ids, db) {
            for key in LinkKey.keys(of: card) { try insert.execute(arguments: [key.value, card.key.id]) }
        }
    }
}

extension PersonRecord {
    /// The stored cards `ids` as ``linkKeys(upTo:_:)`` reads a card (the id
    /// as the key, with no source; `UID`, addresses and numbers), in id
    /// order; the ids of no stored card are left out.
    static func linkKeys(ids: [String], _ db: Database) throws -> [LinkCard] {
        var cards: [LinkCard] = []
        for chunk in Set(ids).sorted().chunked(900) {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT person.id, contactPoint.kind, contactPoint.value FROM person
                    LEFT JOIN contactPoint ON contactPoint.personId = person.id AND contactPoint.kind <> ?
                    WHERE person.id IN (\(databaseQuestionMarks(count: chunk.count))) ORDER BY person.id, contactPoint.position
                    """,
                arguments: [ContactPoint.Kind.impp] + StatementArguments(Array(chunk))
            )
            while let row = try rows.next() {
                let id: String = row[0]
                if cards.last?.key.id != id {
                    cards.append(LinkCard(key: LinkCard.Key(source: "", id: id), uid: PersonRecord.uid(ofID: id), name: ""))
                }
                cards.addContactPoint(kind: row[1], value: row[2])
            }
        }
        return cards
    }

    /// How many people the store holds, about: the largest rowid (never fewer; one lookup, not a count).
    static func roughCount(_ db: Database) throws -> Int {
        Int(try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM person") ?? 0)
    }
}

extension LinkExceptionRecord {
    /// The ids a "keep together" names with the card `id`, on either side.
    static func keptTogether(with id: String, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT second FROM linkException WHERE first = ? AND kind = ?
                UNION ALL SELECT first FROM linkException WHERE second = ? AND kind = ?
                """,
            arguments: [id, LinkException.Kind.keepTogether, id, LinkException.Kind.keepTogether]
        )
    }
}

/// The store's cards as ``PersonLinker/neighbourhood(of:before:in:limit:)``
/// asks for them, each question one indexed lookup: a card by its id, the
/// cards holding a key by `linkKey` (whole: ``LinkKeyRecord/isWhole(_:)``),
/// the decisions about a card by either of its ids.
struct StoredLinkKeys: LinkKeyLookup {
    let db: Database

    func card(_ id: String) throws -> LinkCard? {
        try PersonRecord.linkKeys(ids: [id], db).first
    }

    func cards(holding key: LinkKey) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT personId FROM linkKey WHERE value = ?"), arguments: [key.value])
    }

    func keptTogether(with id: String) throws -> [String] {
        try LinkExceptionRecord.keptTogether(with: id, db)
    }
}

extension PersonLinkRecord {
    /// ``replace(with:_:)`` for the cards `area` only: makes the rows of the
    /// cards of `area` say `links` (card id → the id it is shown as, both
    /// in `area`), touching only the rows that differ, and returns the rows
    /// written, in card order. `nil`, writing nothing, when a stored row
    /// links a card of `area` with one outside it (the area is not closed).
    static func replace(with links: [String: String], among area: Set<String>, _ db: Database) throws -> [(card: String, shownAs: String)]? {
        var stored: [String: String] = [:]
        let ids = area.sorted()
        for chunk in ids.chunked(900) {
            let marks = databaseQuestionMarks(count: chunk.count)
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT personId, shownAs FROM personLink WHERE personId IN (\(marks)) OR shownAs IN (\(marks))",
                arguments: StatementArguments(Array(chunk)) + StatementArguments(Array(chunk))
            )
            while let row = try rows.next() { stored[row[0]] = row[1] }
        }
        guard stored.allSatisfy({ area.contains($0.key) && area.contains($0.value) }) else { return nil }
        return try write(links, over: stored, db)
    }
}
