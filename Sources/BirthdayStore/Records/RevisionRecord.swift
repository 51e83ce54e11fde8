import Foundation
import GRDB

/// The one row of the `revision` table: the data revision, a counter that
/// moves with every write that can change an event (what moves the feed's
/// ETag and wakes the publisher), and when it last moved.
///
/// ## Moved where it cannot be forgotten
/// Use cases do not bump it (but for the one change below). SQLite triggers do (``install(_:)``, made on the
/// writing connection at the start of a write transaction when it has none,
/// from the schema as it is then; a connection at rest lets them go,
/// ``AppDatabase/releaseMemory()``): every insert and delete on the tables events are made of
/// (``eventTables``), and every update that changes a column there other
/// than bookkeeping (``bookkeeping``: when a row was made or changed, whether
/// an import brought it), move it. Settings the program keeps for itself
/// (`feed.token`, `ids.key`, …: names with a dot) do not. It moves once per
/// transaction, whatever the number of rows (``beginTransaction(at:_:)``
/// clears the mark the first change leaves), so an import of 100,000 people
/// costs one bump.
///
/// One change has no trigger: which people a source has (`sourcePerson`,
/// what its group cards and `exclude --source` count on). A sync deletes and
/// writes again the rows of every card it fetched, so the sync and the
/// removal of a source compare who the source has before and after, and
/// call ``move(_:)`` when that differs.
///
/// `changedAt` is the instant the transaction was given
/// (``AppDatabase/write(at:_:)``; the injected clock), else the real time.
struct RevisionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "revision"

    var id: Int
    var value: Int64
    var changedAt: Double

    /// The tables whose rows make events: people, their dates in other
    /// calendars, their labelled dates, their groups, the rules kept for groups and sources, the
    /// settings, the name-day lists of your own and the choices per person, and which card is shown as whom.
    static let eventTables = [
        "person", "calendarDate", "labelledDate", "personGroup", "sourceGroupMember", "sharedRule", "setting", "nameDayList", "nameDayChoice",
        "personLink",
    ]

    /// Columns whose change alone makes no event differ.
    static let bookkeeping: Set<String> = ["createdAt", "updatedAt", "imported"]

    static func current(_ db: Database) throws -> (value: Int64, changedAt: Date) {
        let row = try fetchOne(db, key: 1)
        return (row?.value ?? 0, Date(timeIntervalSince1970: row?.changedAt ?? 0))
    }

    /// Makes the triggers that move the revision on this connection unless
    /// it has them: at the start of every write transaction
    /// (``AppDatabase``'s `writeNow`), so that no write goes without them,
    /// whether the connection is new, rested (``AppDatabase/releaseMemory()``)
    /// or rolled back the transaction that made them.
    static func installIfMissing(_ db: Database) throws {
        let installed = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE type = 'trigger' AND name = ?)",
            arguments: ["revision_\(eventTables[eventTables.count - 1])_update"]
        )
        if installed != true { try install(db) }
    }

    /// Makes the triggers that move the revision, on this connection (they
    /// are `TEMP`, so made from the schema the migrations left); the last
    /// one made is the one ``installIfMissing(_:)`` looks for.
    static func install(_ db: Database) throws {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS revisionMark (instant DOUBLE, moved BOOLEAN NOT NULL)")
        for table in eventTables {
            // The program's own values live in `setting` too, under names with a dot.
            let own: (String) -> String = { row in table == "setting" ? " AND \(row).key NOT LIKE '%.%'" : "" }
            let changed = try db.columns(in: table).map(\.name).filter { !bookkeeping.contains($0) }
                .map { "OLD.\"\($0)\" IS NOT NEW.\"\($0)\"" }.joined(separator: " OR ")
            let triggers = [
                ("insert", "AFTER INSERT", unmoved + own("NEW")),
                ("delete", "AFTER DELETE", unmoved + own("OLD")),
                ("update", "AFTER UPDATE", unmoved + own("NEW") + " AND (\(changed))"),
            ]
            for (name, event, condition) in triggers {
                try db.execute(
                    sql: """
                        CREATE TEMP TRIGGER IF NOT EXISTS revision_\(table)_\(name) \(event) ON main.\(table)
                        WHEN \(condition) BEGIN \(bump) END
                        """
                )
            }
        }
    }

    /// Moves the revision for a change no trigger sees (who a source has:
    /// `sourcePerson`, whose rows a sync writes again for every card it
    /// fetched), once per transaction as the triggers do. Who a source has
    /// decides its group cards' members and its rules' people, so the caller
    /// tells the greetings' plan whom too (``GreetingPlanTriggers/changedHolding(of:_:)``).
    static func move(_ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT \(unmoved)") == true { try db.execute(sql: bump) }
    }

    /// The statements that move the revision, at the transaction's instant, and mark it moved.
    private static let bump = """
        UPDATE revision SET value = value + 1, changedAt = \(markedInstant) WHERE id = 1;
        UPDATE revisionMark SET moved = 1;
        INSERT INTO revisionMark (instant, moved) SELECT NULL, 1 WHERE NOT EXISTS (SELECT 1 FROM temp.revisionMark);
        """
    private static let markedInstant = "COALESCE((SELECT instant FROM temp.revisionMark), (julianday('now') - 2440587.5) * 86400.0)"
    /// True while the revision has not moved in this transaction.
    private static let unmoved = "NOT EXISTS (SELECT 1 FROM temp.revisionMark WHERE moved)"

    /// The revision as this transaction found it: the current one, less the
    /// move this transaction has made, if it has.
    static func atTransactionStart(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value - (\(unmoved) IS 0) FROM revision WHERE id = 1") ?? 0
    }

    /// Starts a write transaction's account: the revision moves again at
    /// the first change, stamped `instant` (`nil`: the real time).
    static func beginTransaction(at instant: Date?, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM temp.revisionMark")
        if let instant {
            try db.execute(sql: "INSERT INTO temp.revisionMark (instant, moved) VALUES (?, 0)", arguments: [instant.timeIntervalSince1970])
        }
    }
}
