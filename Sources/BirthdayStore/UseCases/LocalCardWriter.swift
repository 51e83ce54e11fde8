import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a birthday into a card of a vdir folder (``VCardBirthdayEdit``),
/// the local half of the write-back (the use case `CardWriteBack`).
///
/// - The file is replaced atomically: the new bytes go to a hidden
///   temporary file in the same folder (which a sync never reads), with the
///   card's own permissions, synced, then renamed over the card.
/// - Only over the card as it was read: right before the rename the file is
///   read again, and when its bytes changed (another program wrote it), the
///   temporary file is removed and the card read and edited once more; a
///   card that changes again is ``WriteBackError/changedMeanwhile(location:)``.
/// - A symbolic link or anything but a regular file is not written (the
///   rename would replace the link).
///
/// The folder's watcher (or the next `sources sync`) then reads the card as
/// any edit made elsewhere: the same person, with the date.
package enum LocalCardWriter {
    /// Adds `birthday` to the card of `personID` in the file `href` of the vdir `folder`.
    ///
    /// Blocking: run it on the pool (``Blocking``).
    ///
    /// - Parameter beforeRename: runs right before the file is read again for the rename (tests change the card there).
    package static func writeBirthday(
        _ birthday: EventDate,
        personID: String,
        folder: String,
        href: String,
        beforeRename: () -> Void = {}
    ) throws(WriteBackError) -> CardWriteResult {
        guard !href.isEmpty, !href.split(separator: "/").contains(".."), !href.hasPrefix("/") else { throw .gone(location: href) }
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + href
        for _ in 0..<2 {
            let before = try read(path)
            let edit: VCardBirthdayEdit.Edit
            do {
                edit = try VCardBirthdayEdit.edit(before.bytes, personID: personID, birthday: birthday)
            } catch {
                throw .edit(location: path, error)
            }
            guard case .edited(let bytes) = edit else { return .cardHasBirthday }
            if try replace(path, with: bytes, ifStill: before.bytes, mode: before.mode, beforeRename: beforeRename) { return .written }
        }
        throw .changedMeanwhile(location: path)
    }

    /// The file's bytes and permission bits.
    private static func read(_ path: String) throws(WriteBackError) -> (bytes: [UInt8], mode: mode_t) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { throw .gone(location: path) }
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .cannotWrite(path: path, reason: "not a regular file (a link or a folder)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .cannotWrite(path: path, reason: "it cannot be read")
        }
        return ([UInt8](data), info.st_mode & 0o7777)
    }

    /// Writes `bytes` to a temporary file beside `path` and renames it over
    /// `path` if `path` still holds `expected`; `false` (nothing changed) when it does not.
    private static func replace(
        _ path: String,
        with bytes: [UInt8],
        ifStill expected: [UInt8],
        mode: mode_t,
        beforeRename: () -> Void
    ) throws(WriteBackError) -> Bool {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = slash == path.startIndex ? "." : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        var random = SystemRandomNumberGenerator()
        let temporary = directory + "/." + name + ".birthdays-" + String(random.next() as UInt64, radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: "creating a temporary file: " + String(cString: strerror(errno))) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            // The mode given to open() is reduced by the umask; the card's own is wanted.
            _ = fchmod(descriptor, mode)
            guard writeAll(bytes, to: descriptor) else { throw .cannotWrite(path: path, reason: "writing: " + String(cString: strerror(errno))) }
            guard fsync(descriptor) == 0 else { throw .cannotWrite(path: path, reason: "syncing: " + String(cString: strerror(errno))) }
        }
        beforeRename()
        // Right before the rename: still the card that was edited?
        guard let now = FileManager.default.contents(atPath: path), [UInt8](now) == expected else { return false }
        guard rename(temporary, path) == 0 else {
            throw .cannotWrite(path: path, reason: "renaming the temporary file: " + String(cString: strerror(errno)))
        }
        renamed = true
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            // The rename is done; a failed folder sync only weakens durability.
            _ = fsync(folder)
            close(folder)
        }
        return true
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let result = write(descriptor, base + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += result
            }
            return true
        }
    }
}
