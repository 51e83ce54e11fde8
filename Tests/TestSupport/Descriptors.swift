import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// This test process's descriptor limit, for tests that hold hundreds of
/// connections to a server at once (and then give the server a lower limit
/// of its own).
public enum Descriptors {
    /// Whether the hard limit (`ulimit -Hn`) lets this process hold `count` descriptors.
    public static func mayHold(_ count: Int) -> Bool {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_max >= rlim_t(count)
    }

    /// Raises the soft limit to 4,096 (at most the hard limit) when it is
    /// below `count`.
    public static func raise(toHold count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(limit.rlim_max, 4096)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
