import BirthdayCore
import Foundation
import GRDB

/// A row of the `personLink` table: the stored person `personId` (a card)
/// is shown as the person `shownAs` (migration `v33-person-links`). A card
/// shown as itself has no row; both go with their person (`ON DELETE CASCADE`).
/// Recomputed by ``AppDatabase/relink(_:adding:changed:)``, never written by hand.
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
    /// revision. Returns the rows written: each card newly shown as another
    /// person (or as another one than before), with that person's id, in card order.
    @discardableResult
    static func replace(with links: [String: String], _ db: Database) throws -> [(card: String, shownAs: String)] {
        try write(links, over: try all(db), db)
    }

    /// Makes the rows `stored` (card id → the id it is shown as, as the
    /// table holds them) say `links`, touching only the rows that differ;
    /// the rows written, in card order.
    static func write(_ links: [String: String], over stored: [String: String], _ db: Database) throws -> [(card: String, shownAs: String)] {
        let delete = try db.cachedStatement(sql: "DELETE FROM personLink WHERE personId = ?")
        for (card, shown) in stored where links[card] != shown {
            try delete.execute(arguments: [card])
        }
        var written: [(card: String, shownAs: String)] = []
        let insert = try db.cachedStatement(sql: "INSERT INTO personLink (personId, shownAs) VALUES (?, ?)")
        for (card, shown) in links where stored[card] != shown {
            try insert.execute(arguments: [card, shown])
            written.append((card, shown))
        }
        return written.sorted { $0.card < $1.card }
    }

    /// The id the card `id` is shown as: its own when it is shown as itself.
    static func shownAs(_ id: String, _ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT shownAs FROM personLink WHERE personId = ?", arguments: [id]) ?? id
    }

    /// The cards of the person `id` is or is shown as: the id they are shown as, and every card (that one first, then in id order).
    static func cards(ofPerson id: String, _ db: Database) throws -> (shownAs: String, cards: [String]) {
        let shown = try shownAs(id, db)
        let hidden = try String.fetchAll(db, sql: "SELECT personId FROM personLink WHERE shownAs = ? ORDER BY personId", arguments: [shown])
        return (shown, [shown] + hidden)
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

    /// The source `link --date-from` named for each of the cards `ids` that has one, by card id.
    static func dateFrom(_ ids: [String], _ db: Database) throws -> [String: String] {
        var found: [String: String] = [:]
        for chunk in ids.chunked(900) {
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT personId, source FROM linkDateFrom WHERE personId IN (\(databaseQuestionMarks(count: chunk.count)))",
                arguments: StatementArguments(Array(chunk))
            )
            while let row = try rows.next() { found[row[0]] = row[1] }
        }
        return found
    }

    /// Forgets every "keep separate" between two of `ids`.
    static func forgetSeparate(among ids: [String], _ db: Database) throws {
        guard ids.count > 1 else { return }
        let marks = databaseQuestionMarks(count: ids.count)
        try db.execute(
            sql: "DELETE FROM linkException WHERE kind = ? AND first IN (\(marks)) AND second IN (\(marks))",
            arguments: StatementArguments([LinkException.Kind.keepSeparate]) + StatementArguments(ids) + StatementArguments(ids)
        )
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
        let sources = try heldSources(db)
        // One read, each person's addresses and numbers with them (no table of everyone's by id): a person's
        // columns are decoded at their first row, known by its rowid.
        var cards: [LinkCard] = []
        var fileNames: [String: String] = [:]
        var last: Int64?
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT person.rowid, person.id, person.name, person.nickname, person.birthdayYear, person.birthdayMonth,
                       person.birthdayDay, person.updatedAt, person.sourceFile, contactPoint.kind, contactPoint.value
                FROM person LEFT JOIN contactPoint ON contactPoint.personId = person.id AND contactPoint.kind <> ?
                ORDER BY person.id, contactPoint.position
                """,
            arguments: [ContactPoint.Kind.impp]
        )
        while let row = try rows.next() {
            let rowid: Int64 = row[0]
            if rowid != last {
                last = rowid
                let id: String = row[1]
                let path: String = row[8]
                let file = fileNames[path] ?? cardSource(held: nil, file: path)
                fileNames[path] = file
                cards.append(linkCard(row, from: 2, id: id, source: sources[id] ?? file))
            }
            guard let kind = row[9] as String?, let value = row[10] as String? else { continue }
            if kind == ContactPoint.Kind.email.rawValue {
                cards[cards.count - 1].emails.append(value)
            } else {
                cards[cards.count - 1].phones.append(value)
            }
        }
        return cards
    }

    /// The card `id` of `source` from a row's name, nickname, birthday's
    /// year, month and day, and `updatedAt`, in that order from `column`.
    private static func linkCard(_ row: Row, from column: Int, id: String, source: String) -> LinkCard {
        LinkCard(
            key: LinkCard.Key(source: source, id: id),
            uid: PersonRecord.uid(ofID: id),
            name: row[column],
            nickname: row[column + 1],
            birthday: date(row[column + 2], row[column + 3], row[column + 4]),
            changed: Date(timeIntervalSince1970: row[column + 5])
        )
    }

    /// The name of the first source (by name) that has each card, by card id.
    private static func heldSources(_ db: Database) throws -> [String: String] {
        var sources: [String: String] = [:]
        let held = try Row.fetchCursor(
            db,
            sql: "SELECT sp.personId, MIN(s.name) FROM sourcePerson sp JOIN source s ON s.id = sp.sourceId GROUP BY sp.personId"
        )
        while let row = try held.next() { sources[row[0]] = row[1] }
        return sources
    }

    /// Every stored person as a card for ``PersonLinker``, as
    /// ``linkCards(_:)`` reads them but without addresses and numbers, and
    /// the person each is shown as (`personLink`): per card, the index of
    /// the card of its person that the others are shown as (its own, alone),
    /// as ``PersonLinker/suggest(_:people:)`` takes it.
    static func linkedCards(_ db: Database) throws -> (cards: [LinkCard], people: [Int]) {
        let sources = try heldSources(db)
        var cards: [LinkCard] = []
        var people: [Int] = []
        var fileNames: [String: String] = [:]
        // Only the cards others are shown as, and those shown as them, are looked up by id.
        var shownCards: [String: Int] = [:]
        var shownAs: [(card: Int, shown: String)] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT person.id, person.name, person.nickname, person.birthdayYear, person.birthdayMonth, person.birthdayDay,
                       person.updatedAt, person.sourceFile, personLink.shownAs,
                       EXISTS (SELECT 1 FROM personLink shown WHERE shown.shownAs = person.id)
                FROM person LEFT JOIN personLink ON personLink.personId = person.id
                ORDER BY person.id
                """
        )
        while let row = try rows.next() {
            let id: String = row[0]
            let path: String = row[7]
            let file = fileNames[path] ?? cardSource(held: nil, file: path)
            fileNames[path] = file
            if let shown = row[8] as String? { shownAs.append((cards.count, shown)) }
            if row[9] as Bool { shownCards[id] = cards.count }
            people.append(cards.count)
            cards.append(linkCard(row, from: 1, id: id, source: sources[id] ?? file))
        }
        for (card, shown) in shownAs { if let index = shownCards[shown] { people[card] = index } }
        return (cards, people)
    }

    /// The stored people `ids` as cards for ``PersonLinker``, as ``linkCards(_:)`` reads everyone, in id order.
    static func linkCards(full ids: [String], _ db: Database) throws -> [LinkCard] {
        var cards: [LinkCard] = []
        for chunk in ids.sorted().chunked(900) {
            let marks = databaseQuestionMarks(count: chunk.count)
            let arguments = StatementArguments(Array(chunk))
            var sources: [String: String] = [:]
            let held = try Row.fetchCursor(
                db,
                sql: """
                    SELECT sp.personId, MIN(s.name) FROM sourcePerson sp JOIN source s ON s.id = sp.sourceId
                    WHERE sp.personId IN (\(marks)) GROUP BY sp.personId
                    """,
                arguments: arguments
            )
            while let row = try held.next() { sources[row[0]] = row[1] }
            cards += try linkCards(
                Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, name, nickname, birthdayYear, birthdayMonth, birthdayDay, updatedAt, sourceFile FROM person
                        WHERE id IN (\(marks)) ORDER BY id
                        """,
                    arguments: arguments
                ),
                sources: sources,
                points: try ContactPointRecord.pointsByPerson(ids: Array(chunk), db)
            )
        }
        return cards
    }

    /// The cards of `rows` (id, name, nickname, birthday's year, month and day, `updatedAt`, `sourceFile`).
    private static func linkCards(_ rows: RowCursor, sources: [String: String], points: [String: [ContactPoint]]) throws -> [LinkCard] {
        var cards: [LinkCard] = []
        // A store's people come from a few files: each file's name is worked out once.
        var fileNames: [String: String] = [:]
        while let row = try rows.next() {
            let id: String = row[0]
            let path: String = row[7]
            let file: String
            if let known = fileNames[path] {
                file = known
            } else {
                file = cardSource(held: nil, file: path)
                fileNames[path] = file
            }
            var card = linkCard(row, from: 1, id: id, source: sources[id] ?? file)
            for point in points[id] ?? [] {
                switch point.kind {
                case .email: card.emails.append(point.value)
                case .phone: card.phones.append(point.value)
                case .impp: break
                }
            }
            cards.append(card)
        }
        return cards
    }

    /// How many people are stored after `rowid`: the people an
    /// ``AddedLinkKeys`` holds, if nothing else was written since.
    static func count(after rowid: Int64, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person WHERE rowid > ?", arguments: [rowid]) ?? 0
    }

    /// Every stored person as ``PersonLinker/mayLink(_:)`` reads them, in id
    /// order: the id (as the key, with no source), `UID`, e-mail addresses and
    /// phone numbers; no name, birthday or source. One read, each person's
    /// rows together.
    ///
    /// - Parameter rowid: only the people whose rowid is at most this (those
    ///   stored before ``insertNew(_:at:createdAt:updatedAt:imported:_:)``
    ///   added the others); everyone when `nil`.
    static func linkKeys(upTo rowid: Int64? = nil, _ db: Database) throws -> [LinkCard] {
        var cards: [LinkCard] = []
        var last: Int64?
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT person.rowid, person.id, contactPoint.kind, contactPoint.value FROM person
                LEFT JOIN contactPoint ON contactPoint.personId = person.id AND contactPoint.kind <> ?
                WHERE person.rowid <= ? ORDER BY person.id
                """,
            arguments: [ContactPoint.Kind.impp, rowid ?? Int64.max]
        )
        while let row = try rows.next() {
            // A person's id is decoded at their first row, known by its rowid (not compared with the last id at every row).
            let rowid: Int64 = row[0]
            if rowid != last {
                last = rowid
                let id: String = row[1]
                cards.append(LinkCard(key: LinkCard.Key(source: "", id: id), uid: PersonRecord.uid(ofID: id), name: ""))
            }
            cards.addContactPoint(kind: row[2], value: row[3])
        }
        return cards
    }
}

extension [LinkCard] {
    /// Gives the last card the contact point of a row that joins a card with
    /// its addresses and numbers (an address, else a number); none (`NULL`s:
    /// a card without any) gives it nothing.
    mutating func addContactPoint(kind: String?, value: String?) {
        guard let kind, let value, !isEmpty else { return }
        if kind == ContactPoint.Kind.email.rawValue {
            self[count - 1].emails.append(value)
        } else {
            self[count - 1].phones.append(value)
        }
    }
}

extension PersonRecord {
    /// The `UID` a stored card's id is: none for an id made from a name (`c-`,
    /// a card without a `UID`), else the id itself (``PersonID/fromUID(_:)``).
    static func uid(ofID id: String) -> String? {
        id.hasPrefix("c-") ? nil : id
    }
}

/// The linking keys of the people ``PersonRecord/insertNew(_:at:createdAt:updatedAt:imported:_:)``
/// just wrote, as ``PersonRecord/linkKeys(upTo:_:)`` would read them back:
/// ``AppDatabase/relink(_:adding:changed:)`` takes them from here and reads only the
/// people stored before.
struct AddedLinkKeys {
    /// The largest rowid of `person` before they were written (0 for none): every row after it is one of them.
    var after: Int64
    /// Each as ``PersonRecord/linkKeys(upTo:_:)`` reads a person: the id, `UID`, e-mail addresses and phone numbers.
    var cards: [LinkCard]

    /// The keys of `people` at `indices`, written after the row `after`.
    init(after: Int64, people: [Person], at indices: [Int]) {
        self.after = after
        cards = []
        cards.reserveCapacity(indices.count)
        for index in indices {
            let id = people[index].id
            var card = LinkCard(key: LinkCard.Key(source: "", id: id), uid: PersonRecord.uid(ofID: id), name: "")
            // In their stored order; a valid point holds no NUL (``ContactPoint/read(_:_:)``), so the row holds the whole value.
            for point in people[index].contactPoints {
                switch point.kind {
                case .email: card.emails.append(point.value)
                case .phone: card.phones.append(point.value)
                case .impp: break
                }
            }
            cards.append(card)
        }
    }
}

extension PersonRecord {
    /// The cards `ids` that are stored, in the order of `ids`, as ``PersonLinker/birthday(of:preferring:)``
    /// reads them: each with its source (as ``linkCards(_:)`` tells it), `UID`, birthday and when it changed; no name or keys.
    static func linkCards(ids: [String], _ db: Database) throws -> [LinkCard] {
        var byID: [String: LinkCard] = [:]
        for chunk in ids.chunked(900) {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT person.id, person.birthdayYear, person.birthdayMonth, person.birthdayDay, person.updatedAt,
                           (SELECT MIN(source.name) FROM sourcePerson JOIN source ON source.id = sourcePerson.sourceId
                            WHERE sourcePerson.personId = person.id), person.sourceFile
                    FROM person WHERE person.id IN (\(databaseQuestionMarks(count: chunk.count)))
                    """,
                arguments: StatementArguments(Array(chunk))
            )
            while let row = try rows.next() {
                let id: String = row[0]
                byID[id] = LinkCard(
                    key: LinkCard.Key(source: cardSource(held: row[5], file: row[6]), id: id),
                    uid: PersonRecord.uid(ofID: id),
                    name: "",
                    birthday: date(row[1], row[2], row[3]),
                    changed: Date(timeIntervalSince1970: row[4])
                )
            }
        }
        return ids.compactMap { byID[$0] }
    }
}

/// What the one walk and the feed need of the links: which cards to skip and
/// which birthday each person of several cards has.
struct PersonLinks {
    /// Person id → the birthday ``PersonLinker/birthday(of:preferring:)`` chose among their cards; only people of several cards with one.
    var birthdays: [String: EventDate] = [:]
    /// Those of ``birthdays`` that are not the birthday of the card the
    /// person is shown as: what their own row does not say (the greetings'
    /// plan holds them among its inputs, ``GreetingPlan/Stamp``).
    var overrides: [String: EventDate] = [:]
    /// Whether any card is shown as another person (else the readers' SQL stays as it was).
    var any = false
    /// Every card of a person of several, by rowid (ascending): for a walk over
    /// `person` in rowid order to skip the hidden ones and give the shown ones
    /// their chosen birthday without a lookup by id per row (``Rows``).
    var rows: [LinkedRow] = []

    /// A card of a person of several cards, by its rowid.
    struct LinkedRow {
        var rowid: Int64
        /// Shown as another person: skipped.
        var hidden: Bool
        /// For the card shown: the birthday chosen among the person's cards (`nil` when none has one).
        var birthday: EventDate?
    }

    /// `AND` this to a `WHERE` over `person` (as `table`) to skip the cards shown as another person.
    func skipping(_ table: String = "person") -> String { any ? " AND \(table).id NOT IN (SELECT personId FROM personLink)" : "" }

    /// `OR` this into a `WHERE` that asks for a date, for the people whose date may come from another card.
    var shown: String { any ? " OR id IN (SELECT shownAs FROM personLink)" : "" }

    /// `OR` this into a `WHERE` over `person` in rowid order that asks for a
    /// date, for the people whose date may come from another card (by rowid:
    /// only the rows without a date of their own test it).
    var shownRows: String {
        guard any else { return "" }
        return " OR rowid IN (" + rows.filter { !$0.hidden }.map { String($0.rowid) }.joined(separator: ",") + ")"
    }

    /// The links of the rows of a walk over `person` in ascending rowid order, asked row by row.
    struct Rows {
        private let rows: [LinkedRow]
        private var next = 0

        init(_ links: PersonLinks) { rows = links.rows }

        /// The link of the row `rowid`, if it is a card of a person of several;
        /// `rowid` must not be below one asked before.
        mutating func at(_ rowid: Int64) -> LinkedRow? {
            while next < rows.count && rows[next].rowid < rowid { next += 1 }
            return next < rows.count && rows[next].rowid == rowid ? rows[next] : nil
        }
    }

    /// Reads the links: nothing more than one `SELECT` on an empty table when there are none.
    static func read(_ db: Database) throws -> PersonLinks {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT personLink.shownAs, person.id, person.birthdayYear, person.birthdayMonth, person.birthdayDay, person.updatedAt,
                       (SELECT MIN(source.name) FROM sourcePerson JOIN source ON source.id = sourcePerson.sourceId
                        WHERE sourcePerson.personId = person.id), person.sourceFile,
                       (SELECT source FROM linkDateFrom WHERE linkDateFrom.personId = person.id), person.rowid
                FROM personLink JOIN person ON person.id = personLink.personId OR person.id = personLink.shownAs
                ORDER BY personLink.shownAs, person.id <> personLink.shownAs, person.id
                """
        )
        guard !rows.isEmpty else { return PersonLinks() }
        var cards: [String: [LinkCard]] = [:]
        var preferred: [String: String] = [:]
        var rowids: [String: Int64] = [:]
        // A `--date-from` kept on several of a person's cards (before `link` kept one): the shown card's, else the smallest id's, as `show` reads it.
        for row in rows {
            let id: String = row[1]
            guard rowids[id] == nil else { continue }
            rowids[id] = row[9]
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
            let birthday = PersonLinker.birthday(of: group, preferring: preferred[shown])?.date
            if let birthday { links.birthdays[shown] = birthday }
            if let birthday, birthday != group.first(where: { $0.key.id == shown })?.birthday { links.overrides[shown] = birthday }
            for card in group {
                guard let rowid = rowids[card.key.id] else { continue }
                links.rows.append(LinkedRow(rowid: rowid, hidden: card.key.id != shown, birthday: card.key.id == shown ? birthday : nil))
            }
        }
        links.rows.sort { $0.rowid < $1.rowid }
        return links
    }
}

extension PersonRecord {
    /// The person's own choices a linked card brings (`exclude`/`include`,
    /// `remind --days`, `--channels`, `--weekend`, `zone`, `note`), by column.
    private static let carriedChoices: [(column: String, choice: ChoiceConflict.Choice)] = [
        ("exclusionChoice", .exclusion), ("reminderDays", .reminderDays), ("channels", .channels), ("weekend", .weekend),
        ("zoneChoice", .zone), ("note", .note),
    ]

    /// Carries the choices made on each card of `links` (a card newly shown
    /// as another person, with that person's id) over to the person it is
    /// shown as, who has not made them: the walk reads the shown person's.
    /// A choice both made differently stays the shown person's, and is
    /// returned as a conflict; nothing is taken from the card, so `unlink`
    /// gives it back its own. `updatedAt` is left alone (it chooses a linked
    /// person's birthday). One read of the people who made any choice, then
    /// only the pairs whose card made one.
    static func carryChoices(_ links: [(card: String, shownAs: String)], _ db: Database) throws -> [ChoiceConflict] {
        guard !links.isEmpty else { return [] }
        var conflicts = try GreetingRecord.conflicts(links, db)
        try GreetingRecord.carry(links, db)
        try GreetingSkipRecord.carry(links, db)
        let columns = carriedChoices.map(\.column)
        let any = columns.map { "\($0) IS NOT NULL" }.joined(separator: " OR ")
        let chose = Set(try String.fetchAll(db, sql: "SELECT id FROM person WHERE \(any)"))
        let read = try db.cachedStatement(sql: "SELECT \(columns.joined(separator: ", ")), excludedInCard FROM person WHERE id = ?")
        for (card, shown) in links where chose.contains(card) {
            guard let from = try Row.fetchOne(read, arguments: [card]), let to = try Row.fetchOne(read, arguments: [shown]) else { continue }
            var set: [(String, String)] = []
            for (index, carried) in carriedChoices.enumerated() {
                guard let mine = from[index] as String? else { continue }
                if let theirs = to[index] as String? {
                    if theirs != mine {
                        conflicts.append(ChoiceConflict(choice: carried.choice, shownAs: shown, card: card, kept: theirs, other: mine))
                    }
                } else {
                    set.append((carried.column, mine))
                }
            }
            guard !set.isEmpty else { continue }
            let choice = (set.first { $0.0 == "exclusionChoice" }?.1).flatMap(Exclusion.Choice.init(rawValue:))
            var assignments = set.map { "\($0.0) = ?" }
            var arguments = StatementArguments(set.map(\.1))
            if let choice {
                assignments.append("excluded = ?")
                arguments += [Exclusion(card: to[columns.count], choice: choice).isExcluded]
            }
            arguments += [shown]
            try db.execute(sql: "UPDATE person SET \(assignments.joined(separator: ", ")) WHERE id = ?", arguments: arguments)
        }
        return conflicts
    }
}

extension PersonRecord {
    /// Clears on every card shown as the person `id` the carried choices the
    /// person has not made (`NULL`: never made, or cleared), so that no later
    /// relink (the card dropped by a sync and back, `unlink` then `link`)
    /// carries a card's old choice back over one cleared on the person. A
    /// person's `NULL` that was never made has nothing on a card to clear:
    /// ``carryChoices(_:_:)`` brought the card's over when it was linked.
    static func clearUnmadeChoicesOnCards(of id: String, _ db: Database) throws {
        let columns = carriedChoices.map(\.column)
        guard let row = try Row.fetchOne(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM person WHERE id = ?", arguments: [id]) else {
            return
        }
        let cleared = columns.indices.filter { row.hasNull(atIndex: $0) }.map { columns[$0] }
        guard !cleared.isEmpty else { return }
        var assignments = cleared.map { "\($0) = NULL" }
        if cleared.contains("exclusionChoice") { assignments.append("excluded = excludedInCard") }
        try db.execute(
            sql: "UPDATE person SET \(assignments.joined(separator: ", ")) WHERE id IN (SELECT personId FROM personLink WHERE shownAs = ?)",
            arguments: [id]
        )
    }
}

extension PersonRecord {
    /// Hands what was chosen for the person shown as the card `from` over to
    /// `to`, the card the rest of their cards are shown as once `unlink
    /// --card` has split `from` off: the person the user keeps keeps the
    /// choices made on them. The carried columns (``carriedChoices``) are
    /// copied as they are, a choice the person never made or cleared
    /// included, over what `to` had of its own (the person's won at the
    /// link); the greeting moves (``GreetingRecord/handOver(from:to:_:)``);
    /// skipped greetings, rooms left out of and the name-day choice are
    /// copied. `from` keeps a copy of the rest: nothing records what it had
    /// chosen before the link, as one card, apart from the person.
    static func handOverChoices(from: String, to: String, _ db: Database) throws {
        let columns = carriedChoices.map(\.column)
        guard
            let row = try Row.fetchOne(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM person WHERE id = ?", arguments: [from]),
            let card = try Bool.fetchOne(db, sql: "SELECT excludedInCard FROM person WHERE id = ?", arguments: [to])
        else { return }
        let values = columns.indices.map { row[$0] as String? }
        let choice = (row["exclusionChoice"] as String?).flatMap(Exclusion.Choice.init(rawValue:))
        try db.execute(
            sql: "UPDATE person SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")), excluded = ? WHERE id = ?",
            arguments: StatementArguments(values) + [Exclusion(card: card, choice: choice).isExcluded, to]
        )
        try GreetingRecord.handOver(from: from, to: to, db)
        try GreetingSkipRecord.carry([(card: from, shownAs: to)], db)
        try GreetingSkipRecord.carryGreeted(from: from, to: to, db)
        try AnnounceExclusionRecord.copy(from: from, to: to, db)
        try NameDayChoiceRecord.copy(from: from, to: to, db)
    }
}

extension PersonRecord {
    /// Before the cards `leaving` are deleted (a sync that no longer finds
    /// them, `sources remove`): a person shown as one of them whose other
    /// cards stay keeps what was chosen for them on every card that stays
    /// (``handOverChoices(from:to:_:)``: once relinked, they may be
    /// one person or several, and each keeps the exclusion, the days, the
    /// note), the greeting on the smallest id among them without a greeting
    /// of its own.
    static func handOverChoices(leaving ids: [String], _ db: Database) throws {
        let links = try PersonLinkRecord.all(db)
        guard !links.isEmpty else { return }
        let leaving = Set(ids)
        var staying: [String: [String]] = [:]
        for (card, shown) in links where leaving.contains(shown) && !leaving.contains(card) { staying[shown, default: []].append(card) }
        for (shown, cards) in staying.sorted(by: { $0.key < $1.key }) {
            // The greeting moves once, to the first card without one of its own (``GreetingRecord/handOver(from:to:_:)``).
            for card in cards.sorted() { try handOverChoices(from: shown, to: card, db) }
        }
    }
}

extension GreetingRecord {
    /// The greetings of a card of `links` and of the person it is shown as
    /// that differ (another way, address, message or language): the shown
    /// person's is the one that greets (``AppDatabase/greetingPlans(_:settings:timeZone:now:)``).
    static func conflicts(_ links: [(card: String, shownAs: String)], _ db: Database) throws -> [ChoiceConflict] {
        let rows = try GreetingRecord.filter(Column("personId") != nil).fetchAll(db)
        guard !rows.isEmpty else { return [] }
        var byPerson: [String: GreetingRecord] = [:]
        for row in rows { if let id = row.personId { byPerson[id] = row } }
        func words(_ row: GreetingRecord) -> String {
            ([row.way.rawValue] + [row.address, row.message.map { "'\($0)'" }, row.language].compactMap(\.self)).joined(separator: " ")
        }
        return links.compactMap { link in
            guard let mine = byPerson[link.card], let theirs = byPerson[link.shownAs],
                (mine.way, mine.address, mine.message, mine.language) != (theirs.way, theirs.address, theirs.message, theirs.language)
            else { return nil }
            return ChoiceConflict(choice: .greeting, shownAs: link.shownAs, card: link.card, kept: words(theirs), other: words(mine))
        }
    }
}
