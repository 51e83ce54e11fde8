import BirthdayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's contents so that readers never see a partial file.
enum AtomicFile {
    /// Writes `bytes` to a temporary file next to `path` (mode 0600), syncs
    /// it, renames it over `path` and syncs the directory.
    static func write(_ bytes: [UInt8], to path: String) throws(ExportError) {
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
