import BirthdayCore
import GRDB

/// The `personGroup` table (migration `v14-groups`): the groups a person's
/// card puts them in (``Person/groups``). The rows go with their person
/// (`ON DELETE CASCADE`) and are written after it (``replace(personID:with:_:)``),
/// as the dates in other calendars are. Its SQL, and that of `sourceGroupMember`, is here
/// and nowhere else.
enum PersonGroupRecord {
    /// Replaces the card's groups of one person with `names`, and keeps the
    /// groups they joined by an accepted invitation answer (`inviteAnswer.groupName`),
    /// which no card lists.
    static func replace(personID: String, with names: [String], _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM personGroup WHERE personId = ?").execute(arguments: [personID])
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO personGroup (personId, name) VALUES (?, ?)")
        for name in names { try insert.execute(arguments: [personID, name]) }
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO personGroup (personId, name)
                SELECT personId, groupName FROM inviteAnswer WHERE personId = ? AND state = 'accepted' AND groupName IS NOT NULL
                """
        ).execute(arguments: [personID])
    }

    /// The join that keeps a group card's member `m` only where its source
    /// has the card (`sourcePerson p`), asked member by member by the card's
    /// index: `CROSS JOIN` keeps the members the outer loop and `+` keeps
    /// SQLite from the primary key's `sourceId` prefix, which it prefers and
    /// which reads every card of the source for each member. A group card of
    /// 10,000 in a book of 138,000 took 246 s to list every membership that
    /// way, and 0.16 s this way.
    static let sourceHasMember = "CROSS JOIN sourcePerson p ON p.personId = m.personId AND +p.sourceId = m.sourceId"

    /// Every membership: the card's own groups, and the group cards of each
    /// source that list a person that same source has; a card shown as
    /// another person (``PersonLinkRecord``) is that person's member (issue 43).
    static let membershipSQL = """
        SELECT COALESCE(l.shownAs, g.personId) AS personId, g.name FROM (
            SELECT personId, name FROM personGroup
            UNION
            SELECT m.personId, m.name FROM sourceGroupMember m
            \(sourceHasMember)
        ) g LEFT JOIN personLink l ON l.personId = g.personId
        GROUP BY 1, 2
        """

    /// Everyone's groups by person id, each list sorted.
    static func groupsByPerson(_ db: Database) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let rows = try Row.fetchCursor(db, sql: membershipSQL)
        while let row = try rows.next() { result[row[0] as String, default: []].append(row[1]) }
        for key in result.keys { result[key]?.sort() }
        return result
    }

    /// The groups of those of `ids` (at most 900) who have any, by person id,
    /// each list sorted: those of their cards shown as them too.
    static func groupsByPerson(ids: [String], _ db: Database) throws -> [String: [String]] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        func cards(_ column: String) -> String {
            "(\(column) IN (\(marks)) OR \(column) IN (SELECT personId FROM personLink WHERE shownAs IN (\(marks))))"
        }
        var result: [String: [String]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT COALESCE(l.shownAs, g.personId) AS personId, g.name FROM (
                    SELECT personId, name FROM personGroup WHERE \(cards("personId"))
                    UNION
                    SELECT m.personId, m.name FROM sourceGroupMember m
                    \(sourceHasMember)
                    WHERE \(cards("m.personId"))
                ) g LEFT JOIN personLink l ON l.personId = g.personId
                GROUP BY 1, 2
                """,
            arguments: StatementArguments(ids + ids + ids + ids)
        )
        while let row = try rows.next() { result[row[0] as String, default: []].append(row[1]) }
        for key in result.keys { result[key]?.sort() }
        return result
    }

    /// The groups of one person, sorted: those of their cards shown as them too.
    static func groups(personID: String, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                WITH cards(id) AS (SELECT ? UNION SELECT personId FROM personLink WHERE shownAs = ?)
                SELECT name FROM personGroup WHERE personId IN cards
                UNION
                SELECT m.name FROM sourceGroupMember m
                \(sourceHasMember)
                WHERE m.personId IN cards
                ORDER BY 1
                """,
            arguments: [personID, personID]
        )
    }

    /// The ids of the members of the group `name`: a card shown as another person counts as that person.
    static func members(of name: String, _ db: Database) throws -> [String] {
        // Filtered on each side, so each reads its index on `name`.
        try String.fetchAll(
            db,
            sql: """
                SELECT DISTINCT COALESCE(l.shownAs, g.personId) FROM (
                    SELECT personId FROM personGroup WHERE name = ?
                    UNION
                    SELECT m.personId FROM sourceGroupMember m
                    \(sourceHasMember)
                    WHERE m.name = ?
                ) g LEFT JOIN personLink l ON l.personId = g.personId
                """,
            arguments: [name, name]
        )
    }

    /// The ids of the members of the group `name` as ``members(of:_:)``
    /// gives them, but an id may come more than once (a person in the group
    /// by a card of their own and by a source, or by two cards): no
    /// temporary B-tree sorts ten thousand members out (issue 44's greeted group).
    static func memberCards(of name: String, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT COALESCE(l.shownAs, g.personId) FROM (
                    SELECT personId FROM personGroup WHERE name = ?
                    UNION ALL
                    SELECT m.personId FROM sourceGroupMember m
                    \(sourceHasMember)
                    WHERE m.name = ?
                ) g LEFT JOIN personLink l ON l.personId = g.personId
                """,
            arguments: [name, name]
        )
    }

    /// Every group with how many people it holds, by name.
    static func counts(_ db: Database) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT name, COUNT(*) FROM (\(membershipSQL)) GROUP BY name")
        while let row = try rows.next() { counts[row[0]] = row[1] }
        return counts
    }
}

/// The `sourceGroupMember` table: the members the group cards of a
/// source's item list, as person ids.
enum SourceGroupMemberRecord {
    /// The rows of one item, as `name → member ids`.
    static func item(sourceId: Int64, href: String, _ db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        // Prepared once per connection: a sync asks this for each of its changed items.
        let statement = try db.cachedStatement(sql: "SELECT name, personId FROM sourceGroupMember WHERE sourceId = ? AND href = ?")
        let rows = try Row.fetchCursor(statement, arguments: [sourceId, href])
        while let row = try rows.next() { result[row[0] as String, default: []].insert(row[1]) }
        return result
    }

    /// Replaces what the item `href` of the source lists with `cards`,
    /// writing only the rows that differ (a group card that gains one member
    /// of 10,000 writes one row, so the greetings' plan notes one card:
    /// ``GreetingPlanTriggers``); whether anything changed.
    @discardableResult
    static func replace(sourceId: Int64, href: String, with cards: [GroupCard], _ db: Database) throws -> Bool {
        var wanted: [String: Set<String>] = [:]
        for card in cards where !card.name.isEmpty { wanted[card.name, default: []].formUnion(card.members) }
        let stored = try item(sourceId: sourceId, href: href, db)
        guard stored != wanted else { return false }
        let delete = try db.cachedStatement(sql: "DELETE FROM sourceGroupMember WHERE sourceId = ? AND href = ? AND name = ? AND personId = ?")
        for (name, members) in stored {
            for member in members.subtracting(wanted[name] ?? []) { try delete.execute(arguments: [sourceId, href, name, member]) }
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO sourceGroupMember (sourceId, href, name, personId) VALUES (?, ?, ?, ?)")
        for (name, members) in wanted {
            for member in members.subtracting(stored[name] ?? []) { try insert.execute(arguments: [sourceId, href, name, member]) }
        }
        return true
    }

    /// Forgets what the item `href` listed; whether it listed anything.
    @discardableResult
    static func deleteItem(sourceId: Int64, href: String, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM sourceGroupMember WHERE sourceId = ? AND href = ?").execute(arguments: [sourceId, href])
        return db.changesCount > 0
    }
}

extension RuleScope {
    /// `group` or `source`, as the `sharedRule` table's `scope` column keeps it.
    var column: String { kind }

    init?(column: String, name: String) {
        switch column {
        case "group": self = .group(name)
        case "source": self = .source(name)
        default: return nil
        }
    }
}

/// The `sharedRule` table: rules for a whole group or source, by name.
enum SharedRuleRecord {
    /// Every rule, groups first, each kind by name.
    static func all(_ db: Database) throws -> [SharedRule] {
        try Row.fetchAll(db, sql: "SELECT scope, name, exclusion, reminderDays FROM sharedRule ORDER BY scope, name").compactMap { row in
            guard let scope = RuleScope(column: row[0], name: row[1]) else { return nil }
            let exclusion: String? = row[2]
            let days: String? = row[3]
            return SharedRule(
                scope: scope,
                exclusion: exclusion.flatMap(Exclusion.Choice.init(rawValue:)),
                reminderDays: days.flatMap(ReminderDays.init)
            )
        }
    }

    /// The rule of `scope` (an empty one when none is kept).
    static func rule(_ scope: RuleScope, _ db: Database) throws -> SharedRule {
        try all(db).first { $0.scope == scope } ?? SharedRule(scope: scope)
    }

    /// Stores `rule`, or forgets it when it says nothing. A rule kept is
    /// updated in place, never replaced: SQLite runs no delete trigger for a
    /// row `REPLACE` takes away, and the greetings' plan must see an
    /// exclusion that goes (``GreetingPlanTriggers``).
    static func save(_ rule: SharedRule, _ db: Database) throws {
        if rule.isEmpty {
            try db.execute(sql: "DELETE FROM sharedRule WHERE scope = ? AND name = ?", arguments: [rule.scope.column, rule.scope.name])
            return
        }
        try db.execute(
            sql: """
                INSERT INTO sharedRule (scope, name, exclusion, reminderDays) VALUES (?, ?, ?, ?)
                ON CONFLICT (scope, name) DO UPDATE SET exclusion = excluded.exclusion, reminderDays = excluded.reminderDays
                """,
            arguments: [rule.scope.column, rule.scope.name, rule.exclusion?.rawValue, rule.reminderDays?.description]
        )
    }

    /// ``rulesByPerson(_:)`` of the people `ids` alone (a few: those whose
    /// greetings a reschedule plans again; none a card shown as another
    /// person), whose groups are `groups` (``PersonGroupRecord/groupsByPerson(ids:_:)``):
    /// each person's rules in the same order, without reading every member of a group with a rule.
    static func rulesByPerson(ids: [String], groups: [String: [String]], _ db: Database) throws -> [String: [SharedRule]] {
        let rules = try all(db)
        guard !rules.isEmpty, !ids.isEmpty else { return [:] }
        var sources: [String: Set<String>] = [:]
        if rules.contains(where: { if case .source = $0.scope { true } else { false } }) {
            for chunk in ids.chunked(900) {
                let marks = databaseQuestionMarks(count: chunk.count)
                // As the whole read has it: a card shown as another person brings that person under its source's rule.
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT DISTINCT COALESCE(l.shownAs, p.personId), s.name FROM sourcePerson p JOIN source s ON s.id = p.sourceId
                        LEFT JOIN personLink l ON l.personId = p.personId
                        WHERE p.personId IN (\(marks)) OR p.personId IN (SELECT personId FROM personLink WHERE shownAs IN (\(marks)))
                        """,
                    arguments: StatementArguments(Array(chunk) + Array(chunk))
                )
                while let row = try rows.next() { sources[row[0] as String, default: []].insert(row[1]) }
            }
        }
        var result: [String: [SharedRule]] = [:]
        for id in ids {
            let named = Set(groups[id] ?? [])
            for rule in rules {
                switch rule.scope {
                case .group(let name): if named.contains(name) { result[id, default: []].append(rule) }
                case .source(let name): if sources[id]?.contains(name) == true { result[id, default: []].append(rule) }
                }
            }
        }
        return result
    }

    /// The rules that apply to each person some rule applies to, by person
    /// id (the id a person is shown as: a group's or a source's rule reaches
    /// a person through any of their cards); empty (one query that finds
    /// nothing) while no rule is kept.
    static func rulesByPerson(_ db: Database) throws -> [String: [SharedRule]] {
        let rules = try all(db)
        guard !rules.isEmpty else { return [:] }
        var result: [String: [SharedRule]] = [:]
        for rule in rules {
            let ids: [String]
            switch rule.scope {
            case .group(let name):
                ids = try PersonGroupRecord.members(of: name, db)
            case .source(let name):
                // A card shown as another person (issue 43) brings that person under its source's rule, as a group's member does.
                ids = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT COALESCE(l.shownAs, p.personId) FROM sourcePerson p JOIN source s ON s.id = p.sourceId
                        LEFT JOIN personLink l ON l.personId = p.personId
                        WHERE s.name = ?
                        """,
                    arguments: [name]
                )
            }
            for id in ids { result[id, default: []].append(rule) }
        }
        return result
    }
}
