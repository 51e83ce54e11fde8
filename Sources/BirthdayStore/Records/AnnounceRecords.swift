import BirthdayCore
import Foundation
import GRDB

extension AnnounceRoom.Kind: DatabaseValueConvertible {}
extension AnnounceWeekend: DatabaseValueConvertible {}

/// A row of the `announceRoom` table (migration `v25-announce`): a team room
/// (`birthdays announce add`). Never a secret: the URL lives in a 0600 file,
/// and `target` keeps its scheme only.
struct AnnounceRoomRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "announceRoom"

    var name: String
    var groupName: String
    var kind: AnnounceRoom.Kind
    var target: String
    var ages: Bool
    var weekend: AnnounceWeekend
    var language: String?
    var createdAt: Double

    init(_ room: AnnounceRoom, createdAt: Date) {
        name = room.name
        groupName = room.group
        kind = room.kind
        target = room.target
        ages = room.ages
        weekend = room.weekend
        language = room.language
        self.createdAt = createdAt.timeIntervalSince1970
    }

    var room: AnnounceRoom {
        AnnounceRoom(name: name, group: groupName, kind: kind, target: target, ages: ages, weekend: weekend, language: language)
    }

    /// Every room, oldest first.
    static func all(_ db: Database) throws -> [AnnounceRoom] {
        try AnnounceRoomRecord.order(Column("createdAt"), Column("name")).fetchAll(db).map(\.room)
    }

    /// Adds `room`; false when a room of that name exists (nothing is written then).
    static func add(_ room: AnnounceRoom, now: Date, _ db: Database) throws -> Bool {
        guard try AnnounceRoomRecord.fetchOne(db, key: room.name) == nil else { return false }
        try AnnounceRoomRecord(room, createdAt: now).insert(db)
        _ = try ChannelStateRecord.deleteOne(db, key: room.stateName)
        return true
    }

    /// Removes the room `name`, its exclusions (by cascade), its state and its
    /// pending announcement; whether there was one. Its ledger rows stay, so a
    /// room added again under the name is not announced to twice that day.
    static func remove(named name: String, _ db: Database) throws -> Bool {
        let room = AnnounceRoom(name: name, group: "", kind: .apprise, target: "")
        _ = try ChannelStateRecord.deleteOne(db, key: room.stateName)
        _ = try PendingNotificationRecord.deleteOne(db, key: room.notificationID)
        return try AnnounceRoomRecord.deleteOne(db, key: name)
    }
}

/// The `announceExclusion` table (migration `v25-announce`): who is left out
/// of which room's announcements.
enum AnnounceExclusionRecord {
    /// Leaves `personID` out of room `room` (`excluded`), or takes them back
    /// in, with every card shown as them (issue 43); whether anything changed.
    static func set(room: String, personID: String, excluded: Bool, _ db: Database) throws -> Bool {
        if excluded {
            try db.execute(sql: "INSERT OR IGNORE INTO announceExclusion (room, personId) VALUES (?, ?)", arguments: [room, personID])
        } else {
            try db.execute(
                sql: """
                    DELETE FROM announceExclusion
                    WHERE room = ? AND (personId = ? OR personId IN (SELECT personId FROM personLink WHERE shownAs = ?))
                    """,
                arguments: [room, personID, personID]
            )
        }
        return db.changesCount > 0
    }

    /// Leaves `to` out of every room `from` is left out of (`unlink --card`
    /// handing a person's choices to the cards kept); `from` stays out too.
    static func copy(from: String, to: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO announceExclusion (room, personId) SELECT room, ? FROM announceExclusion WHERE personId = ?",
            arguments: [to, from]
        )
    }

    /// The people left out of room `room`, by the id each is shown as: a card left out leaves its person out (issue 43).
    static func people(room: String, _ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT \(shownAs) FROM announceExclusion e \(linked) WHERE e.room = ?", arguments: [room]))
    }

    /// An exclusion's person as shown, over `announceExclusion e` with ``linked``.
    private static let shownAs = "COALESCE(l.shownAs, e.personId)"
    private static let linked = "LEFT JOIN personLink l ON l.personId = e.personId"

    /// How many people each room leaves out, by room.
    static func counts(_ db: Database) throws -> [String: Int] {
        var result: [String: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT e.room, COUNT(DISTINCT \(shownAs)) FROM announceExclusion e \(linked) GROUP BY e.room")
        while let row = try rows.next() { result[row[0]] = row[1] }
        return result
    }
}

extension PersonRecord {
    /// Calls `body` with the birthday of each of `ids` who is not excluded,
    /// with what the rules need of them (``PersonTraits``, read as
    /// ``TraitColumns`` reads them; a room's message uses their own and
    /// their groups' exclusion and their death), their id and name: a team room reads
    /// its group alone, by id, rather than every row as the planner does.
    static func forEachBirthday(
        ids: [String],
        _ db: Database,
        _ body: (_ date: EventDate, _ traits: PersonTraits, _ id: String, _ name: String) -> Void
    ) throws {
        let rules = try SharedRuleRecord.rulesByPerson(db)
        for chunk in ids.chunked(900) {
            let statement = try db.makeStatement(
                sql: """
                    SELECT birthdayYear, birthdayMonth, birthdayDay, id, name, \(TraitColumns.selection)
                    FROM person WHERE excluded = 0 AND birthdayMonth IS NOT NULL AND id IN (\(databaseQuestionMarks(count: chunk.count)))
                    """
            )
            var traitColumns = try TraitColumns(statement)
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(Array(chunk)))
            while let row = try rows.next() {
                guard let birthday = date(row[0], row[1], row[2]) else { continue }
                let id: String = row[3]
                // A room's message uses only whether they are left out and alive.
                body(birthday, traitColumns.traits(row, shared: rules[id] ?? []), id, row[4])
            }
        }
    }
}
