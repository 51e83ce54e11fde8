import BirthdayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's contents so that readers never see a partial file.
enum AtomicFile {
    /// Writes `bytes` to a temporary file next to `path` (mode 0600: a
    /// birthday list is personal data), syncs it, renames it over `path` and
    /// syncs the directory.
    ///
    /// A symbolic link is written through, not replaced: the file it points
    /// to (at the end of a chain of links, created if missing) gets the new
    /// contents and the link stays. Anything but a regular file at the end
    /// (a device such as `/dev/sda`, a FIFO, a folder) is refused with
    /// ``ExportError/Code/notAFile(path:)``: a rename would replace it, even a
    /// device node when run as root.
    static func write(_ bytes: [UInt8], to requested: String) throws(ExportError) {
        let path = resolvingLinks(requested)
        var existing = stat()
        if lstat(path, &existing) == 0 && existing.st_mode & S_IFMT != S_IFREG { throw ExportError(.notAFile(path: requested)) }
        let directory = Self.directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var random = SystemRandomNumberGenerator()
        let temporary = directory + "/." + name + ".tmp-" + String(random.next() as UInt64, radix: 36)

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, "creating a temporary file") }
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            let written = bytes.withUnsafeBufferPointer { writeAll($0, to: descriptor) }
            guard written else { throw failure(path, "writing") }
            guard fsync(descriptor) == 0 else { throw failure(path, "syncing") }
        }
        guard rename(temporary, path) == 0 else { throw failure(path, "renaming the temporary file") }
        renamed = true
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            // The rename is done; a failed directory sync only weakens durability.
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Writes every byte, retrying after interrupts and short writes.
    private static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let result = systemWrite(descriptor, base + offset, bytes.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += result
        }
        return true
    }

    /// The path at the end of the chain of symbolic links that starts at
    /// `path` (at most 40 links, as the kernel allows); `path` itself when it
    /// is not a link. A link whose target is missing gives that target.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        return current
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func failure(_ path: String, _ step: String) -> ExportError {
        ExportError(.write(path: path, step: step, errno: errno))
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
