import BirthdayCore
internal import CWake
import Foundation

/// A CLOCK_REALTIME timerfd armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET:
/// reading it fails with ECANCELED whenever the wall clock is set
/// discontinuously, which is how the kernel tells us without polling.
///
/// Owns the descriptor and closes it in `deinit`.
final class ClockChangeTimer {
    /// What one read of the timer reported.
    enum ReadResult: Equatable {
        /// The armed instant passed.
        case expired
        /// The wall clock changed (or the system resumed); re-arm before waiting again.
        case clockChanged
        /// Nothing yet (the descriptor is non-blocking).
        case nothing
        case failed

        init(code: Int32) {
            switch code {
            case Int32(CWAKE_TIMER_EXPIRED): self = .expired
            case Int32(CWAKE_TIMER_CLOCK_CHANGED): self = .clockChanged
            case Int32(CWAKE_TIMER_NOTHING): self = .nothing
            default: self = .failed
            }
        }

        /// Classifies a read() result: `bytes` read, or -1 with `errno`.
        /// The seam that tests the ECANCELED path without setting the clock.
        static func classify(bytes: Int, errno code: Int32) -> ReadResult {
            ReadResult(code: cwake_classify_read(bytes, code))
        }
    }

    /// Far enough ahead never to expire: 2100-01-01T00:00:00Z.
    static let farFuture: Int64 = 4_102_444_800

    let fd: Int32

    init() throws(WakeError) {
        let fd = cwake_timerfd_open()
        guard fd >= 0 else { throw WakeError("timerfd_create", errno: -fd) }
        self.fd = fd
    }

    deinit { cwake_close(fd) }

    /// Arms the timer for `epochSeconds` (absolute, wall clock).
    func arm(epochSeconds: Int64 = ClockChangeTimer.farFuture) throws(WakeError) {
        let result = cwake_timerfd_arm(fd, epochSeconds)
        guard result == 0 else { throw WakeError("timerfd_settime", errno: -result) }
    }

    /// Whole seconds before it expires; 0 when disarmed.
    var remainingSeconds: Int64 { max(0, cwake_timerfd_remaining_seconds(fd)) }

    func read() -> ReadResult { ReadResult(code: cwake_timerfd_read(fd)) }
}

extension WakeMonitor {
    /// The time the system has spent suspended since boot
    /// (CLOCK_BOOTTIME − CLOCK_MONOTONIC).
    package static func suspendedSinceBoot() -> Duration {
        .nanoseconds(cwake_suspended_ns())
    }

    /// BOOTTIME minus MONOTONIC from their parts, as the shim computes it.
    static func suspended(bootSeconds: Int64, bootNanoseconds: Int64, monotonicSeconds: Int64, monotonicNanoseconds: Int64) -> Duration {
        .nanoseconds(cwake_timespec_diff_ns(bootSeconds, bootNanoseconds, monotonicSeconds, monotonicNanoseconds))
    }
}
