import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Finds and reads the files an import names.
///
/// - A named file is read whatever it is: a regular file, a FIFO, a
///   terminal or pipe behind `/dev/stdin` (`birthdays import /dev/stdin <
///   contacts.vcf`). `-` is standard input too, named `<stdin>` in
///   problems. Only a folder is searched.
/// - A folder is searched at any depth, following links to files and
///   folders (a folder reached twice is read once); names starting with `.`
///   are skipped (`.git`, vdirsyncer's status). A folder that cannot be
///   listed, or a `.vcf` that is not a file or cannot be opened, fails the
///   import with its path and the reason, before anything is written.
///   Which files are taken is ``FolderFiles``': a vdir source takes its
///   `.vcf` and `.vcard` files, an import every file, those whose names say
///   nothing to be judged by their content (``InputFile/byContent``).
/// - Files are read with `read(2)` into memory, never mapped: a file that is
///   shortened while it is read gives fewer bytes (and, at worst, a card
///   without its end, which is reported) instead of killing the process with
///   SIGBUS, as touching a mapped page past the new end of file does.
/// - Other files the CLI reads by the same rules (a name-day list) take a
///   size cap of their own (``read(_:limit:)``).
package enum ContactFiles {
    struct InputFile: Equatable {
        var path: String
        /// The size when it was found (0 when not a regular file), for progress.
        var size: Int64
        /// Found in a folder under a name that does not say it holds
        /// contacts (`export.csv`, `notes.txt`, `photo.jpg`): read only when
        /// its first bytes are a vCard or a contacts CSV
        /// (``ContactReader/reasonToSkip(head:)``), else skipped and named.
        var byContent = false
    }

    /// Which files of a folder are taken.
    enum FolderFiles {
        /// `.vcf` and `.vcard` files, and nothing else: a vdir source.
        case vCards
        /// Every file: `.vcf` and `.vcard` as a vdir's, any other
        /// ``InputFile/byContent`` (a regular file; anything else is taken
        /// too, to be named as skipped): `birthdays import FOLDER`.
        case contactFiles
    }

    /// What a stream that is not a regular file may hold (a FIFO, a device).
    static let streamLimit = 1 << 30

    /// Every file `paths` name, in order; folders expanded (sorted by path).
    /// A regular file named twice (the same file by another path too, or
    /// found again in a folder named too) is read once: its cards are the
    /// same cards, not namesakes.
    ///
    /// - Parameters:
    ///   - skippingVanished: a `.vcf` that is listed but gone by the
    ///     time it is looked at is left out instead of failing (a source's
    ///     folder, which vdirsyncer may be writing while it is read).
    ///   - folderFiles: which files of a folder are taken.
    static func expand(_ paths: [String], skippingVanished: Bool = false, folderFiles: FolderFiles = .vCards) throws(ImportError) -> [InputFile] {
        var files: [InputFile] = []
        var named: Set<FileID> = []
        for path in paths {
            if path == standardInput || path == "/dev/stdin" {
                files.append(InputFile(path: path, size: 0))
                continue
            }
            var info = stat()
            guard stat(path, &info) == 0 else { throw .cannotRead(path: path, reason: reason(errno)) }
            if isDirectory(info) {
                var found: [InputFile] = []
                var visited: Set<FileID> = [FileID(info)]
                var seen = 0
                try search(
                    path,
                    into: &found,
                    visited: &visited,
                    named: &named,
                    seen: &seen,
                    skippingVanished: skippingVanished,
                    folderFiles: folderFiles
                )
                guard seen > 0 else { throw .emptyDirectory(path: path) }
                files += found.sorted { $0.path < $1.path }
            } else if !isRegular(info) {
                files.append(InputFile(path: path, size: 0))
            } else if named.insert(FileID(info)).inserted {
                files.append(InputFile(path: path, size: Int64(info.st_size)))
            }
        }
        return files
    }

    /// Adds the files below `folder` that `folderFiles` takes to `found`, but the regular files in `named`
    /// (read already), and counts in `seen` the files it takes, those included.
    private static func search(
        _ folder: String,
        into found: inout [InputFile],
        visited: inout Set<FileID>,
        named: inout Set<FileID>,
        seen: inout Int,
        skippingVanished: Bool,
        folderFiles: FolderFiles
    ) throws(ImportError) {
        guard let directory = opendir(folder) else { throw .cannotRead(path: folder, reason: reason(errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .cannotRead(path: folder, reason: reason(errno)) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        for name in names.sorted() {
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
            let ext = (name as NSString).pathExtension.lowercased()
            let wanted = ext == "vcf" || ext == "vcard"
            var info = stat()
            guard stat(path, &info) == 0 else {
                // A link to nothing is only worth a word if it claims to be a contact file.
                if (wanted && !skippingVanished) || errno != ENOENT { throw .cannotRead(path: path, reason: reason(errno)) }
                continue
            }
            if isDirectory(info) {
                guard visited.insert(FileID(info)).inserted else { continue }
                try search(
                    path,
                    into: &found,
                    visited: &visited,
                    named: &named,
                    seen: &seen,
                    skippingVanished: skippingVanished,
                    folderFiles: folderFiles
                )
            } else if wanted {
                guard isRegular(info) else { throw .cannotRead(path: path, reason: "not a regular file") }
                seen += 1
                if named.insert(FileID(info)).inserted { found.append(InputFile(path: path, size: Int64(info.st_size))) }
            } else if folderFiles == .contactFiles {
                seen += 1
                if !isRegular(info) || named.insert(FileID(info)).inserted {
                    found.append(InputFile(path: path, size: isRegular(info) ? Int64(info.st_size) : 0, byContent: true))
                }
            }
        }
    }

    /// How an import names standard input.
    static let standardInput = "-"

    /// The name problems and the store give a file: `<stdin>` for `-`.
    static func displayName(_ path: String) -> String { path == standardInput ? "<stdin>" : path }

    /// The name the store keeps for a card's file: the absolute path (from
    /// the working directory, `.` and `..` removed, links kept), so `show`
    /// names the card wherever it is run from; `<stdin>` for `-`.
    static func storedName(_ path: String) -> String {
        guard path != standardInput else { return displayName(path) }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The bytes of `path`, read to its end with `read(2)`. `-` and
    /// `/dev/stdin` read descriptor 0 itself, not a file opened again by
    /// name: opening `/proc/self/fd/0` again fails for a socket (ssh) or a
    /// terminal that belongs to another user (after `su`).
    ///
    /// - Parameter limit: the most bytes the file may hold, a regular file
    ///   or a stream (at most ``streamLimit``); `nil` takes a regular file
    ///   of any size and a stream of up to ``streamLimit`` (the import's).
    /// - Throws: ``ImportError/cannotRead(path:reason:)`` naming the file
    ///   and the reason: it is missing, a folder, unreadable or too large.
    package static func read(_ path: String, limit: Int? = nil) throws(ImportError) -> Data {
        let fd = path == standardInput || path == "/dev/stdin" ? dup(0) : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: displayName(path), reason: reason(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotRead(path: displayName(path), reason: reason(errno)) }
        if isDirectory(info) { throw .cannotRead(path: displayName(path), reason: "it is a folder") }
        let regular = isRegular(info)
        let cap = min(limit ?? streamLimit, streamLimit)
        let tooLarge = ImportError.cannotRead(
            path: displayName(path),
            reason: regular ? "it holds more than \(Self.size(cap))" : "more than \(Self.size(cap)) came from it"
        )
        if regular, let limit, info.st_size > limit { throw tooLarge }
        var data = Data(count: regular ? max(Int(info.st_size), 0) + 1 : min(1 << 16, cap + 1))
        var count = 0
        while true {
            if count == data.count {
                if regular && limit == nil {
                    data.count = count * 2
                } else {
                    // One byte past the cap tells a stream or a growing file that is too long.
                    guard count <= cap else { throw tooLarge }
                    data.count = min(count * 2, cap + 1)
                }
            }
            let got = data.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: displayName(path), reason: reason(errno))
            }
            if got == 0 { break }
            count += got
        }
        data.count = count
        return data
    }

    /// "1024 MB", "4 MB", "512 KB", "100 bytes": a cap in the unit that divides it.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KB" }
        return "\(bytes) bytes"
    }

    /// Why a file found ``InputFile/byContent`` is not read, or `nil` when it
    /// holds contacts: its first 64 KiB (``ContactReader/reasonToSkip(head:)``),
    /// opened without waiting and read only when it is a regular file (a FIFO
    /// would block, a device never end).
    static func reasonToSkip(_ path: String) -> String? {
        var found = stat()
        guard stat(path, &found) == 0 else { return "cannot read it: " + reason(errno) }
        guard isRegular(found) else { return "not a regular file" }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return "cannot read it: " + reason(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return "cannot read it: " + reason(errno) }
        guard isRegular(info) else { return "not a regular file" }
        var head = [UInt8](repeating: 0, count: 65_536)
        var count = 0
        while count < head.count {
            let got = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + count }, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                return "cannot read it: " + reason(errno)
            }
            if got == 0 { break }
            count += got
        }
        return ContactReader.reasonToSkip(head: Data(head[..<count]))
    }

    /// A device and inode number: one file, however it is reached.
    private struct FileID: Hashable {
        var device: UInt
        var inode: UInt

        init(_ info: stat) {
            device = UInt(info.st_dev)
            inode = UInt(info.st_ino)
        }
    }

    private static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    private static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    /// `strerror` in lower case ("permission denied").
    static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
