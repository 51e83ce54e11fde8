import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The number of files the process may hold open (`RLIMIT_NOFILE`).
///
/// `run --all-users` holds about eight descriptors per user (the database,
/// its log and shared memory, the lock, the database watch's inotify and
/// eventfd, …), so a hundred users pass systemd's default soft limit of
/// 1,024; and when descriptors run out, SQLite fails and libdispatch stops
/// the process. It raises the soft limit to the hard one, as systemd
/// advises programs that need many (`LimitNOFILE=` in systemd.exec(5)).
package enum OpenFileLimit {
    /// Raises the soft limit to the hard limit.
    ///
    /// - Returns: the soft limit now, or `nil` when it cannot be read.
    @discardableResult
    package static func raise() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
