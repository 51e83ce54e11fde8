import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One daemon per database: an exclusive `flock` on `<database>.lock` (next
/// to the resolved database file, see ``path(forDatabase:)``), which holds
/// the daemon's pid as text.
///
/// The kernel drops the lock when the process exits, however it exits
/// (kill -9 included), so a stale file never blocks a restart; a second
/// daemon fails at once (LOCK_NB) with ``DaemonLockError/alreadyRunning(database:pid:)``.
package final class DaemonLock: Sendable {
    /// The lock file.
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// `<database>.lock`, next to the database file itself: the path is
    /// resolved first (symbolic links, `..`, a relative path), so two daemons
    /// that name one database differently still share one lock.
    package static func path(forDatabase database: String) -> String { resolved(database) + ".lock" }

    /// `path` with every symbolic link resolved; for a file that does not
    /// exist yet, its folder resolved and its name kept.
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let real = realpath(folder, nil) else { return path }
        defer { free(real) }
        let base = String(cString: real)
        return (base == "/" ? "" : base) + "/" + name
    }

    /// Takes the lock for `database` and writes this process's pid into it.
    ///
    /// - Throws: ``DaemonLockError/alreadyRunning(database:pid:)`` when
    ///   another process holds it, ``DaemonLockError/cannotOpen(path:reason:)``
    ///   when the file cannot be opened.
    package static func acquire(database: String) throws(DaemonLockError) -> DaemonLock {
        let path = path(forDatabase: database)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        // `holder(database:)` (status, onboarding waiting for a daemon it started) takes a shared lock
        // for an instant: a lock refused during the first 100 ms is asked again before giving up.
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        var code = locked ? 0 : errno
        var attempts = 0
        while !locked && code == EWOULDBLOCK && attempts < 10 {
            attempts += 1
            usleep(10_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
            code = locked ? 0 : errno
        }
        guard locked else {
            let pid = readPID(fd)
            close(fd)
            if code == EWOULDBLOCK { throw .alreadyRunning(database: database, pid: pid) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return DaemonLock(path: path, fd: fd)
    }

    /// The pid of the daemon holding the lock for `database`, or `nil` when
    /// none runs. (`0` when one runs but its pid is unreadable.)
    package static func holder(database: String) -> Int32? {
        let fd = open(path(forDatabase: database), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        return readPID(fd) ?? 0
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBufferPointer { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// The daemon lock could not be taken.
package enum DaemonLockError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyRunning(database: String, pid: Int32?)
    case cannotOpen(path: String, reason: String)

    package var description: String {
        switch self {
        case .alreadyRunning(let database, let pid):
            "birthdays run is already running for \(database)" + (pid.map { " (pid \($0))" } ?? "")
        case .cannotOpen(let path, let reason):
            "cannot open the daemon lock \(path): \(reason)"
        }
    }
}
