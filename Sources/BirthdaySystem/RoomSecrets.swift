import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one owner of the team rooms' URLs (`birthdays announce`): each in
/// `announce/<name>.url` beside the database, the folder 0700 and each file
/// 0600, written and moved into place as ``ChannelSecrets`` does (staged,
/// checked, committed once the room is stored). A URL carries the room's
/// token, so it never reaches the database, an argument list or a log:
/// Apprise reads the file with `-c`, and a webhook's URL reaches the network
/// helper on its standard input.
package struct RoomSecrets: Sendable {
    /// The database the rooms belong to.
    package let databasePath: String

    package init(databasePath: String) { self.databasePath = databasePath }

    /// The folder of the URLs: `announce` beside the database.
    package var folder: String {
        URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("announce").path
    }

    /// Where room `name` keeps its URL.
    package func file(name: String) -> String { folder + "/" + name + ".url" }

    /// Writes `url` to a new file beside room `name`'s place (0600, in a 0700
    /// folder made when missing), for ``ChannelSecrets/Staged/commit()``.
    package func stage(_ url: String, name: String) throws(ChannelSecretError) -> ChannelSecrets.Staged {
        let path = file(name: name)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotWrite(path: folder, reason: error.localizedDescription)
        }
        let temporary = path + ".new-\(getpid())"
        try ChannelSecrets(databasePath: databasePath).write(Array((url + "\n").utf8), to: temporary)
        return ChannelSecrets.Staged(temporary: temporary, path: path)
    }

    /// Room `name`'s URL, from its file.
    ///
    /// - Throws: ``RoomSecretError`` naming the file and how to write it again.
    package func url(name: String) throws(RoomSecretError) -> String { try Self.url(file: file(name: name)) }

    /// Deletes room `name`'s URL.
    package func remove(name: String) { unlink(file(name: name)) }

    /// Copies every URL (when there are any) into `other`'s folder, made new
    /// (0700), each file 0600: what a trial's throwaway copy needs.
    package func copy(to other: RoomSecrets) throws(ChannelSecretError) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        guard mkdir(other.folder, 0o700) == 0 else { throw .cannotWrite(path: other.folder, reason: String(cString: strerror(errno))) }
        let writer = ChannelSecrets(databasePath: other.databasePath)
        for name in names.sorted() where name.hasSuffix(".url") {
            let from = folder + "/" + name
            var info = stat()
            guard lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            guard let bytes = FileManager.default.contents(atPath: from) else {
                throw .cannotRead(path: from, reason: String(cString: strerror(errno)))
            }
            try writer.write(Array(bytes), to: other.folder + "/" + name)
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
