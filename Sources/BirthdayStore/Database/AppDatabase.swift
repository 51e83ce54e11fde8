import BirthdayCore
import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one SQLite database that holds people, settings, the pending
/// reminders and the delivery ledger, and the only code that writes SQL.
///
/// Built GRDB's way: an `AppDatabase` wraps any `DatabaseWriter` and migrates
/// it in ``init(_:)``, so tests use an in-memory `DatabaseQueue` and the
/// program a file opened with ``openFile(at:)`` (WAL, 0600, busy timeout).
/// Each table's SQL lives with its record type (`PersonRecord`,
/// `PendingNotificationRecord`, `DeliveryRecord`, `SettingRecord`,
/// `RevisionRecord`); the use cases (``ContactImporter``,
/// ``NotificationScheduler``, the delivery transactions the daemon's
/// engine runs, …) call those.
///
/// ## Blocking
/// SQLite calls block, up to ``busyTimeout`` while another process writes.
/// The `async` ``read(_:)`` and ``write(_:)`` run them on the store's own
/// threads (``Blocking``), never on the caller's thread, so an event loop
/// that runs Swift concurrency (`birthdays run` and `serve`, see
/// ARCHITECTURE.md) is never held up by the database. A task cancelled
/// before its transaction started gets ``StoreError/cancelled(path:)`` and
/// the transaction never runs.
package final class AppDatabase: Sendable {
    /// How long a write waits for another process's write to finish.
    package static let busyTimeout: TimeInterval = 10

    let writer: any DatabaseWriter
    /// Where the database lives, for messages: its file path, or `:memory:`.
    package let path: String
    /// Whether the file was opened read-only only because the command reads
    /// (see ``openFile(at:create:readOnlyIfNotWritable:mapped:readsOnly:)``),
    /// so that a write opens a writer (``writerOnDemand``): `feed url` makes
    /// the feed's token the first time it is asked for.
    private let writesOnDemand: Bool
    /// The writer opened on the first write, when ``writesOnDemand``.
    private let writerOnDemand = Mutex<AppDatabase?>(nil)
    /// Whether ``writerOnDemand`` maps the file.
    private let mapped: Bool

    /// Closes the pool's readers before its writer, so the writer is the last
    /// connection to close and SQLite checkpoints the write-ahead log into the
    /// file and deletes it, as a command that writes always left it. (GRDB
    /// closes a pool's writer first, and a read-only reader closing last
    /// cannot checkpoint: the file alone then lacked the command's writes,
    /// and commands that only read, which open read-only, never fold them in.)
    deinit {
        (writer as? DatabasePool)?.releaseMemory()
    }

    /// Wraps `writer` and migrates its schema forward.
    ///
    /// - Throws: ``StoreError`` when the database is not a `birthdays`
    ///   database or a migration fails.
    package init(_ writer: any DatabaseWriter) throws(StoreError) {
        self.writer = writer
        self.path = writer.path
        self.writesOnDemand = false
        self.mapped = true
        do {
            try AppDatabase.migrator.migrate(writer)
        } catch {
            throw StoreError(error, path: writer.path)
        }
    }

    /// Wraps a connection opened read-only, whose schema must already be current.
    private init(readOnly writer: any DatabaseWriter, path: String) throws(StoreError) {
        self.writer = writer
        self.path = path
        self.writesOnDemand = false
        self.mapped = true
        let current: Bool
        do {
            current = try writer.read { db in try AppDatabase.migrator.hasCompletedMigrations(db) }
        } catch {
            throw StoreError(error, path: path)
        }
        guard current else {
            throw .cannotOpen(
                path: path,
                reason: "it is read-only and was written by an older birthdays; open it once with write access to upgrade it"
            )
        }
    }

    /// Wraps a connection opened read-only whose schema was found current,
    /// in a file this process can write.
    private init(current writer: any DatabaseWriter, path: String, mapped: Bool) {
        self.writer = writer
        self.path = path
        self.writesOnDemand = true
        self.mapped = mapped
    }

    /// Where a write goes: this database, or for one opened read-only
    /// because the command reads, a writer opened (and migrated, a no-op) on
    /// the first write; its commits are seen by the reads that follow.
    private func writingDatabase() throws(StoreError) -> AppDatabase {
        guard writesOnDemand else { return self }
        return try writerOnDemand.withLock { (opened: inout AppDatabase?) throws(StoreError) -> AppDatabase in
            if let opened { return opened }
            let database = try AppDatabase.openFile(at: path, create: false, mapped: mapped)
            opened = database
            return database
        }
    }

    /// An empty database in memory, for tests and previews.
    package static func inMemory() throws(StoreError) -> AppDatabase {
        do {
            return try AppDatabase(DatabaseQueue(configuration: configuration()))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(error, path: ":memory:")
        }
    }

    /// Opens the database file at `path` and migrates it.
    ///
    /// The file is in WAL mode with a busy timeout, so a running daemon and a
    /// command-line import can share it: readers never block the writer, and
    /// a writer waits up to ``busyTimeout`` for another writer instead of
    /// failing. With `create`, a missing directory is made with mode 0700 and
    /// a missing file with 0600 (SQLite gives the -wal and -shm files the
    /// same mode): a birthday list is personal data.
    ///
    /// A command that only reads passes `readOnlyIfNotWritable`: when the
    /// file or its folder cannot be written (a backup on read-only media, a
    /// file another user owns), the database is opened read-only instead of
    /// failing (see ``openReadOnly(at:)``).
    ///
    /// A command that only reads and ends soon also passes `readsOnly`: an
    /// existing file whose schema is current is then opened read-only even
    /// when it could be written, so the command writes nothing. Opening a
    /// pool writes: GRDB makes the write-ahead log non-empty by creating and
    /// dropping a table whenever the `-wal` file is missing or empty, which
    /// it is after every command (the last connection to close deletes it),
    /// and the checkpoint as that connection closes syncs the file three
    /// times. A read-only connection reads what every other connection has
    /// committed, the daemon's too; a file that needs a migration is opened
    /// as a writer and migrated, as before.
    ///
    /// - Parameters:
    ///   - create: whether a missing file is created; without it a missing
    ///     file is ``StoreError/missing(path:)`` and nothing is created.
    ///   - readOnlyIfNotWritable: open an existing file that cannot be
    ///     written read-only; writes then fail with ``StoreError``.
    ///   - mapped: whether SQLite reads through a mapping of the file
    ///     (``mappedBytes``), which a command that reads every person once
    ///     gains from; `run` and `serve` say no: pages of a shared mapping
    ///     stay resident, which the idle daemon's release cannot hand back.
    ///   - readsOnly: with `readOnlyIfNotWritable`, open a current database
    ///     read-only even when it can be written (see above); `serve` says
    ///     no, its requests read in parallel through a pool.
    ///   - oneConnection: one connection (a `DatabaseQueue` in WAL mode) for
    ///     reads and writes instead of a pool of a writer and its readers:
    ///     `run --all-users` keeps every user's database open, and each
    ///     connection of a pool keeps its own schema, page cache and files.
    /// - Throws: ``StoreError`` when the directory or file cannot be created,
    ///   the file is not a database, or a migration fails.
    package static func openFile(
        at path: String,
        create: Bool = true,
        readOnlyIfNotWritable: Bool = false,
        mapped: Bool = true,
        readsOnly: Bool = false,
        oneConnection: Bool = false
    ) throws(StoreError) -> AppDatabase {
        if readOnlyIfNotWritable, FileManager.default.fileExists(atPath: path) {
            guard isWritable(path) else { return try openReadOnly(at: path, mapped: mapped) }
            if readsOnly, let current = openCurrentReadOnly(at: path, mapped: mapped) { return current }
        }
        try prepareFile(at: path, create: create)
        let writer: any DatabaseWriter
        do {
            if oneConnection {
                var configuration = configuration(mapped: mapped)
                configuration.journalMode = .wal
                writer = try DatabaseQueue(path: path, configuration: configuration)
            } else {
                writer = try DatabasePool(path: path, configuration: configuration(mapped: mapped))
            }
        } catch {
            throw StoreError(error, path: path)
        }
        return try AppDatabase(writer)
    }

    /// Hands back what the writing connection keeps between uses (a daemon
    /// at rest, which reads everything again at its next pass): the pages of
    /// its cache, its prepared statements, GRDB's schema cache, SQLite's
    /// parsed schema (read again at the next use), and its `TEMP` database
    /// with the triggers of the data revision and of the greetings' plan,
    /// which the next write transaction makes again. Of about 290 KB a
    /// connection of a user of 300 people keeps after a pass, about 5 KB are
    /// left (SQLite's `sqlite3_db_status`). A pool's readers keep theirs:
    /// closing them would free their queues, and libdispatch would start its
    /// once-a-second pool monitor (ARCHITECTURE.md, "Why the executor hook
    /// exists"); `run --all-users` opens one connection a user.
    package func releaseMemory() async {
        guard path.hasPrefix("/") else { return }
        let writer = self.writer
        await Blocking.run {
            try? writer.writeWithoutTransaction { db in
                // Changing temp_store deletes every TEMP object and closes the TEMP database, whose pages
                // a DROP would leave in its cache; the second change gives the setting back.
                let setting = try Int.fetchOne(db, sql: "PRAGMA temp_store") ?? 0
                try db.execute(sql: "PRAGMA temp_store = \(setting == 1 ? 0 : 1); PRAGMA temp_store = \(setting)")
                db.releaseMemory()
            }
        }
    }

    /// Whether this process can write the database file and create files
    /// next to it (SQLite's write-ahead log needs both).
    static func isWritable(_ path: String) -> Bool {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return access(path, W_OK) == 0 && access(directory, W_OK) == 0
    }

    /// The writable database at `path` opened read-only, or `nil` when it
    /// cannot be (its schema needs a migration, or it is no database: the
    /// writer's opening then migrates it or says what is wrong). Never
    /// `immutable=1`: another process may write this file.
    private static func openCurrentReadOnly(at path: String, mapped: Bool) -> AppDatabase? {
        var configuration = configuration(readOnly: true, mapped: mapped)
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        guard (try? queue.read({ db in try AppDatabase.migrator.hasCompletedMigrations(db) })) == true else {
            try? queue.close()
            return nil
        }
        return AppDatabase(current: queue, path: path, mapped: mapped)
    }

    /// Opens an existing database read-only, without migrating it.
    ///
    /// SQLite reads a database in WAL mode read-only only when its `-wal`
    /// and `-shm` files exist or can be created. When they can be neither
    /// (a read-only folder, and no process that writes the database, since
    /// a writer would have created them), the file is opened as immutable
    /// (`immutable=1`): nothing can change it while it is read.
    ///
    /// - Throws: ``StoreError`` when the file cannot be read, is not a
    ///   database, or needs a migration it cannot get.
    package static func openReadOnly(at path: String, mapped: Bool = true) throws(StoreError) -> AppDatabase {
        var configuration = configuration(readOnly: true, mapped: mapped)
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return try AppDatabase(readOnly: queue, path: path)
        } catch {
            let failure = StoreError(error, path: path)
            guard case .cannotOpen = failure else { throw failure }
            let encoded = path.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed.subtracting(["?", "#", "%"])) ?? path
            guard let queue = try? DatabaseQueue(path: "file:" + encoded + "?immutable=1", configuration: configuration) else { throw failure }
            return try AppDatabase(readOnly: queue, path: path)
        }
    }

    /// A copy of the database at `path`, made at `copyPath` (a new file,
    /// mode 0600) with SQLite's backup API and migrated there; the original
    /// is only read, never migrated or changed. A missing original gives an
    /// empty database. For pretend time: whatever a command does to the copy,
    /// the original stays as it was. With `oneConnection`, the copy is opened
    /// as ``openFile(at:create:readOnlyIfNotWritable:mapped:readsOnly:oneConnection:)``
    /// opens it then (`run --all-users` in pretend time).
    ///
    /// - Throws: ``StoreError`` when the original cannot be read or the copy cannot be written.
    package static func openCopy(of path: String, at copyPath: String, oneConnection: Bool = false) throws(StoreError) -> AppDatabase {
        try prepareFile(at: copyPath, create: true)
        let destination: DatabaseQueue
        do {
            destination = try DatabaseQueue(path: copyPath, configuration: configuration())
        } catch {
            throw StoreError(error, path: copyPath)
        }
        if FileManager.default.fileExists(atPath: path) {
            var readOnly = configuration(readOnly: true)
            readOnly.readonly = true
            do {
                var source: DatabaseQueue
                do {
                    let opened = try DatabaseQueue(path: path, configuration: readOnly)
                    try opened.read { db in _ = try db.tableExists("person") }
                    source = opened
                } catch {
                    // A folder this process cannot write: no process writes the file either (see openReadOnly).
                    let encoded =
                        path.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed.subtracting(["?", "#", "%"])) ?? path
                    source = try DatabaseQueue(path: "file:" + encoded + "?immutable=1", configuration: readOnly)
                }
                try source.backup(to: destination)
                try source.close()
            } catch {
                throw StoreError(error, path: path)
            }
        }
        // The copy is one file of its own: WAL like the original, so a daemon and a command could share it.
        do {
            try destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try destination.close()
        } catch {
            throw StoreError(error, path: copyPath)
        }
        return try openFile(at: copyPath, create: false, oneConnection: oneConnection)
    }

    private static func configuration(readOnly: Bool = false, mapped: Bool = true) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "birthdays"
        configuration.prepareDatabase { db in
            // Pages are read from a mapping of the file instead of copied by pread:
            // a reschedule or an upcoming reads every person's row.
            if mapped { try db.execute(sql: "PRAGMA mmap_size = \(mappedBytes)") }
            if !readOnly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        return configuration
    }

    /// How much of the file SQLite reads through a mapping (a database of
    /// 100,000 people with their contact points is about 50 MB).
    static let mappedBytes = 256 << 20

    /// Runs `body` with a page cache of `megabytes` on this connection, then
    /// gives the default back: an import's transaction writes every page of
    /// the people, their contact points and their indexes, and with the
    /// default 2 MB SQLite spills dirty pages to the WAL before the commit
    /// and reads them back.
    static func withPageCache<T>(megabytes: Int, _ db: Database, _ body: () throws -> T) throws -> T {
        let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = \(-megabytes * 1024)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(previous)") }
        return try body()
    }

    /// Creates the directory (0700) and the file (0600) when asked to, so the
    /// file never exists with a wider mode, not even for a moment.
    private static func prepareFile(at path: String, create: Bool) throws(StoreError) {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: path) { return }
        guard create else { throw .missing(path: path) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !fileManager.fileExists(atPath: directory) {
            do {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotOpen(path: path, reason: "cannot create the folder \(directory): \(error.localizedDescription)")
            }
        }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// `$BIRTHDAYS_DATABASE`, else `$XDG_DATA_HOME/birthdays/birthdays.sqlite`,
    /// else `~/.local/share/birthdays/birthdays.sqlite`.
    package static func defaultPath(environment: [String: String]) -> String {
        if let explicit = environment["BIRTHDAYS_DATABASE"], !explicit.isEmpty { return explicit }
        return dataFolder(environment: environment) + "/birthdays.sqlite"
    }

    /// The folder of the default database, whatever `BIRTHDAYS_DATABASE`
    /// says: `$XDG_DATA_HOME/birthdays`, else `~/.local/share/birthdays`
    /// (the users root of a server that keeps many is in it: ``UserLayout``).
    package static func dataFolder(environment: [String: String]) -> String {
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return dataHome + "/birthdays"
    }

    // MARK: - Transactions

    /// Runs `body` in one write transaction, on the calling thread; a change
    /// to what events are made of moves the data revision, stamped `instant`
    /// (`nil`: the real time; see `RevisionRecord`).
    func writeNow<T>(at instant: Date? = nil, _ body: (Database) throws -> T) throws(StoreError) -> T {
        if writesOnDemand { return try writingDatabase().writeNow(at: instant, body) }
        do {
            return try writer.write { db in
                // The data revision moves by itself (RevisionRecord), on the connection that writes.
                try RevisionRecord.installIfMissing(db)
                try RevisionRecord.beginTransaction(at: instant, db)
                // A change a greeting is made from takes the greetings' plan away, once there is one.
                try GreetingPlanTriggers.installIfStamped(db)
                return try body(db)
            }
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Runs `body` with a consistent read-only view, on the calling thread.
    func readNow<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Runs `body` in one write transaction on the store's threads; a change
    /// to what events are made of moves the data revision, stamped `instant`
    /// (`nil`: the real time; see `RevisionRecord`).
    package func write<T: Sendable>(at instant: Date? = nil, _ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try await Blocking.run(ifCancelled: .cancelled(path: path)) { () throws(StoreError) in try self.writeNow(at: instant, body) }
    }

    /// Runs `body` with a consistent read-only view on the store's threads.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try await Blocking.run(ifCancelled: .cancelled(path: path)) { () throws(StoreError) in try self.readNow(body) }
    }

    /// SQLite's `PRAGMA data_version` on the writing connection: a number that
    /// changes when another connection (another process: an import, a
    /// setting, a sync) has committed a write since the last time it was
    /// read, and never for this connection's own writes. The daemon compares
    /// it to notice every write any command makes.
    ///
    /// It is read under the write lock (`BEGIN IMMEDIATE`, rolled back), so
    /// a write another connection has under way is waited for and told of.
    /// The daemon asks at each event of ``DatabaseWatcher``, and those come
    /// from the other connection writing the log's frames under that lock,
    /// before its commit is published in the shared-memory index (`-shm`,
    /// written through a mapping, which inotify never reports); a writer
    /// that stays open sends no event after it. Read without the lock, the
    /// number asked at the commit's last event could be the one of before
    /// the commit, and nothing would wake the watch again.
    package func dataVersion() async throws(StoreError) -> Int {
        let writer = self.writer
        let path = self.path
        return try await Blocking.run(ifCancelled: .cancelled(path: path)) { () throws(StoreError) in
            do {
                return try writer.writeWithoutTransaction { db in
                    // A read-only connection cannot take the lock (the daemon's never is).
                    if db.configuration.readonly { return try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
                    var version = 0
                    try db.inTransaction(.immediate) {
                        version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                        return .rollback
                    }
                    return version
                }
            } catch {
                throw StoreError(error, path: path)
            }
        }
    }
}
