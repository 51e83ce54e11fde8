import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#endif

extension AppDatabase {
    /// Copies the database at `path` to `copyPath` (a new file, mode 0600)
    /// with SQLite's online backup (what the write-ahead log holds
    /// included), as it is: not migrated, nothing in it changed; then
    /// checks the copy: SQLite finds it whole (`PRAGMA integrity_check`),
    /// and it has the original's tables with as many rows in each.
    /// `users move` hands a user's database over this way.
    ///
    /// - Throws: ``StoreError`` when the original cannot be read, the copy
    ///   cannot be written, or the copy is not the original's.
    package static func backup(of path: String, to copyPath: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        let fd = open(copyPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: copyPath, reason: String(cString: strerror(errno))) }
        close(fd)
        var readOnly = Configuration()
        readOnly.readonly = true
        readOnly.busyMode = .timeout(busyTimeout)
        let counts: [String: Int]
        do {
            let source = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? source.close() }
            let destination = try DatabaseQueue(path: copyPath)
            try source.backup(to: destination)
            // One file of its own, in WAL as the original is, so a daemon and a command can share it.
            try destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try destination.close()
            counts = try source.read(rowCounts)
        } catch {
            throw StoreError(error, path: path)
        }
        do {
            let copy = try DatabaseQueue(path: copyPath, configuration: readOnly)
            defer { try? copy.close() }
            let check = try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            guard check == ["ok"] else {
                throw StoreError.sqlite(path: copyPath, reason: "the copy is damaged: " + check.prefix(3).joined(separator: "; "))
            }
            let copied = try copy.read(rowCounts)
            guard copied == counts else { throw StoreError.sqlite(path: copyPath, reason: "the copy's tables or rows differ from the original's") }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(error, path: copyPath)
        }
    }

    /// Every table of the database (SQLite's own left out), with its number of rows.
    private static func rowCounts(_ db: Database) throws -> [String: Int] {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
        }
        return counts
    }
}

/// A write transaction held open on a database file (`BEGIN IMMEDIATE`),
/// so that every other writer gets SQLITE_BUSY once its busy timeout runs
/// out, and an error, instead of writing: `users move` holds one on the
/// set-aside database from before it is copied until the old folder is
/// deleted (or put back), so that a process that opened the database before
/// it was renamed (`serve --all-users` saving an invitation's answer, a
/// `--user` command) never commits into a file about to be deleted.
/// Readers are not stopped (the write-ahead log lets them read), so the
/// online backup reads the database while it is held. Nothing is written:
/// ``release()`` rolls the empty transaction back.
package final class WriteHold {
    // One connection, used only by the thread that made the hold and released it.
    private let queue: DatabaseQueue
    private var held = true

    private init(queue: DatabaseQueue) { self.queue = queue }

    deinit { release() }

    /// Takes the write lock of the database at `path`, waiting for a writer
    /// that holds it now for at most `waiting` (a tenth of a second at a time,
    /// asking `stop` in between; `stop` returning `true` gives up at once).
    ///
    /// - Throws: ``StoreError/busy(path:)`` when another writer kept it for
    ///   `waiting` (or `stop` said to give up), else the database's error.
    package static func take(_ path: String, waiting: Duration, stop: () -> Bool = { false }) throws(StoreError) -> WriteHold {
        var configuration = Configuration()
        configuration.busyMode = .timeout(0.1)
        // The transaction is left open on purpose, past the closure that began it.
        configuration.allowsUnsafeTransactions = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path)
        }
        let start = ContinuousClock.now
        while true {
            do {
                try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
                return WriteHold(queue: queue)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                if stop() || ContinuousClock.now - start >= waiting {
                    try? queue.close()
                    throw .busy(path: path)
                }
            } catch {
                try? queue.close()
                throw StoreError(error, path: path)
            }
        }
    }

    /// Rolls the empty transaction back and closes the connection: writers may write again.
    package func release() {
        guard held else { return }
        held = false
        try? queue.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try? queue.close()
    }
}
