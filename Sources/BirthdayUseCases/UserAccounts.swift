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
    package enum AccountError: Error, Sendable, CustomStringConvertible {
        case folder(UserFolderError)
        case store(StoreError)
        /// `birthdays run` holds this user's database.
        case running(UserName, pid: Int32)

        package var description: String {
            switch self {
            case .folder(let error): error.description
            case .store(let error): error.description
            case .running(let name, let pid):
                "birthdays run is running for '\(name)'" + (pid > 0 ? " (pid \(pid))" : "") + "; stop it first, then remove the user"
            }
        }
    }

    /// Makes user `name`: the folder (0700) and an empty database in it
    /// (0600), migrated; nothing is left behind when either fails.
    ///
    /// - Returns: the user's database file.
    @discardableResult
    package func add(_ name: UserName) throws(AccountError) -> String {
        let folder: String
        do {
            folder = try folders.add(name)
        } catch {
            throw .folder(error)
        }
        let path = folders.database(name)
        do {
            _ = try AppDatabase.openFile(at: path, create: true)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw .store(error)
        }
        return path
    }

    /// User `name`'s database, its folder checked (``UserFolders/checkedDatabase(_:)``).
    package func database(_ name: UserName) throws(UserFolderError) -> String { try folders.checkedDatabase(name) }

    /// Every user, by name.
    package func list() throws(UserFolderError) -> [Listed] {
        try folders.list().map { Listed(name: $0, folder: folders.folder($0), database: folders.database($0)) }
    }

    /// Removes user `name` (``UserFolders/remove(_:keepData:)``), unless
    /// `birthdays run` is running for them.
    ///
    /// - Returns: where the kept folder went with `keepData`, or `nil`.
    package func remove(_ name: UserName, keepData: Bool) throws(AccountError) -> String? {
        if let pid = DaemonLock.holder(database: folders.database(name)) { throw .running(name, pid: pid) }
        do {
            return try folders.remove(name, keepData: keepData)
        } catch {
            throw .folder(error)
        }
    }
}
