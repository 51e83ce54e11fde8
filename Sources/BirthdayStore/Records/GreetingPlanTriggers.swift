import GRDB

/// What takes the greetings' plan away (``GreetingPlan/Stamp``, kept as
/// `internal.greetings.plan`) when a change may alter it: SQLite triggers,
/// made like the data revision's (``RevisionRecord/install(_:)``) on the
/// connection that writes, delete the stamp, so the next reschedule plans
/// the greetings again (issue 44).
///
/// The data revision moves with any change of anyone, so an import or a
/// sync that touched no greeted friend made ten thousand greetings be
/// planned again (2.65 times the reschedule without greetings). These
/// triggers fire only for what a greeting is made from:
/// - a greeted person's row (a column other than bookkeeping changed) or
///   one of their contact points; greeted is their own choice, their
///   membership of a greeted group, or a card of several (``PersonLinkRecord``),
///   either side;
/// - a membership of a greeted group or of a group with a rule, by a card's
///   categories (`personGroup`) or a source's group card (`sourceGroupMember`);
/// - any rule of a group or source (`sharedRule`), any link (`personLink`),
///   any setting of the user's (a name without a dot);
/// - who a source has (`sourcePerson`, no trigger: ``drop(_:)``, where the revision is moved for it).
///
/// While a greeted group has members through a source's group card, a
/// change of anyone's row or contact points counts (who those members are
/// is not read per row). The choices, the skipped years, the links' birthdays,
/// the settings the plan reads, the zone and the migrations are the stamp's
/// own inputs; a greeting due since and a day gone end it too.
///
/// Each trigger asks first whether there is a stamp: once the first change
/// of a transaction took it away, the other rows cost one lookup. And a
/// connection makes them only once there is a stamp to take away
/// (``installIfStamped(_:)``, at the start of each write transaction, and
/// where the stamp is written): a database that greets nobody, an import
/// into a new one above all, pays no trigger per row.
enum GreetingPlanTriggers {
    /// Makes the triggers on this connection when there is a stamp and they are not made yet.
    static func installIfStamped(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (\(installedSQL)) OR NOT \(stamped)") == false else { return }
        try install(db)
    }

    /// Makes the triggers on this connection (`TEMP`, like the revision's), unless they are made.
    static func install(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (\(installedSQL))") == false else { return }
        let any = "TRUE"
        let personColumns = try db.columns(in: "person").map(\.name).filter { !RevisionRecord.bookkeeping.contains($0) }
        let personChanged = personColumns.map { "OLD.\"\($0)\" IS NOT NEW.\"\($0)\"" }.joined(separator: " OR ")
        let triggers: [(table: String, event: String, condition: String)] = [
            ("person", "UPDATE", "(\(personChanged)) AND (\(greeted("OLD.id")) OR \(greeted("NEW.id")))"),
            // SQLite deletes the rows that cascade before this runs, so it sees only a source's group card;
            // the cascaded rows' own triggers (contact points, groups, links) take the plan away.
            ("person", "DELETE", greeted("OLD.id")),
            ("contactPoint", "INSERT", greeted("NEW.personId")),
            ("contactPoint", "UPDATE", "(\(greeted("OLD.personId")) OR \(greeted("NEW.personId")))"),
            ("contactPoint", "DELETE", greeted("OLD.personId")),
            ("personGroup", "INSERT", counts("NEW.name")),
            ("personGroup", "UPDATE", "(\(counts("OLD.name")) OR \(counts("NEW.name")))"),
            ("personGroup", "DELETE", counts("OLD.name")),
            ("sourceGroupMember", "INSERT", counts("NEW.name")),
            ("sourceGroupMember", "UPDATE", "(\(counts("OLD.name")) OR \(counts("NEW.name")))"),
            ("sourceGroupMember", "DELETE", counts("OLD.name")),
            ("sharedRule", "INSERT", any), ("sharedRule", "UPDATE", any), ("sharedRule", "DELETE", any),
            ("personLink", "INSERT", any), ("personLink", "UPDATE", any), ("personLink", "DELETE", any),
            ("setting", "INSERT", "NEW.key NOT LIKE '%.%'"),
            ("setting", "UPDATE", "(OLD.key NOT LIKE '%.%' OR NEW.key NOT LIKE '%.%')"),
            ("setting", "DELETE", "OLD.key NOT LIKE '%.%'"),
        ]
        for trigger in triggers {
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER IF NOT EXISTS greetingPlan_\(trigger.table)_\(trigger.event.lowercased())
                    AFTER \(trigger.event) ON main.\(trigger.table)
                    WHEN \(stamped) AND \(trigger.condition) BEGIN \(dropSQL); END
                    """
            )
        }
    }

    /// Takes the plan away for a change no trigger sees (who a source has).
    static func drop(_ db: Database) throws {
        try db.execute(sql: dropSQL)
    }

    /// The last trigger ``install(_:)`` makes, found once they are all made.
    private static let installedSQL = "SELECT 1 FROM temp.sqlite_master WHERE type = 'trigger' AND name = 'greetingPlan_setting_delete'"

    private static var key: String { InternalValue.greetingPlan.key }
    private static var stamped: String { "EXISTS (SELECT 1 FROM main.setting WHERE key = '\(key)')" }
    /// Unqualified: SQLite allows no schema name in a trigger's statements (the `TEMP` trigger's `setting` is main's).
    private static var dropSQL: String { "DELETE FROM setting WHERE key = '\(key)'" }

    /// Whether the person with id `id` is greeted (see the type's documentation).
    ///
    /// The last clause does not depend on the row, and SQLite runs it for
    /// every row a statement writes: it starts from the few greeted groups
    /// (`greeting`'s `groupName` index) and looks each up among the group
    /// cards' members, never a scan of every membership (a sync of 10,000
    /// people in group cards took 66 s with a scan, 10 s without the stamp).
    private static func greeted(_ id: String) -> String {
        """
        (EXISTS (SELECT 1 FROM main.greeting WHERE personId = \(id)) \
        OR EXISTS (SELECT 1 FROM main.personGroup m JOIN main.greeting g ON g.groupName = m.name WHERE m.personId = \(id)) \
        OR EXISTS (SELECT 1 FROM main.personLink WHERE personId = \(id) OR shownAs = \(id)) \
        OR EXISTS (SELECT 1 FROM main.greeting g WHERE g.groupName IS NOT NULL \
        AND EXISTS (SELECT 1 FROM main.sourceGroupMember m WHERE m.name = g.groupName)))
        """
    }

    /// Whether a membership of the group `name` counts: a greeted group's, or a group's with a rule.
    private static func counts(_ name: String) -> String {
        "(EXISTS (SELECT 1 FROM main.greeting WHERE groupName = \(name)) OR EXISTS (SELECT 1 FROM main.sharedRule WHERE name = \(name)))"
    }
}
