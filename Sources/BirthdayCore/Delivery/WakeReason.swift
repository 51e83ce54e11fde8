import Foundation

/// Why the daemon should work out its schedule again.
public enum WakeReason: Sendable, Hashable {
    /// The wall clock was set (by NTP stepping it, `date -s`, or a user).
    case clockChanged
    /// The system resumed after being suspended for about this long.
    case resumed(suspendedFor: Duration)
    /// The system time zone changed to this one.
    case timeZoneChanged(TimeZone)

    /// The reason as the daemon's logs and the followers name it
    /// (`clock-changed`, `resumed`, `time-zone-changed`).
    public var logName: String {
        switch self {
        case .clockChanged: "clock-changed"
        case .resumed: "resumed"
        case .timeZoneChanged: "time-zone-changed"
        }
    }
}

/// The wake monitor could not start.
public struct WakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, such as `timerfd_create`.
    public var operation: String
    /// The system's explanation (strerror).
    public var reason: String

    package init(_ operation: String, errno code: Int32) {
        self.operation = operation
        self.reason = String(cString: strerror(code))
    }

    public var description: String {
        "cannot watch the system clock for changes: \(operation) failed: \(reason)"
    }
}

/// Turns raw observations (the clock-change timer fired, the zone file
/// changed, logind said the system woke up) into ``WakeReason``s.
///
/// Rules:
/// - Suspension is measured as the growth of CLOCK_BOOTTIME − CLOCK_MONOTONIC
///   since the previous observation (both clocks tick together while the
///   system runs; only BOOTTIME keeps counting while it is suspended).
/// - A clock-change event with at least `threshold` of new suspension is a
///   resume (Linux cancels CANCEL_ON_SET timers on resume too); otherwise it
///   is a clock change.
/// - logind's PrepareForSleep(false) is always a resume, even when the timer
///   already reported it: rescheduling twice is harmless, missing one is not.
/// - Every event also compares the time zone with the last one seen and adds
///   ``WakeReason/timeZoneChanged(_:)`` when its identifier differs.
///
/// Pure: callers pass the measurements in.
package struct WakeDetector: Sendable {
    private(set) var suspendedTotal: Duration
    private(set) var zoneIdentifier: String
    let threshold: Duration

    package init(suspendedTotal: Duration, zone: TimeZone, threshold: Duration = .seconds(1)) {
        self.suspendedTotal = suspendedTotal
        self.zoneIdentifier = zone.identifier
        self.threshold = threshold
    }

    package mutating func clockChanged(suspendedTotal total: Duration, zone: TimeZone) -> [WakeReason] {
        let slept = advance(to: total)
        return [slept >= threshold ? .resumed(suspendedFor: slept) : .clockChanged] + zoneCheck(zone)
    }

    package mutating func resumeSignalled(suspendedTotal total: Duration, zone: TimeZone) -> [WakeReason] {
        [.resumed(suspendedFor: advance(to: total))] + zoneCheck(zone)
    }

    package mutating func zoneFileChanged(zone: TimeZone) -> [WakeReason] {
        zoneCheck(zone)
    }

    private mutating func advance(to total: Duration) -> Duration {
        let slept = total > suspendedTotal ? total - suspendedTotal : .zero
        suspendedTotal = max(total, suspendedTotal)
        return slept
    }

    private mutating func zoneCheck(_ zone: TimeZone) -> [WakeReason] {
        guard zone.identifier != zoneIdentifier else { return [] }
        zoneIdentifier = zone.identifier
        return [.timeZoneChanged(zone)]
    }
}
