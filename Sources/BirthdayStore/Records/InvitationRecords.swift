import BirthdayCore
import Foundation
import GRDB

/// The `invitation`, `inviteAnswer` and `inviteNonce` tables (migration
/// `v27-invitations`): the links `birthdays invite` made (each with the
/// SHA-256 of its token), what arrived through them, and the form nonces
/// that were used. Their SQL is here and nowhere else.
enum InvitationRecord {
    private static let columns = "id, name, groupName, usesAllowed, used, expiresAt, note, autoAccept, createdAt"

    /// Every link, oldest first.
    static func all(_ db: Database) throws -> [Invitation] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM invitation ORDER BY id").map(invitation)
    }

    /// The link whose token hashes to `tokenHash`, if any.
    static func invitation(tokenHash: String, _ db: Database) throws -> Invitation? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM invitation WHERE tokenHash = ?", arguments: [tokenHash]).map(invitation)
    }

    /// The SHA-256 of every link's token, open or closed.
    static func tokenHashes(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT tokenHash FROM invitation")
    }

    /// The link named `name`, if any.
    static func invitation(named name: String, _ db: Database) throws -> Invitation? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM invitation WHERE name = ?", arguments: [name]).map(invitation)
    }

    /// The link `id`, if any.
    static func invitation(id: Int64, _ db: Database) throws -> Invitation? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM invitation WHERE id = ?", arguments: [id]).map(invitation)
    }

    private static func invitation(_ row: Row) -> Invitation {
        Invitation(
            id: row[0],
            name: row[1],
            group: row[2],
            usesAllowed: row[3],
            used: row[4],
            expiresAt: (row[5] as Double?).map(Date.init(timeIntervalSince1970:)),
            note: row[6],
            autoAccept: row[7],
            createdAt: Date(timeIntervalSince1970: row[8])
        )
    }

    /// Adds a link; `nil` when one of that name exists.
    static func insert(_ invitation: Invitation, tokenHash: String, _ db: Database) throws -> Invitation? {
        guard try self.invitation(named: invitation.name, db) == nil else { return nil }
        try db.execute(
            sql: """
                INSERT INTO invitation (name, tokenHash, groupName, usesAllowed, used, expiresAt, note, autoAccept, createdAt)
                VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)
                """,
            arguments: [
                invitation.name, tokenHash, invitation.group, invitation.usesAllowed, invitation.expiresAt?.timeIntervalSince1970,
                invitation.note, invitation.autoAccept, invitation.createdAt.timeIntervalSince1970,
            ]
        )
        return try self.invitation(id: db.lastInsertedRowID, db)
    }

    /// Counts one more answer to link `id`.
    static func countUse(id: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE invitation SET used = used + 1 WHERE id = ?", arguments: [id])
    }

    /// Removes the link `name` (its answers stay); whether it existed.
    static func delete(name: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM invitation WHERE name = ?", arguments: [name])
        return db.changesCount > 0
    }

    /// How many answers wait, by link id.
    static func waitingCounts(_ db: Database) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT invitationId, count(*) FROM inviteAnswer WHERE state = 'waiting' AND invitationId IS NOT NULL GROUP BY invitationId"
        )
        while let row = try rows.next() { counts[row[0]] = row[1] }
        return counts
    }
}

/// The `inviteAnswer` table: what arrived through the links.
enum InviteAnswerRecord {
    private static let columns = "id, invitationId, invitationName, name, month, day, year, arrivedAt, state, personId"

    /// The waiting answers (or all of them), oldest first.
    static func answers(all: Bool, _ db: Database) throws -> [InvitationAnswer] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM inviteAnswer \(all ? "" : "WHERE state = 'waiting' ")ORDER BY id").map(answer)
    }

    /// Answer `id`, if any.
    static func answer(id: Int64, _ db: Database) throws -> InvitationAnswer? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM inviteAnswer WHERE id = ?", arguments: [id]).map(answer)
    }

    private static func answer(_ row: Row) -> InvitationAnswer {
        InvitationAnswer(
            id: row[0],
            invitationID: row[1],
            invitationName: row[2],
            name: row[3],
            month: row[4],
            day: row[5],
            year: row[6],
            arrivedAt: Date(timeIntervalSince1970: row[7]),
            state: InvitationAnswer.State(rawValue: row[8]) ?? .waiting,
            personID: row[9]
        )
    }

    /// Stores a waiting answer through `invitation`; its id.
    static func insert(_ answer: InviteForm.Answer, invitation: Invitation, arrivedAt: Date, _ db: Database) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO inviteAnswer (invitationId, invitationName, name, month, day, year, arrivedAt, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting')
                """,
            arguments: [invitation.id, invitation.name, answer.name, answer.month, answer.day, answer.year, arrivedAt.timeIntervalSince1970]
        )
        return db.lastInsertedRowID
    }

    /// Marks answer `id` accepted (into `personID`) or rejected, if it still waits; whether it did.
    static func decide(
        id: Int64,
        state: InvitationAnswer.State,
        personID: String?,
        group: String? = nil,
        at instant: Date,
        _ db: Database
    ) throws -> Bool {
        try db.execute(
            sql: "UPDATE inviteAnswer SET state = ?, personId = ?, groupName = ?, decidedAt = ? WHERE id = ? AND state = 'waiting'",
            arguments: [state.rawValue, personID, group, instant.timeIntervalSince1970, id]
        )
        return db.changesCount > 0
    }
}

extension InviteAnswerRecord {
    /// Forgets what a stranger sent in answer `id` but its day and month: the
    /// name and the year (a rejected answer keeps no one's name).
    static func forgetSender(id: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE inviteAnswer SET name = '', year = NULL WHERE id = ?", arguments: [id])
    }
}

/// The `inviteNonce` table: the SHA-256 of each form nonce that was used.
enum InviteNonceRecord {
    /// Records `hash` as used until `expiresAt` (and forgets those past their
    /// expiry); false when it was used before.
    static func use(hash: String, expiresAt: Date, now: Date, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM inviteNonce WHERE expiresAt < ?", arguments: [now.timeIntervalSince1970])
        try db.execute(
            sql: "INSERT OR IGNORE INTO inviteNonce (hash, expiresAt) VALUES (?, ?)",
            arguments: [hash, expiresAt.timeIntervalSince1970]
        )
        return db.changesCount == 1
    }
}
