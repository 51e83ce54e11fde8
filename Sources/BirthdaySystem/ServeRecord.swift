import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a running `birthdays serve` listens, for `birthdays feed url`:
/// `<database>.serve` next to the resolved database file (as ``DaemonLock``),
/// holding `HOST:PORT`, with an exclusive `flock` for as long as the server
/// runs. The kernel drops the lock when the process ends, however it ends,
/// so a file left behind by a killed server is never taken for a running one.
package final class ServeRecord: Sendable {
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit {
        unlink(path)
        close(fd)
    }

    /// `<database>.serve`, next to the database file itself.
    package static func path(forDatabase database: String) -> String { DaemonLock.resolved(database) + ".serve" }

    /// Records that this process serves the feed of `database` at `address`;
    /// `nil` when it cannot (a folder it may not write, another server that
    /// recorded first): the feed is served all the same.
    package static func publish(database: String, address: FeedAddress) -> ServeRecord? {
        let path = path(forDatabase: database)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        let text = Array((address.description + "\n").utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return ServeRecord(path: path, fd: fd)
    }

    /// The address a running `birthdays serve` recorded for `database`, or `nil` when none runs.
    package static func current(database: String) -> FeedAddress? {
        let fd = open(path(forDatabase: database), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBufferPointer { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return FeedAddress(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
