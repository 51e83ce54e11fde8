import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The users of a server that keeps many (`birthdays users add|list|remove`,
/// and `--user NAME` on every command): each a folder of ``UserFolders``
/// with its own database, made here together so that a user listed is a
/// user whose database opens.
///
/// The one way from a user's name to their database is
/// ``database(_:)``: it checks the folder (a real folder of this account,
/// no link in it) before any command opens anything in it. Everything else a
/// user has (secrets, lock, the feed server's record) is named from that
/// database's path, as for a single user.
package struct UserAccounts: Sendable {
    package let folders: UserFolders

    package init(folders: UserFolders) { self.folders = folders }

    /// One user as `users list` shows them.
    package struct Listed: Sendable, Equatable {
        package var name: UserName
        package var folder: String
        package var database: String
    }

    /// Why a user could not be added or removed.
    package enum AccountError: Error, Sendable, Equatable, CustomStringConvertible {
        case folder(UserFolderError)
        case store(StoreError)
        /// `birthdays run` holds this user's database.
        /// `then` is what to do once it is stopped: remove or move the user.
        case running(UserName, pid: Int32, then: String = "remove")
        /// `birthdays serve` serves this user's feed at `address`.
        case serving(UserName, address: String, then: String = "remove")
        case lock(DaemonLockError)
        /// The daemon serving the user did not let them go in time (`users move`).
        case stillServed(UserName, seconds: Int)
        /// Another process kept writing the user's database while it was to be copied (`users move`).
        case writing(UserName, seconds: Int)
        /// SIGINT or SIGTERM came while `users move` waited, before it copied anything.
        case interrupted(UserName, signal: Int32)
        /// `users move` failed (`because`) and could not rename the set-aside folder back (`reason`):
        /// the user's data is in `aside`, and they are in no root.
        case stranded(UserName, aside: String, folder: String, reason: String, because: String)

        package var description: String {
            switch self {
            case .folder(let error): error.description
            case .store(let error): error.description
            case .running(let name, let pid, let then):
                "birthdays run is running for '\(name)'" + (pid > 0 ? " (pid \(pid))" : "") + "; stop it first, then \(then) the user"
            case .serving(let name, let address, let then):
                "birthdays serve is serving '\(name)' at \(address); stop it first, then \(then) the user"
            case .lock(let error): error.description
            case .stillServed(let name, let seconds):
                "the daemon serving '\(name)' did not let them go within \(seconds) s; \(Self.leftWhereTheyWere(name))"
            case .writing(let name, let seconds):
                "another process kept writing the database of '\(name)' for \(seconds) s; \(Self.leftWhereTheyWere(name)): try again"
            case .interrupted(let name, let signal):
                "stopped by signal \(signal) before anything was copied; \(Self.leftWhereTheyWere(name))"
            case .stranded(let name, let aside, let folder, let reason, let because):
                "\(because); and '\(name)' could not be put back (\(reason)): their data is in \(aside). "
                    + "Rename away what is at \(folder) now (a user added meanwhile?), then: mv \(aside) \(folder)"
            }
        }

        fileprivate static func leftWhereTheyWere(_ name: UserName) -> String { "'\(name)' is left where they were" }
    }

    /// Makes user `name`: the folder (0700) and an empty database in it
    /// (0600), migrated, under a temporary name, then renamed to the user's
    /// (``UserFolders/publish(_:as:)``); nothing is left behind when any step fails.
    ///
    /// - Returns: the user's database file.
    @discardableResult
    package func add(_ name: UserName) throws(AccountError) -> String {
        let made: String
        do {
            made = try folders.add(name)
        } catch {
            throw .folder(error)
        }
        do {
            _ = try AppDatabase.openFile(at: made + "/" + UserLayout.databaseFile, create: true)
        } catch {
            try? FileManager.default.removeItem(atPath: made)
            throw .store(error)
        }
        do {
            _ = try folders.publish(made, as: name)
        } catch {
            throw .folder(error)
        }
        return folders.database(name)
    }

    /// User `name`'s database, its folder checked (``UserFolders/checkedDatabase(_:)``).
    package func database(_ name: UserName) throws(UserFolderError) -> String { try folders.checkedDatabase(name) }

    /// Every user, by name.
    package func list() throws(UserFolderError) -> [Listed] {
        try folders.list().map { Listed(name: $0, folder: folders.folder($0), database: folders.database($0)) }
    }

    /// Removes user `name` (``UserFolders/remove(_:keepData:)``), unless
    /// `birthdays run` or `birthdays serve` runs for them. The daemon's lock
    /// (``DaemonLock``) is held for the whole removal, so no daemon starts
    /// on the folder while it goes; a `serve` records itself (``ServeRecord``)
    /// as it starts listening. The one daemon that may hold the lock is
    /// `run --all-users` on this root: the folder goes under it, and it
    /// drops the user as soon as it hears so (``UsersWatcher``). A link or a file where the folder should be
    /// is no user: it is removed, and no lock is taken through it.
    ///
    /// - Returns: where the kept folder went with `keepData`, or `nil`.
    package func remove(_ name: UserName, keepData: Bool) throws(AccountError) -> String? {
        let database = folders.database(name)
        let isFolder: Bool
        do {
            isFolder = try folders.isFolder(name)
        } catch {
            throw .folder(error)
        }
        var lock: DaemonLock?
        if isFolder {
            do {
                lock = try DaemonLock.acquire(database: database)
            } catch {
                // `run --all-users` holds every user's lock, and drops a user whose folder goes.
                if case .alreadyRunning(_, let pid) = error, let pid, pid > 0, DaemonLock.holder(database: folders.allUsersDaemon) == pid {
                    lock = nil
                } else if case .alreadyRunning(_, let pid) = error {
                    throw .running(name, pid: pid ?? 0)
                } else {
                    throw .lock(error)
                }
            }
        }
        defer { withExtendedLifetime(lock) {} }
        if isFolder, let address = ServeRecord.current(database: database) { throw .serving(name, address: address.description) }
        do {
            return try folders.remove(name, keepData: keepData)
        } catch {
            throw .folder(error)
        }
    }

    /// What ``move(_:to:waiting:)`` did.
    package struct Moved: Sendable, Equatable {
        /// The user's folder in the other root.
        package var folder: String
        /// Why the old folder could not be deleted (it is no user's any more: `.NAME.moving-…`), or `nil`.
        package var leftBehind: String?
    }

    /// The files of a user's folder that are not copied when it moves:
    /// the database (copied by SQLite's backup) with its journals, and what
    /// a running process holds (the daemon's lock, a feed server's record).
    static func notCopied(_ database: String) -> Set<String> {
        let file = (database as NSString).lastPathComponent
        return Set(["", "-wal", "-shm", "-journal", ".lock", ".serve"].map { file + $0 })
    }

    /// Hands user `name` to the users root of `target` (`users move NAME
    /// --to ROOT`): another machine's share, or the root of another
    /// `run --all-users`. In this order, so that no reminder is missed or
    /// sent twice, and no write lost:
    ///
    /// 1. The user's folder is renamed away in this root (``UserFolders/setAside(_:)``):
    ///    from then on no command and no `--all-users` process of this root takes it for the user.
    /// 2. Their daemon lock is taken: at once when no daemon runs for them; when `run --all-users`
    ///    of this root serves them, once it has dropped them (it hears the rename and finishes a
    ///    reminder being handed over first), waiting up to `waiting`. A daemon of their own
    ///    (`run --user`) or a feed server of theirs (`serve --user`) refuses the move, as it does `users remove`;
    ///    a feed server is asked again once the lock is held (one may have started before the rename).
    /// 3. The database's write lock is taken and held until the end (``WriteHold``): a process that opened
    ///    the database before the rename (`serve --all-users` saving an invitation's answer, a `--user`
    ///    command) is refused its write, never writes into the folder about to be deleted. A writer
    ///    holding it now is waited for, ``AppDatabase/busyTimeout`` at most.
    /// 4. The database is copied into a new folder of the target root with SQLite's online backup and
    ///    checked (``AppDatabase/backup(of:to:)``: the ledger of what was sent travels with it), and every
    ///    other file (the secrets) with its mode, read back and compared (``UserFolders/copyContents(of:to:skipping:)``),
    ///    all of it flushed to the disk.
    /// 5. That folder is renamed to the user's in the target root (the root flushed too): a `run --all-users`
    ///    or `serve --all-users` following it serves them from now on.
    /// 6. The old folder is deleted.
    ///
    /// When step 1 to 5 fails, the new folder is deleted and the old one renamed back: the user stays where
    /// they were; when it cannot be renamed back, ``AccountError/stranded(_:aside:folder:reason:because:)`` says where it is.
    /// `stopped` says whether SIGINT or SIGTERM came (``StopSignals``): while waiting, before anything is
    /// copied, the user is put back and the move ends (``AccountError/interrupted(_:signal:)``); from the copy on,
    /// the move is finished.
    package func move(
        _ name: UserName,
        to target: UserAccounts,
        waiting: Duration = .seconds(60),
        stopped: () -> Int32? = { nil }
    ) throws(AccountError) -> Moved {
        let database: String
        do throws(UserFolderError) {
            database = try folders.checkedDatabase(name)
            try target.folders.checkReceivingRoot()
            if folders.isSameRoot(as: target.folders) {
                throw .notUsersRoot(path: target.folders.root, reason: "it is the users root '\(name)' is in already")
            }
            var info = stat()
            if lstat(target.folders.folder(name), &info) == 0 { throw .existsIn(name, root: target.folders.root) }
        } catch {
            throw .folder(error)
        }
        if let address = ServeRecord.current(database: database) { throw .serving(name, address: address.description, then: "move") }
        var lock: DaemonLock?
        do {
            lock = try DaemonLock.acquire(database: database)
        } catch {
            guard case .alreadyRunning(_, let pid) = error else { throw .lock(error) }
            // `run --all-users` of this root holds every user's lock, and drops a user whose folder goes.
            guard let pid, pid > 0, DaemonLock.holder(database: folders.allUsersDaemon) == pid else {
                throw .running(name, pid: pid ?? 0, then: "move")
            }
        }
        if let signal = stopped() { throw .interrupted(name, signal: signal) }
        let aside: String
        do {
            aside = try folders.setAside(name)
        } catch {
            throw .folder(error)
        }
        let asideDatabase = aside + "/" + (database as NSString).lastPathComponent
        let start = ContinuousClock.now
        while lock == nil {
            if let signal = stopped() { throw putBack(aside, as: name, after: .interrupted(name, signal: signal)) }
            do {
                lock = try DaemonLock.acquire(database: asideDatabase)
            } catch {
                guard case .alreadyRunning = error, ContinuousClock.now - start < waiting else {
                    if case .alreadyRunning = error {
                        throw putBack(aside, as: name, after: .stillServed(name, seconds: Int(waiting.components.seconds)))
                    }
                    throw putBack(aside, as: name, after: .lock(error))
                }
                usleep(20_000)
            }
        }
        defer { withExtendedLifetime(lock) {} }
        // A `serve --user` that started between the first look and the rename serves the set-aside folder.
        if let address = ServeRecord.current(database: asideDatabase) {
            throw putBack(aside, as: name, after: .serving(name, address: address.description, then: "move"))
        }
        let hold: WriteHold
        do {
            hold = try WriteHold.take(asideDatabase, waiting: .seconds(AppDatabase.busyTimeout)) { stopped() != nil }
        } catch {
            if let signal = stopped() { throw putBack(aside, as: name, after: .interrupted(name, signal: signal)) }
            if case .busy = error { throw putBack(aside, as: name, after: .writing(name, seconds: Int(AppDatabase.busyTimeout))) }
            throw putBack(aside, as: name, after: .store(error))
        }
        // Released once the old folder is deleted or put back: until then no one writes it.
        defer { hold.release() }
        let received: String
        do {
            received = try target.folders.receive(name)
        } catch {
            throw putBack(aside, as: name, after: .folder(error))
        }
        do {
            let copy = received + "/" + UserLayout.databaseFile
            try AppDatabase.backup(of: asideDatabase, to: copy)
            try? UserFolders.sync(copy)
        } catch {
            try? target.folders.delete(received)
            throw putBack(aside, as: name, after: .store(error))
        }
        let folder: String
        do {
            try UserFolders.copyContents(of: aside, to: received, skipping: Self.notCopied(asideDatabase))
            folder = try target.folders.publish(received, as: name)
        } catch {
            try? target.folders.delete(received)
            throw putBack(aside, as: name, after: .folder(error))
        }
        do {
            // The user is in the other root now; the old folder goes only once that is on the disk.
            try UserFolders.sync(target.folders.root)
            try folders.delete(aside)
        } catch {
            return Moved(folder: folder, leftBehind: error.description)
        }
        return Moved(folder: folder, leftBehind: nil)
    }

    /// Renames the set-aside folder back to user `name`'s, and returns `error`, what made the move fail;
    /// when the rename fails (a user of that name added meanwhile), the error that says where their data is.
    private func putBack(_ aside: String, as name: UserName, after failure: AccountError) -> AccountError {
        do {
            try folders.putBack(aside, as: name)
            return failure
        } catch {
            let reason: String
            if case .cannotWrite(_, let why) = error { reason = why } else { reason = error.description }
            // What made it fail, without its "left where they were" (they are not).
            let said = failure.description
            let because = said.range(of: "; " + AccountError.leftWhereTheyWere(name)).map { String(said[..<$0.lowerBound]) } ?? said
            return .stranded(name, aside: aside, folder: folders.folder(name), reason: reason, because: because)
        }
    }
}
