import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The users root of a server that keeps many users, on disk: one folder
/// per user as ``UserLayout`` lays it out, 0700, owned by the account the
/// commands run as. It makes, finds, lists and removes folders, never
/// following a symbolic link; what goes into a folder (the database, the
/// secrets) is made by the store and ``ChannelSecrets`` from the folder's
/// database path, exactly as for a single user's database.
package struct UserFolders: Sendable {
    /// The users root (absolute when the caller made it so).
    package let root: String

    package init(root: String) { self.root = root }

    /// `$BIRTHDAYS_USERS_DIR` when set, else `users` in `dataFolder` (the
    /// folder of the default database: `$XDG_DATA_HOME/birthdays`).
    package static func root(environment: [String: String], dataFolder: String) -> String {
        if let explicit = environment[UserLayout.rootVariable], !explicit.isEmpty { return explicit }
        return dataFolder + "/" + UserLayout.rootName
    }

    /// What `birthdays run --all-users` locks (``DaemonLock``, which adds
    /// `.lock`): one such daemon per root, and the daemon `users remove`
    /// lets drop a user by themselves.
    package var allUsersDaemon: String { (root.hasSuffix("/") ? root : root + "/") + UserLayout.allUsersDaemon }

    /// User `name`'s folder.
    package func folder(_ name: UserName) -> String { UserLayout.folder(name, root: root) }

    /// User `name`'s database file (whether or not the user exists).
    package func database(_ name: UserName) -> String { UserLayout.database(name, root: root) }

    /// The user whose folder `path` (absolute) is in: ``UserLayout/user(containing:root:)``,
    /// or, when the root exists, a folder of `path` that is the root under
    /// another name (a link to it, or the folder a link of the root leads to).
    package func user(containing path: String) -> UserName? {
        if let name = UserLayout.user(containing: path, root: root) { return name }
        var rootInfo = stat()
        guard path.hasPrefix("/"), stat(root, &rootInfo) == 0 else { return nil }
        let words = UserLayout.normalized(path)
        guard words.count >= 3 else { return nil }
        // The folders above `path`, nearest first: one with the root's device and inode is the root.
        for index in stride(from: words.count - 2, through: 1, by: -1) {
            var info = stat()
            let folder = "/" + words[1..<index].joined(separator: "/")
            if stat(folder, &info) == 0, info.st_dev == rootInfo.st_dev, info.st_ino == rootInfo.st_ino {
                return try? UserName(words[index])
            }
        }
        return nil
    }

    /// Makes user `name`'s folder (0700; the root too when missing, 0700)
    /// under a name no user has and no other `users add` takes
    /// (`.NAME.adding-` and six random characters, `mkdtemp`), for the
    /// caller to fill and then ``publish(_:as:)``: a user appears in the
    /// root whole, so `run --all-users` never finds their folder without its
    /// database. One left behind by an add that was killed is no user and
    /// is in no later add's way.
    ///
    /// - Returns: the folder, under its temporary name.
    /// - Throws: ``UserFolderError/exists(_:)`` when the name is taken (by a
    ///   folder, a file or a link), ``UserFolderError/cannotWrite(path:reason:)`` otherwise.
    package func add(_ name: UserName) throws(UserFolderError) -> String {
        try makeRoot()
        var info = stat()
        if lstat(folder(name), &info) == 0 { throw .exists(name) }
        return try temporaryFolder("." + name.rawValue + ".adding-")
    }

    /// A new empty folder of the root (0700) named `prefix` and six random characters.
    private func temporaryFolder(_ prefix: String) throws(UserFolderError) -> String {
        let template = (root.hasSuffix("/") ? root : root + "/") + prefix + "XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkdtemp($0) != nil } ?? false }
        guard made else { throw .cannotWrite(path: template, reason: String(cString: strerror(errno))) }
        let path = String(decoding: bytes.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkdtemp's mode passes through the umask, which can only take bits away; say it exactly.
        _ = chmod(path, mode_t(UserLayout.folderMode))
        return path
    }

    /// Renames the folder ``add(_:)`` made to user `name`'s: the user
    /// exists from now on. A name taken meanwhile (another `users add`,
    /// whose folder is never empty) fails the rename, and the folder is removed.
    ///
    /// - Returns: user `name`'s folder.
    package func publish(_ made: String, as name: UserName) throws(UserFolderError) -> String {
        let path = folder(name)
        guard rename(made, path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: made)
            if code == ENOTEMPTY || code == EEXIST || code == ENOTDIR || code == EISDIR { throw .exists(name) }
            throw .cannotWrite(path: path, reason: String(cString: strerror(code)))
        }
        return path
    }

    /// User `name`'s database, once the folder is checked: a real folder
    /// (not a link to one), owned by this account, holding no link, nor
    /// its secrets folder (``ChannelSecrets/folder``).
    ///
    /// - Throws: ``UserFolderError/unknown(_:)`` when there is no such user,
    ///   ``UserFolderError/link(path:)`` or another case when the folder is not safe to use.
    package func checkedDatabase(_ name: UserName) throws(UserFolderError) -> String {
        guard try checkRoot() else { throw .unknown(name) }
        let path = folder(name)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .unknown(name) }
            throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        try Self.checkFolder(path, info)
        try Self.refuseLinks(in: path)
        // The secrets folder is read at every delivery: a link in it would hand over another's URL.
        let secrets = ChannelSecrets(databasePath: database(name)).folder
        if lstat(secrets, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { try Self.refuseLinks(in: secrets) }
        return database(name)
    }

    /// Throws ``UserFolderError/link(path:)`` for the first symbolic link in `folder` (not below it).
    private static func refuseLinks(in folder: String) throws(UserFolderError) {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            // Foundation's error says why; errno after a Foundation call may be anyone's.
            throw .cannotRead(path: folder, reason: error.localizedDescription)
        }
        for entry in entries.sorted() {
            var info = stat()
            let path = folder + "/" + entry
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { throw .link(path: path) }
        }
    }

    /// The users: the folders of the root whose names are users' names and
    /// that are folders (a link or a file of such a name is no user, nor is
    /// a folder whose name has a dot: `.NAME.adding-…`, `NAME.removed`), sorted.
    /// A missing root has none.
    package func list() throws(UserFolderError) -> [UserName] { try listed().map(\.name) }

    /// The users as ``list()`` finds them, each with their folder's and
    /// database's device and inode: what `run --all-users` tells apart a
    /// user removed and added again under the same name by (``UserRoster``).
    package func listed() throws(UserFolderError) -> [UserRoster.Listed] {
        guard try checkRoot() else { return [] }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            // Foundation's error says why; errno after a Foundation call may be anyone's.
            throw .cannotRead(path: root, reason: error.localizedDescription)
        }
        return entries.compactMap { entry -> UserRoster.Listed? in
            guard let name = try? UserName(entry) else { return nil }
            var info = stat()
            guard lstat(folder(name), &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            let folder = UserRoster.FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            var file = stat()
            let database =
                lstat(database(name), &file) == 0 ? UserRoster.FileIdentity(device: UInt64(file.st_dev), inode: UInt64(file.st_ino)) : nil
            return UserRoster.Listed(name: name, identity: .init(folder: folder, database: database))
        }.sorted { $0.name < $1.name }
    }

    /// Whether user `name`'s folder is a real folder (not a link, not a
    /// file), in a root that is safe to use (``checkRoot()``).
    ///
    /// - Throws: ``UserFolderError/unknown(_:)`` when there is nothing of that name.
    package func isFolder(_ name: UserName) throws(UserFolderError) -> Bool {
        guard try checkRoot() else { throw .unknown(name) }
        var info = stat()
        guard lstat(folder(name), &info) == 0 else { throw .unknown(name) }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// Removes user `name`: its folder and everything in it, or with
    /// `keepData` renames the folder to the first free ``UserLayout/keptName(_:attempt:)``
    /// in the root, where no command takes it for a user. A link where the
    /// folder should be is removed itself, never followed. A folder is
    /// renamed away (`.NAME.removing-` and six random characters, which is no user's name) before it
    /// is deleted, so the user is gone at once, and a deletion that fails
    /// half-way leaves no half a user.
    ///
    /// - Returns: where the kept folder went, or `nil`.
    package func remove(_ name: UserName, keepData: Bool) throws(UserFolderError) -> String? {
        guard try checkRoot() else { throw .unknown(name) }
        let path = folder(name)
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .unknown(name) }
        if keepData {
            for attempt in 1...1000 {
                let kept = (root.hasSuffix("/") ? root : root + "/") + UserLayout.keptName(name, attempt: attempt)
                if info.st_mode & S_IFMT == S_IFDIR {
                    // The name is taken by making it (mkdir fails on any name that exists), then the
                    // folder replaces that empty folder: rename never lands on another's kept data.
                    guard mkdir(kept, mode_t(UserLayout.folderMode)) == 0 else {
                        if errno == EEXIST { continue }
                        throw .cannotWrite(path: kept, reason: String(cString: strerror(errno)))
                    }
                } else {
                    var existing = stat()
                    guard lstat(kept, &existing) != 0 else { continue }
                }
                guard rename(path, kept) == 0 else {
                    let reason = String(cString: strerror(errno))
                    if info.st_mode & S_IFMT == S_IFDIR { _ = rmdir(kept) }
                    throw .cannotWrite(path: path, reason: reason)
                }
                return kept
            }
            throw .cannotWrite(path: path, reason: "every name for the kept folder is taken")
        }
        if info.st_mode & S_IFMT != S_IFDIR {
            guard unlink(path) == 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            return nil
        }
        // The name is taken by making it, then the folder replaces that empty folder (as for a kept one).
        let doomed = try temporaryFolder("." + name.rawValue + ".removing-")
        guard rename(path, doomed) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rmdir(doomed)
            throw .cannotWrite(path: path, reason: reason)
        }
        do {
            // Foundation walks the folder physically: a link inside is removed, not followed.
            try FileManager.default.removeItem(atPath: doomed)
        } catch {
            throw .cannotWrite(path: doomed, reason: error.localizedDescription)
        }
        return nil
    }

    // MARK: - Moving a user to another users root

    /// Checks that this root can take users from another (`users move
    /// NAME --to ROOT`): a folder that exists, safe to use as ``checkRoot()``
    /// says, and no user's folder nor a database's (no `birthdays.sqlite` in it).
    ///
    /// - Throws: ``UserFolderError/notUsersRoot(path:reason:)``, or ``UserFolderError/unsafeRoot(path:reason:)``.
    package func checkReceivingRoot() throws(UserFolderError) {
        var info = stat()
        guard stat(root, &info) == 0 else {
            throw .notUsersRoot(
                path: root,
                reason: errno == ENOENT ? "it does not exist (make it with: mkdir -m 700 \(root))" : String(cString: strerror(errno))
            )
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notUsersRoot(path: root, reason: "it is not a folder") }
        guard try checkRoot() else { throw .notUsersRoot(path: root, reason: "it does not exist") }
        var database = stat()
        if lstat((root.hasSuffix("/") ? root : root + "/") + UserLayout.databaseFile, &database) == 0 {
            throw .notUsersRoot(path: root, reason: "it holds a database (\(UserLayout.databaseFile)), so it is a user's folder or a database's")
        }
    }

    /// Whether `other` is this root under another name (the same folder's device and inode).
    package func isSameRoot(as other: UserFolders) -> Bool {
        var mine = stat()
        var theirs = stat()
        return stat(root, &mine) == 0 && stat(other.root, &theirs) == 0 && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// Renames user `name`'s folder away (`.NAME.moving-` and six random
    /// characters, no user's name), so no command and no `--all-users`
    /// process of this root takes it for the user any more, while it is copied.
    ///
    /// - Returns: where the folder is now.
    package func setAside(_ name: UserName) throws(UserFolderError) -> String {
        let aside = try temporaryFolder("." + name.rawValue + ".moving-")
        guard rename(folder(name), aside) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rmdir(aside)
            throw .cannotWrite(path: folder(name), reason: reason)
        }
        return aside
    }

    /// Renames a folder ``setAside(_:)`` made back to user `name`'s.
    package func putBack(_ aside: String, as name: UserName) throws(UserFolderError) {
        guard rename(aside, folder(name)) == 0 else { throw .cannotWrite(path: aside, reason: String(cString: strerror(errno))) }
    }

    /// A new folder (0700) in this root for user `name` coming from another
    /// root (`.NAME.moving-` and six random characters), for the caller to
    /// fill and then ``publish(_:as:)``.
    ///
    /// - Throws: ``UserFolderError/existsIn(_:root:)`` when this root has a user (or anything) of that name.
    package func receive(_ name: UserName) throws(UserFolderError) -> String {
        var info = stat()
        if lstat(folder(name), &info) == 0 { throw .existsIn(name, root: root) }
        return try temporaryFolder("." + name.rawValue + ".moving-")
    }

    /// Copies what `source` (a user's folder) holds into `destination` (an
    /// empty folder), every file and folder with its mode, except the names
    /// in `skipping`; then reads every copied file back and compares it
    /// with its original, bytes and mode. A link is never followed: one is refused.
    ///
    /// - Throws: ``UserFolderError/link(path:)`` for a link, ``UserFolderError/cannotWrite(path:reason:)``
    ///   when a copy fails or differs.
    package static func copyContents(of source: String, to destination: String, skipping: Set<String> = []) throws(UserFolderError) {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: source)
        } catch {
            throw .cannotRead(path: source, reason: error.localizedDescription)
        }
        for entry in entries.sorted() where !skipping.contains(entry) {
            let from = source + "/" + entry
            let to = destination + "/" + entry
            var info = stat()
            guard lstat(from, &info) == 0 else { throw .cannotRead(path: from, reason: String(cString: strerror(errno))) }
            let mode = mode_t(info.st_mode & 0o7777)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                guard mkdir(to, 0o700) == 0 else { throw .cannotWrite(path: to, reason: String(cString: strerror(errno))) }
                try copyContents(of: from, to: to)
                _ = chmod(to, mode)
            case S_IFREG:
                let data: Data
                do {
                    data = try Data(contentsOf: URL(fileURLWithPath: from))
                } catch {
                    throw .cannotRead(path: from, reason: error.localizedDescription)
                }
                let fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw .cannotWrite(path: to, reason: String(cString: strerror(errno))) }
                let written = data.withUnsafeBytes { bytes in bytes.baseAddress.map { write(fd, $0, bytes.count) } ?? 0 }
                let synced = fsync(fd) == 0
                _ = fchmod(fd, mode)
                close(fd)
                guard written == data.count, synced else { throw .cannotWrite(path: to, reason: "the copy is incomplete") }
                var copied = stat()
                guard (try? Data(contentsOf: URL(fileURLWithPath: to))) == data, lstat(to, &copied) == 0, copied.st_mode & 0o7777 == mode else {
                    throw .cannotWrite(path: to, reason: "the copy differs from the original")
                }
            case S_IFLNK: throw .link(path: from)
            default: throw .cannotRead(path: from, reason: "it is neither a file nor a folder, so it is not copied")
            }
        }
        // The names in the folder reach the disk too, not only the files' bytes.
        try sync(destination)
    }

    /// Flushes a file or a folder (its names) to the disk (`fsync`).
    ///
    /// - Throws: ``UserFolderError/cannotWrite(path:reason:)`` when it cannot be opened or flushed.
    package static func sync(_ path: String) throws(UserFolderError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
    }

    /// The folders of this root a `users move` set aside or was filling (`.NAME.moving-…`) and did not
    /// finish with: one interrupted (killed) leaves them; each holds a user's data. By name, sorted.
    package func unfinishedMoves() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return entries.filter { $0.hasPrefix(".") && $0.contains(".moving-") }.sorted()
    }

    /// Deletes a folder of this root and everything in it, links removed and never followed.
    package func delete(_ path: String) throws(UserFolderError) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    /// Whether the root exists, once it is checked: a folder (or a link an
    /// admin made to one), owned by this account and writable by it alone,
    /// since whoever may write it may plant or swap a user's folder.
    ///
    /// - Throws: ``UserFolderError/unsafeRoot(path:reason:)`` or another case otherwise.
    private func checkRoot() throws(UserFolderError) -> Bool {
        var info = stat()
        guard stat(root, &info) == 0 else {
            let code = errno
            if code == ENOENT { return false }
            throw .cannotRead(path: root, reason: String(cString: strerror(code)))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notAFolder(path: root) }
        guard info.st_uid == geteuid() else { throw .unsafeRoot(path: root, reason: "it belongs to another account") }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            throw .unsafeRoot(path: root, reason: "other accounts may write it (mode \(String(mode, radix: 8)); chmod go-w \(root))")
        }
        return true
    }

    /// Makes the root when it is missing: its folders above as they come
    /// (0700 when made), the root itself 0700 from the start (mkdir, never
    /// wider for a moment); then checks it (``checkRoot()``). The root may
    /// be a link an admin made (to another disk).
    package func makeRoot() throws(UserFolderError) {
        if try checkRoot() { return }
        let parent = (root as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: parent,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: Int(UserLayout.folderMode)]
                )
            } catch {
                throw .cannotWrite(path: root, reason: error.localizedDescription)
            }
        }
        if mkdir(root, mode_t(UserLayout.folderMode)) != 0 {
            let code = errno
            guard code == EEXIST else { throw .cannotWrite(path: root, reason: String(cString: strerror(code))) }
        } else {
            // mkdir's mode passes through the umask, which can only take bits away; say it exactly.
            _ = chmod(root, mode_t(UserLayout.folderMode))
        }
        _ = try checkRoot()
    }

    private static func checkFolder(_ path: String, _ info: stat) throws(UserFolderError) {
        switch info.st_mode & S_IFMT {
        case S_IFLNK: throw .link(path: path)
        case S_IFDIR: break
        default: throw .notAFolder(path: path)
        }
        guard info.st_uid == geteuid() else { throw .notOwned(path: path) }
        guard info.st_mode & 0o022 == 0 else { throw .writableByOthers(path: path) }
    }
}

/// Why a user's folder cannot be made, used or removed: one sentence with
/// the folder, never anything inside it.
package enum UserFolderError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(UserName)
    case exists(UserName)
    /// Another users root (`users move --to`) has a user, or anything, of that name.
    case existsIn(UserName, root: String)
    /// `users move --to` names no users root.
    case notUsersRoot(path: String, reason: String)
    /// A symbolic link where the user's folder is, or inside it.
    case link(path: String)
    case notAFolder(path: String)
    case notOwned(path: String)
    /// A user's folder that other accounts may write.
    case writableByOthers(path: String)
    /// The users root belongs to another account or others may write it.
    case unsafeRoot(path: String, reason: String)
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)

    package var description: String {
        switch self {
        case .unknown(let name): "no user is called '\(name)' (add one with: birthdays users add \(name))"
        case .exists(let name): "a user called '\(name)' already exists (birthdays users list shows them)"
        case .existsIn(let name, let root): "\(root) already has a user called '\(name)', so '\(name)' is not moved there"
        case .notUsersRoot(let path, let reason): "\(path) is not a users folder: \(reason)"
        case .link(let path): "\(path) is a symbolic link; a user's folder is never one and holds none, so it is not used (remove the link)"
        case .notAFolder(let path): "\(path) is not a folder"
        case .notOwned(let path): "\(path) belongs to another account; a user's folder must belong to the account birthdays runs as"
        case .writableByOthers(let path): "other accounts may write \(path); a user's folder is written by this account alone (chmod 700 \(path))"
        case .unsafeRoot(let path, let reason):
            "the users root \(path) is not used: \(reason); it must belong to the account birthdays runs as and be written by it alone"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
