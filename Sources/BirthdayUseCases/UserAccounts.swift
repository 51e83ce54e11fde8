import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

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
        case running(UserName, pid: Int32)
        /// `birthdays serve` serves this user's feed at `address`.
        case serving(UserName, address: String)
        case lock(DaemonLockError)

        package var description: String {
            switch self {
            case .folder(let error): error.description
            case .store(let error): error.description
            case .running(let name, let pid):
                "birthdays run is running for '\(name)'" + (pid > 0 ? " (pid \(pid))" : "") + "; stop it first, then remove the user"
            case .serving(let name, let address):
                "birthdays serve is serving '\(name)' at \(address); stop it first, then remove the user"
            case .lock(let error): error.description
            }
        }
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
}
