import Foundation
import GRDB

/// The one SQLite file that holds people, settings and (in later areas)
/// pending reminders and the delivery ledger.
///
/// Opened in WAL mode with a busy timeout, so a running daemon and a CLI
/// import can share it: readers never block the writer, and a writer waits
/// up to ``busyTimeout`` for another writer instead of failing.
/// The directory is created with mode 0700 and the file with 0600: a birthday
/// list is personal data.
public final class AppDatabase: Sendable {
    /// How long a write waits for another process's write to finish.
    public static let busyTimeout: TimeInterval = 10

    let writer: any DatabaseWriter
    /// The database file's path.
    public let path: String

    /// Opens (creating if needed) the database at `path` and migrates it.
    ///
    /// - Throws: ``StoreError`` when the directory or file cannot be created,
    ///   the file is not a database, or a migration fails.
    public init(path: String) throws(StoreError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let fileManager = FileManager.default
        do {
            if !fileManager.fileExists(atPath: directory) {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if !fileManager.fileExists(atPath: path) {
                // Create the file ourselves so it is 0600 from the first byte;
                // SQLite gives the -wal and -shm files the same mode.
                let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if fd >= 0 { close(fd) } else if errno != EEXIST {
                    throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.cannotOpen(path: path, reason: error.localizedDescription)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(AppDatabase.busyTimeout)
        configuration.label = "birthdays"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try AppDatabase.migrator.migrate(pool)
            writer = pool
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// `$BIRTHDAYS_DATABASE`, else `$XDG_DATA_HOME/birthdays/birthdays.sqlite`,
    /// else `~/.local/share/birthdays/birthdays.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let explicit = environment["BIRTHDAYS_DATABASE"], !explicit.isEmpty { return explicit }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return dataHome + "/birthdays/birthdays.sqlite"
    }

    /// Runs `body` in one write transaction.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Runs `body` with a consistent read-only view.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(error, path: path)
        }
    }
}
