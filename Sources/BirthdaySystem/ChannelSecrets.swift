import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one owner of the added channels' secrets: an Apprise URL or an ntfy
/// URL (whose topic is its password) in `channels/<name>.<kind>` beside the
/// database, the folder 0700 and each file 0600
/// (``RemoteChannel/secretFile(name:kind:databasePath:)``). Nothing secret
/// ever reaches the database, an argument list or a log.
///
/// Its life cycle: a new secret is written beside its place
/// (``stage(_:name:kind:)``), checked there, and moved into place
/// (``Staged/commit()``) only once its channel is stored, so a failed or
/// raced `channels add` never replaces another channel's file or leaves one
/// behind; the channels read it at each delivery (``ntfyURL(name:)``,
/// Apprise with `-c`); `channels remove` deletes it (``remove(name:)``); a
/// trial at pretend time gets a copy (``copy(to:)``).
package struct ChannelSecrets: Sendable {
    /// The database the secrets belong to.
    package let databasePath: String

    package init(databasePath: String) { self.databasePath = databasePath }

    /// The folder of the secrets: `channels` beside the database.
    package var folder: String { RemoteChannel.secretFolder(databasePath: databasePath) }

    /// Where channel `name` of `kind` keeps its secret.
    package func file(name: String, kind: RemoteChannel.Kind) -> String {
        RemoteChannel.secretFile(name: name, kind: kind, databasePath: databasePath)
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

    /// Writes `secret` to a new file beside channel `name`'s place (0600, in
    /// a 0700 folder made when missing), for ``Staged/commit()``.
    package func stage(_ secret: String, name: String, kind: RemoteChannel.Kind) throws(ChannelSecretError) -> Staged {
        let path = file(name: name, kind: kind)
        try makeFolder()
        let temporary = path + ".new-\(getpid())"
        try write(Array((secret + "\n").utf8), to: temporary)
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

    /// Deletes every secret channel `name` has (of any kind).
    package func remove(name: String) {
        for kind in RemoteChannel.Kind.allCases where RemoteChannel.hasSecretFile(kind) {
            unlink(file(name: name, kind: kind))
        }
    }

    /// Copies every secret (when there are any) into `other`'s folder, made
    /// new (0700), each file 0600: what a trial's throwaway copy needs.
    package func copy(to other: ChannelSecrets) throws(ChannelSecretError) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        guard mkdir(other.folder, 0o700) == 0 else { throw .cannotWrite(path: other.folder, reason: String(cString: strerror(errno))) }
        for name in names.sorted() {
            let from = folder + "/" + name
            var info = stat()
            guard lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            guard let bytes = FileManager.default.contents(atPath: from) else {
                throw .cannotRead(path: from, reason: String(cString: strerror(errno)))
            }
            try write(Array(bytes), to: other.folder + "/" + name)
        }
    }

    private func makeFolder() throws(ChannelSecretError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotWrite(path: folder, reason: error.localizedDescription)
        }
    }

    /// Writes `bytes` to a new file at `path`, mode 0600 (never an existing one); ``RoomSecrets`` writes with it too.
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
