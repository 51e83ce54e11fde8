import BirthdayCore
import Foundation
import GRDB

extension SourceKind: DatabaseValueConvertible {}

/// A row of the `source` table (migration `v4-sources`): a file, vdir or
/// CardDAV address book that syncs follow, and how its syncs went. The
/// password is never here, only the command that prints it.
struct SourceRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "source"

    var id: Int64?
    var name: String
    var kind: SourceKind
    var location: String
    var username: String?
    var passwordCommand: String?
    var syncToken: String?
    var ctag: String?
    var lastSyncAt: Double?
    var lastAttemptAt: Double?
    var lastError: String?
    var failures: Int
    var nextSyncAt: Double?
    var createdAt: Double

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let syncToken = Column(CodingKeys.syncToken)
        static let ctag = Column(CodingKeys.ctag)
        static let lastSyncAt = Column(CodingKeys.lastSyncAt)
        static let lastAttemptAt = Column(CodingKeys.lastAttemptAt)
        static let lastError = Column(CodingKeys.lastError)
        static let failures = Column(CodingKeys.failures)
        static let nextSyncAt = Column(CodingKeys.nextSyncAt)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension SourceRecord {
    init(_ source: Source, createdAt: Date) {
        id = nil
        name = source.name
        kind = source.kind
        location = source.location
        username = source.username
        passwordCommand = source.passwordCommand
        failures = 0
        self.createdAt = createdAt.timeIntervalSince1970
    }

    /// The source, with `people` as its count of people.
    func source(people: Int) -> Source {
        Source(
            id: id ?? 0,
            name: name,
            kind: kind,
            location: location,
            username: username,
            passwordCommand: passwordCommand,
            status: SourceStatus(
                lastSync: lastSyncAt.map(Date.init(timeIntervalSince1970:)),
                lastAttempt: lastAttemptAt.map(Date.init(timeIntervalSince1970:)),
                error: lastError,
                failures: failures,
                nextSync: nextSyncAt.map(Date.init(timeIntervalSince1970:)),
                people: people
            )
        )
    }

    var snapshot: SourceSnapshot { SourceSnapshot(syncToken: syncToken, ctag: ctag) }
}

// MARK: - Queries

extension SourceRecord {
    /// Every source, oldest first, with the number of people each owns.
    ///
    /// Read from raw rows, not through `Codable`: the idle daemon reads the
    /// list at every wake, and the generic decoding path costs it resident
    /// code pages that nothing else uses.
    static func sources(counting: Bool = true, _ db: Database) throws -> [Source] {
        var sources: [Source] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, kind, location, username, passwordCommand, lastSyncAt, lastAttemptAt, lastError, failures, nextSyncAt
                FROM source ORDER BY id
                """
        )
        while let row = try rows.next() {
            guard let kind = SourceKind(rawValue: row[2]) else { continue }
            sources.append(
                Source(
                    id: row[0],
                    name: row[1],
                    kind: kind,
                    location: row[3],
                    username: row[4],
                    passwordCommand: row[5],
                    status: SourceStatus(
                        lastSync: (row[6] as Double?).map(Date.init(timeIntervalSince1970:)),
                        lastAttempt: (row[7] as Double?).map(Date.init(timeIntervalSince1970:)),
                        error: row[8],
                        failures: row[9],
                        nextSync: (row[10] as Double?).map(Date.init(timeIntervalSince1970:))
                    )
                )
            )
        }
        guard counting, !sources.isEmpty else { return sources }
        let counts = try SourcePersonRecord.peopleCounts(db)
        for index in sources.indices { sources[index].status.people = counts[sources[index].id] ?? 0 }
        return sources
    }

    static func named(_ name: String, _ db: Database) throws -> SourceRecord? {
        try filter(Columns.name == name).fetchOne(db)
    }

    /// Records a sync that succeeded: the new state, no error.
    static func succeeded(id: Int64, syncToken: String?, ctag: String?, now: Date, _ db: Database) throws {
        _ = try filter(Columns.id == id).updateAll(
            db,
            Columns.syncToken.set(to: syncToken),
            Columns.ctag.set(to: ctag),
            Columns.lastSyncAt.set(to: now.timeIntervalSince1970),
            Columns.lastAttemptAt.set(to: now.timeIntervalSince1970),
            Columns.lastError.set(to: nil),
            Columns.failures.set(to: 0)
        )
    }

    /// Records a sync that failed; its state (token, items) stays as it was.
    static func failed(id: Int64, error: String, now: Date, _ db: Database) throws {
        _ = try filter(Columns.id == id).updateAll(
            db,
            Columns.lastAttemptAt.set(to: now.timeIntervalSince1970),
            Columns.lastError.set(to: error),
            Columns.failures.set(to: Columns.failures + 1)
        )
    }

    /// Forgets the sync token and collection tag, so the next sync lists the whole source.
    static func forgetState(id: Int64, _ db: Database) throws {
        _ = try filter(Columns.id == id).updateAll(db, Columns.syncToken.set(to: nil), Columns.ctag.set(to: nil))
    }

    /// Stores when the daemon syncs the sources next (`nil`: on a change), by id.
    static func setNextSync(_ next: [Int64: Date?], _ db: Database) throws {
        for (id, date) in next {
            _ = try filter(Columns.id == id).updateAll(db, Columns.nextSyncAt.set(to: date?.timeIntervalSince1970))
        }
    }

    /// Clears every source's next sync (the daemon stopped).
    static func clearNextSync(_ db: Database) throws {
        _ = try updateAll(db, Columns.nextSyncAt.set(to: nil))
    }
}
