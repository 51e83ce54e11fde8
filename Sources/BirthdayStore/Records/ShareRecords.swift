import BirthdayCore
import Foundation
import GRDB

/// The `share` and `shareGroup` tables (migration `v23-shares`): the links
/// `birthdays share` made, each with the SHA-256 of its token and its
/// groups. Their SQL is here and nowhere else.
enum ShareRecord {
    /// Every share with its groups, oldest first.
    static func all(_ db: Database) throws -> [Share] {
        try fetch(db, sql: "SELECT id, name, showAges, showYears, createdAt FROM share ORDER BY id", arguments: [])
    }

    /// The share whose token hashes to `tokenHash`, if any.
    static func share(tokenHash: String, _ db: Database) throws -> Share? {
        try fetch(db, sql: "SELECT id, name, showAges, showYears, createdAt FROM share WHERE tokenHash = ?", arguments: [tokenHash]).first
    }

    /// The SHA-256 of every share's token.
    static func tokenHashes(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT tokenHash FROM share")
    }

    /// The share named `name`, if any.
    static func share(named name: String, _ db: Database) throws -> Share? {
        try fetch(db, sql: "SELECT id, name, showAges, showYears, createdAt FROM share WHERE name = ?", arguments: [name]).first
    }

    private static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> [Share] {
        var shares: [Share] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            shares.append(
                Share(
                    id: row[0],
                    name: row[1],
                    groups: [],
                    showAges: row[2],
                    showYears: row[3],
                    createdAt: Date(timeIntervalSince1970: row[4])
                )
            )
        }
        for index in shares.indices {
            shares[index].groups = try String.fetchAll(
                db,
                sql: "SELECT name FROM shareGroup WHERE shareId = ? ORDER BY name",
                arguments: [shares[index].id]
            )
        }
        return shares
    }

    /// Adds a share; `nil` when one of that name exists.
    static func insert(
        name: String,
        tokenHash: String,
        groups: [String],
        showAges: Bool,
        showYears: Bool,
        createdAt: Date,
        _ db: Database
    ) throws -> Share? {
        guard try share(named: name, db) == nil else { return nil }
        try db.execute(
            sql: "INSERT INTO share (name, tokenHash, showAges, showYears, createdAt) VALUES (?, ?, ?, ?, ?)",
            arguments: [name, tokenHash, showAges, showYears, createdAt.timeIntervalSince1970]
        )
        let id = db.lastInsertedRowID
        for group in Set(groups) {
            try db.execute(sql: "INSERT INTO shareGroup (shareId, name) VALUES (?, ?)", arguments: [id, group])
        }
        return try share(named: name, db)
    }

    /// Gives the share `name` a new token hash; whether it exists.
    static func rotate(name: String, tokenHash: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "UPDATE share SET tokenHash = ? WHERE name = ?", arguments: [tokenHash, name])
        return db.changesCount > 0
    }

    /// Removes the share `name` and its groups; whether it existed.
    static func delete(name: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM share WHERE name = ?", arguments: [name])
        return db.changesCount > 0
    }
}
