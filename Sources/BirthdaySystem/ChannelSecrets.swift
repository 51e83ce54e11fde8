import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one owner of a database's secret files: the added channels' (an
/// Apprise URL, or an ntfy URL whose topic is its password) and the team
/// rooms' URLs (`birthdays announce`), each in the database's own folder
/// `<database file>.secrets` beside it (`birthdays.sqlite.secrets/`), the
/// folder 0700 and each file 0600: `NAME.apprise`, `NAME.ntfy`, `NAME.url`
/// (a room's), `ID.greeting` (a greeting's Apprise URL, by the greeting's
/// id). A channel and a room never share a name, so they never share
/// a file; two databases in one folder never share one either. Nothing
/// secret ever reaches the database, an argument list or a log.
///
/// Its life cycle: a new secret is written beside its place
/// (``stage(_:for:)``), checked there, and moved into place
/// (``Staged/commit()``) only once its channel or room is stored, so a
/// failed or raced `add` never replaces another's file or leaves one
/// behind; the channels and rooms read it at each delivery through
/// ``place(_:)``; `remove` deletes it (``remove(_:)``); a trial at pretend
/// time gets a copy (``copy(to:)``).
///
/// ## The old layout
/// Before, every database in a folder shared `channels/NAME.KIND` and
/// `announce/NAME.url` beside them, so a second database's reminders could
/// go to the first's ntfy topic. ``place(_:)`` moves such a file into the
/// database's own folder the first time that database uses the name (its
/// row names it), and removes the old folder once it is empty: a file only
/// another database's rows name stays where it is for that database. A
/// name both databases used was one file for both; the first to use it
/// takes it, and the other's channel says its file is missing and how to
/// write it again.
package struct ChannelSecrets: Sendable {
    /// One secret file: an added channel's or a team room's.
    package enum Secret: Sendable, Hashable {
        /// An Apprise or ntfy channel's URL (``RemoteChannel/hasSecretFile(_:)``).
        case channel(name: String, kind: RemoteChannel.Kind)
        /// A team room's URL.
        case room(name: String)
        /// A greeting's Apprise URL (`birthdays greet add … --url`), by the greeting's id.
        case greeting(id: Int64)

        /// The file's name in the folder: `NAME.apprise`, `NAME.ntfy`, `NAME.url`.
        var fileName: String {
            switch self {
            case .channel(let name, let kind): name + "." + kind.rawValue
            case .room(let name): name + ".url"
            case .greeting(let id): String(id) + ".greeting"
            }
        }

        /// The old layout's folder beside the database: `channels` or `announce`.
        var legacyFolderName: String {
            switch self {
            case .channel: "channels"
            case .room: "announce"
            // Greetings came after the old layout: nothing of theirs is ever there.
            case .greeting: "greetings"
            }
        }
    }

    /// The database the secrets belong to.
    package let databasePath: String

    package init(databasePath: String) { self.databasePath = databasePath }

    /// The folder of the secrets: `<database file>.secrets` beside the database.
    package var folder: String { databasePath + ".secrets" }

    /// Where `secret` is kept (whether or not it is there).
    package func file(_ secret: Secret) -> String { folder + "/" + secret.fileName }

    /// Where `secret` was kept before each database had its own folder.
    package func legacyFile(_ secret: Secret) -> String {
        URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent(secret.legacyFolderName).path + "/"
            + secret.fileName
    }

    /// Where channel `name` of `kind` keeps its secret, moved there from the old layout when only that has it (``place(_:)``).
    package func file(name: String, kind: RemoteChannel.Kind) -> String { place(.channel(name: name, kind: kind)) }

    /// Where room `name` keeps its URL, moved there from the old layout when only that has it (``place(_:)``).
    package func roomFile(name: String) -> String { place(.room(name: name)) }

    /// ``file(_:)``, after moving `secret`'s file of the old layout into it
    /// when that alone exists (a copy, 0600 in the 0700 folder, renamed into
    /// place, then the old file removed, and its folder once empty). A move
    /// that fails leaves the old file where it was, and says nothing: the
    /// delivery that reads the file says it is missing, naming it.
    @discardableResult
    package func place(_ secret: Secret) -> String {
        let path = file(secret)
        var info = stat()
        guard lstat(path, &info) != 0 else { return path }
        let old = legacyFile(secret)
        guard lstat(old, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let bytes = FileManager.default.contents(atPath: old) else { return path }
        let temporary = path + ".new-\(getpid())"
        do throws(ChannelSecretError) {
            try makeFolder()
            try write(Array(bytes), to: temporary)
        } catch {
            unlink(temporary)
            return path
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return path
        }
        unlink(old)
        rmdir(URL(fileURLWithPath: old).deletingLastPathComponent().path)
        return path
    }

    /// A secret written beside its place, not yet in it: removed when
    /// dropped without ``commit()``.
    package final class Staged {
        /// Where it is written now (a name of its own beside ``path``).
        package let temporary: String
        /// Where it goes.
        package let path: String
        private var committed = false

        init(temporary: String, path: String) {
            self.temporary = temporary
            self.path = path
        }

        /// Moves it into place (an atomic rename, replacing nothing but a stale file of that name).
        package func commit() throws(ChannelSecretError) {
            guard rename(temporary, path) == 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            committed = true
        }

        deinit {
            if !committed { unlink(temporary) }
        }
    }

    /// Writes `value` to a new file beside `secret`'s place (0600, in the
    /// 0700 folder made when missing), for ``Staged/commit()``.
    package func stage(_ value: String, for secret: Secret) throws(ChannelSecretError) -> Staged {
        let path = file(secret)
        try makeFolder()
        let temporary = path + ".new-\(getpid())"
        try write(Array((value + "\n").utf8), to: temporary)
        return Staged(temporary: temporary, path: path)
    }

    /// The server and topic of ntfy channel `name`, from its file.
    ///
    /// - Throws: ``ChannelSecretError/missing(path:kind:)`` naming the file and how to write it again.
    package func ntfyURL(name: String) throws(ChannelSecretError) -> PushURL {
        try Self.ntfyURL(file: file(name: name, kind: .ntfy))
    }

    /// The server and topic an ntfy channel keeps in `file`.
    package static func ntfyURL(file: String) throws(ChannelSecretError) -> PushURL {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), let url = try? PushURL(text.trimmingWhitespace(), kind: .ntfy) else {
            throw .missing(path: file, kind: .ntfy)
        }
        return url
    }

    /// Room `name`'s URL, from its file.
    ///
    /// - Throws: ``RoomSecretError`` naming the file and how to write it again.
    package func roomURL(name: String) throws(RoomSecretError) -> String { try Self.roomURL(file: roomFile(name: name)) }

    /// The URL a room keeps in `file`.
    package static func roomURL(file: String) throws(RoomSecretError) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), case let url = text.trimmingWhitespace(), !url.isEmpty else {
            throw RoomSecretError(path: file)
        }
        return url
    }

    /// Deletes `secret`'s file: this database's own, else (never moved in)
    /// the old layout's. When this database has its own, a file of that name
    /// in the old layout is another database's, and stays.
    package func remove(_ secret: Secret) {
        guard unlink(file(secret)) != 0, errno == ENOENT else { return }
        unlink(legacyFile(secret))
    }

    /// Deletes every secret channel `name` has (of any kind).
    package func remove(name: String) {
        for kind in RemoteChannel.Kind.allCases where RemoteChannel.hasSecretFile(kind) {
            remove(.channel(name: name, kind: kind))
        }
    }

    /// Copies every secret (when there are any) into `other`'s folder, made
    /// new (0700), each file 0600: what a trial's throwaway copy needs. The
    /// old layout's files that this database's folder lacks are copied too,
    /// as the copy's own.
    package func copy(to other: ChannelSecrets) throws(ChannelSecretError) {
        let beside = URL(fileURLWithPath: databasePath).deletingLastPathComponent().path
        var sources: [(folder: String, names: [String])] = []
        for candidate in [folder, beside + "/channels", beside + "/announce"] {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: candidate) { sources.append((candidate, names.sorted())) }
        }
        guard !sources.isEmpty else { return }
        guard mkdir(other.folder, 0o700) == 0 else { throw .cannotWrite(path: other.folder, reason: String(cString: strerror(errno))) }
        var copied = Set<String>()
        for (from, names) in sources {
            for name in names where !copied.contains(name) && Self.isSecretFile(name) {
                let path = from + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                guard let bytes = FileManager.default.contents(atPath: path) else {
                    throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
                }
                try write(Array(bytes), to: other.folder + "/" + name)
                copied.insert(name)
            }
        }
    }

    /// Whether `name` is a secret's file name (`NAME.apprise`, `NAME.ntfy`, `NAME.url`, `ID.greeting`).
    static func isSecretFile(_ name: String) -> Bool {
        [".apprise", ".ntfy", ".url", ".greeting"].contains { name.hasSuffix($0) }
    }

    private func makeFolder() throws(ChannelSecretError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotWrite(path: folder, reason: error.localizedDescription)
        }
    }

    /// Writes `bytes` to a new file at `path`, mode 0600 (never an existing one).
    func write(_ bytes: [UInt8], to path: String) throws(ChannelSecretError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let reason = String(cString: strerror(errno))
        close(fd)
        guard written == bytes.count else {
            unlink(path)
            throw .cannotWrite(path: path, reason: reason)
        }
    }
}

/// Why a channel's secret could not be written or read: one sentence with
/// the file, never the secret.
package enum ChannelSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)
    case cannotRead(path: String, reason: String)
    /// The file is missing or holds no URL of its kind.
    case missing(path: String, kind: RemoteChannel.Kind)

    package var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .missing(let path, let kind): RemoteChannel.missingSecret(file: path, kind: kind)
        }
    }
}

/// A room's URL file is missing or empty: the file, and how to write it again; never the URL.
package struct RoomSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var description: String {
        "\(path) is missing or holds no URL; write the room's URL on one line into it (then chmod 600 \(path)), and the room is announced to again"
    }
}
