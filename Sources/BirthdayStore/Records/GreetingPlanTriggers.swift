import BirthdayCore
import GRDB

/// What the greetings' plan (``GreetingPlan/Stamp``, kept as
/// `internal.greetings.plan`) learns of a change that may alter it: SQLite
/// triggers, made like the data revision's (``RevisionRecord/install(_:)``)
/// on the connection that writes, note the cards a change names in the
/// `greetingPlanChange` table, whose people's greetings alone the next
/// reschedule plans again, or delete the stamp when the change may alter
/// anyone's greeting, so the next reschedule plans them all again (issue
/// 44). What each change means is core's (``GreetingPlan/Change``, its
/// ``GreetingPlan/Change/reach``).
///
/// The table is in the database, not the connection's `TEMP` schema:
/// other processes (a command beside the daemon) write the database too,
/// and the reschedule that plans again may be theirs or the daemon's.
///
/// The data revision moves with any change of anyone, so an import or a
/// sync that touched no greeted friend made ten thousand greetings be
/// planned again (2.65 times the reschedule without greetings), and so did
/// a change of one greeted friend (2.58 times). These triggers fire only
/// for what a greeting is made from:
/// - a greeted person's row (a column other than bookkeeping changed) or
///   one of their e-mail addresses (``GreetingPlan/Change/friend``,
///   ``GreetingPlan/Change/emailAddress``): that card;
/// - a membership of a greeted group or of a group whose rule includes or
///   excludes (the one part of a rule a greeting reads: ``GreetingRules``),
///   by a card's categories (`personGroup`) or a source's group card
///   (`sourceGroupMember`) (``GreetingPlan/Change/membership``): that card;
/// - a link (`personLink`) of a card to a person where either is greeted
///   (``GreetingPlan/Change/link``): both;
/// - who a source has (`sourcePerson`, no trigger: ``changedHolding(of:_:)``,
///   called where the revision is moved for it) (``GreetingPlan/Change/holding``): those cards;
/// - a rule of a group or source whose exclusion is set, changed or taken
///   away (``GreetingPlan/Change/rule``), and a setting of the user's (a
///   name without a dot) given another value (``GreetingPlan/Change/setting``):
///   the stamp goes.
///
/// A card is greeted when the person it is or is shown as is: by a choice
/// of their own, or by a greeted group one of their cards is in, by its
/// categories or a source's group card (counted here whether or not the
/// source has the card: more cards noted, never fewer). A card is noted
/// with the person it is shown as then, and the reschedule plans again the
/// person each card noted is or is shown as by then.
///
/// Past ``GreetingPlan/Stamp/replanLimit`` cards noted the stamp goes, and
/// once it has gone nothing is noted: each trigger asks first whether there
/// is a stamp, so the other rows of that transaction cost one lookup. A
/// connection makes the triggers only once there is a stamp
/// (``installIfStamped(_:)``, at the start of each write transaction, and
/// where the stamp is written): a database that greets nobody, an import
/// into a new one above all, pays no trigger per row. Whether a row's card
/// is greeted is a few lookups by key (the greeting's indexes, the card's
/// links and groups, the group cards' `(name, personId)` index for each of
/// the few greeted groups), never a scan: a sync of 10,000 people in group
/// cards took 66 s with a scan of the memberships per row.
enum GreetingPlanTriggers {
    /// Makes the triggers on this connection when there is a stamp and they are not made yet.
    static func installIfStamped(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (\(installedSQL)) OR NOT \(stamped)") == false else { return }
        try install(db)
    }

    /// Makes the triggers on this connection (`TEMP`, like the revision's), unless they are made.
    static func install(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (\(installedSQL))") == false else { return }
        let personColumns = try db.columns(in: "person").map(\.name).filter { !RevisionRecord.bookkeeping.contains($0) }
        let personChanged = personColumns.map { "OLD.\"\($0)\" IS NOT NEW.\"\($0)\"" }.joined(separator: " OR ")
        let email = "'\(ContactPoint.Kind.email.rawValue)'"
        let exclusionChanged = "(OLD.exclusion IS NOT NULL OR NEW.exclusion IS NOT NULL)"
        let ruleChanged = "(OLD.exclusion IS NOT NEW.exclusion OR OLD.scope IS NOT NEW.scope OR OLD.name IS NOT NEW.name)"
        let triggers: [(table: String, event: String, change: GreetingPlan.Change, condition: String, cards: [String])] = [
            // A card's id never changes but by hand: the card as it was is asked apart only then.
            (
                "person", "UPDATE", .friend,
                "(\(personChanged)) AND (\(greeted("NEW.id")) OR (OLD.id IS NOT NEW.id AND \(greeted("OLD.id"))))", ["OLD.id", "NEW.id"]
            ),
            // SQLite deletes the rows that cascade before this runs: it sees a source's group card's members and
            // what the cascaded rows leave; their own triggers (contact points, groups, links) note the card too.
            ("person", "DELETE", .friend, greeted("OLD.id"), ["OLD.id"]),
            ("contactPoint", "INSERT", .emailAddress, "NEW.kind = \(email) AND \(greeted("NEW.personId"))", ["NEW.personId"]),
            (
                "contactPoint", "UPDATE", .emailAddress,
                "(OLD.kind = \(email) OR NEW.kind = \(email)) AND (\(greeted("NEW.personId"))"
                    + " OR (OLD.personId IS NOT NEW.personId AND \(greeted("OLD.personId"))))",
                ["OLD.personId", "NEW.personId"]
            ),
            ("contactPoint", "DELETE", .emailAddress, "OLD.kind = \(email) AND \(greeted("OLD.personId"))", ["OLD.personId"]),
            ("personGroup", "INSERT", .membership, counts("NEW.name"), ["NEW.personId"]),
            ("personGroup", "UPDATE", .membership, "(\(counts("OLD.name")) OR \(counts("NEW.name")))", ["OLD.personId", "NEW.personId"]),
            ("personGroup", "DELETE", .membership, counts("OLD.name"), ["OLD.personId"]),
            ("sourceGroupMember", "INSERT", .membership, counts("NEW.name"), ["NEW.personId"]),
            ("sourceGroupMember", "UPDATE", .membership, "(\(counts("OLD.name")) OR \(counts("NEW.name")))", ["OLD.personId", "NEW.personId"]),
            ("sourceGroupMember", "DELETE", .membership, counts("OLD.name"), ["OLD.personId"]),
            // Greeted as one person, either card is greeted: asked of each, after the change and as it leaves them.
            ("personLink", "INSERT", .link, greeted("NEW.personId"), ["NEW.personId", "NEW.shownAs"]),
            (
                "personLink", "UPDATE", .link,
                "(\(greeted("OLD.personId")) OR \(greeted("OLD.shownAs")) OR \(greeted("NEW.personId")) OR \(greeted("NEW.shownAs")))",
                ["OLD.personId", "OLD.shownAs", "NEW.personId", "NEW.shownAs"]
            ),
            ("personLink", "DELETE", .link, "(\(greeted("OLD.personId")) OR \(greeted("OLD.shownAs")))", ["OLD.personId", "OLD.shownAs"]),
            ("sharedRule", "INSERT", .rule, "NEW.exclusion IS NOT NULL", []),
            ("sharedRule", "UPDATE", .rule, "\(exclusionChanged) AND \(ruleChanged)", []),
            ("sharedRule", "DELETE", .rule, "OLD.exclusion IS NOT NULL", []),
            ("setting", "INSERT", .setting, "NEW.key NOT LIKE '%.%'", []),
            (
                "setting", "UPDATE", .setting,
                "(OLD.key NOT LIKE '%.%' OR NEW.key NOT LIKE '%.%') AND (OLD.key IS NOT NEW.key OR OLD.value IS NOT NEW.value)", []
            ),
            ("setting", "DELETE", .setting, "OLD.key NOT LIKE '%.%'", []),
        ]
        for trigger in triggers {
            let action: String
            switch trigger.change.reach {
            case .everyone: action = dropSQL
            case .itsPeople: action = noteSQL(trigger.cards)
            }
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER IF NOT EXISTS greetingPlan_\(trigger.table)_\(trigger.event.lowercased())
                    AFTER \(trigger.event) ON main.\(trigger.table)
                    WHEN \(stamped) AND \(trigger.condition) BEGIN \(action) END
                    """
            )
        }
    }

    /// Takes the plan away: the next reschedule plans every greeting again.
    static func drop(_ db: Database) throws {
        try db.execute(sql: dropSQL)
        try clearChanges(db)
    }

    /// Notes that a source started or stopped having the cards `cards`
    /// (``GreetingPlan/Change/holding``), a change no trigger sees: past
    /// ``GreetingPlan/Stamp/replanLimit`` cards noted, the plan goes.
    static func changedHolding(of cards: some Collection<String>, _ db: Database) throws {
        guard !cards.isEmpty, try Bool.fetchOne(db, sql: "SELECT \(stamped)") == true else { return }
        guard cards.count <= GreetingPlan.Stamp.replanLimit else { return try drop(db) }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO greetingPlanChange (personId) VALUES (?)")
        let shown = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO greetingPlanChange (personId) SELECT shownAs FROM personLink WHERE personId = ?"
        )
        for card in cards {
            try insert.execute(arguments: [card])
            try shown.execute(arguments: [card])
        }
        try db.execute(sql: dropIfManySQL)
    }

    /// The cards noted since the plan was made.
    static func changedCards(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT personId FROM greetingPlanChange"))
    }

    /// Forgets the cards noted: the plan stored now has planned their people's greetings.
    static func clearChanges(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM greetingPlanChange")
    }

    /// The last trigger ``install(_:)`` makes, found once they are all made.
    private static let installedSQL = "SELECT 1 FROM temp.sqlite_master WHERE type = 'trigger' AND name = 'greetingPlan_setting_delete'"

    private static var key: String { InternalValue.greetingPlan.key }
    private static var stamped: String { "EXISTS (SELECT 1 FROM main.setting WHERE key = '\(key)')" }
    /// Unqualified: SQLite allows no schema name in a trigger's statements (the `TEMP` trigger's `setting` is main's).
    private static var dropSQL: String { "DELETE FROM setting WHERE key = '\(key)';" }
    /// The stamp goes once more cards are noted than a plan of a few people is worth; the rows are
    /// numbered from one as they come (a rowid table emptied at each plan), so the largest rowid counts them.
    private static var dropIfManySQL: String {
        "DELETE FROM setting WHERE key = '\(key)' AND (SELECT max(rowid) FROM greetingPlanChange) > \(GreetingPlan.Stamp.replanLimit);"
    }

    /// Notes the cards `cards` (SQL of the trigger's row), each once, and
    /// the people they are shown as now: a card deleted takes its link
    /// with it, and the cascade may have taken the link before this runs.
    ///
    /// Never a conflict on the key, rather than `INSERT OR IGNORE`: in a
    /// trigger, SQLite handles a conflict as the statement that fired it
    /// says (an upsert's is an abort), not as the trigger's statement does.
    private static func noteSQL(_ cards: [String]) -> String {
        let cards = Array(Set(cards)).sorted()
        let notNoted = "NOT IN (SELECT personId FROM greetingPlanChange)"
        let each = cards.map { card in
            "INSERT INTO greetingPlanChange (personId) SELECT \(card) WHERE \(card) \(notNoted);"
        }
        return each.joined(separator: " ") + """
             INSERT INTO greetingPlanChange (personId) SELECT DISTINCT shownAs FROM personLink \
            WHERE personId IN (\(cards.joined(separator: ", "))) AND shownAs \(notNoted); \(dropIfManySQL)
            """
    }

    /// Whether the card `id` is greeted: the person it is or is shown as is
    /// (see the type's documentation). Unlinked, the card alone is asked;
    /// linked, each card of its person.
    private static func greeted(_ id: String) -> String {
        let person = "COALESCE((SELECT shownAs FROM main.personLink WHERE personId = \(id)), \(id))"
        return """
            (\(greetedCard(id)) \
            OR EXISTS (SELECT 1 FROM main.personLink l WHERE l.shownAs = \(person) \
            AND (\(greetedCard("l.personId")) OR \(greetedCard("l.shownAs")))))
            """
    }

    /// Whether the card `id` itself is greeted: by a choice made on it, by a
    /// greeted group its categories name, or by one a source's group card
    /// lists it in. Each from the card's few rows or the few greeted groups
    /// (`CROSS JOIN` keeps SQLite to that order; `IS NOT NULL` is a range
    /// of the unique index on `groupName`, not a scan of every greeting).
    private static func greetedCard(_ id: String) -> String {
        """
        (EXISTS (SELECT 1 FROM main.greeting WHERE personId = \(id)) \
        OR EXISTS (SELECT 1 FROM main.personGroup m CROSS JOIN main.greeting g ON g.groupName = m.name WHERE m.personId = \(id)) \
        OR EXISTS (SELECT 1 FROM main.greeting g CROSS JOIN main.sourceGroupMember m ON m.name = g.groupName AND m.personId = \(id) \
        WHERE g.groupName IS NOT NULL))
        """
    }

    /// Whether a membership of the group `name` counts: a greeted group's,
    /// or a group's whose rule includes or excludes (a rule of reminder days
    /// alone greets nobody more or less).
    private static func counts(_ name: String) -> String {
        """
        (EXISTS (SELECT 1 FROM main.greeting WHERE groupName = \(name)) \
        OR EXISTS (SELECT 1 FROM main.sharedRule WHERE scope = '\(RuleScope.group("").column)' AND name = \(name) AND exclusion IS NOT NULL))
        """
    }
}
