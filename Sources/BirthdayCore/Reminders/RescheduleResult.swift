import Foundation

/// What one reschedule did.
public struct RescheduleResult: Sendable, Equatable {
    /// The authorization status it found.
    public var status: AuthorizationStatus
    /// The requests now pending, soonest first (empty when not allowed).
    public var requests: [NotificationRequest]
    /// The zone the fire instants were computed in.
    public var timeZone: TimeZone

    public init(status: AuthorizationStatus, requests: [NotificationRequest], timeZone: TimeZone) {
        self.status = status
        self.requests = requests
        self.timeZone = timeZone
    }

    /// How many requests are pending.
    public var scheduled: Int { requests.count }
    /// How many different people have a pending request.
    public var people: Int { Set(requests.lazy.filter { $0.digest == nil }.map(\.personID)).count }
    /// The soonest fire instant.
    public var first: Date? { requests.first?.fireAt }
    /// The latest fire instant.
    public var last: Date? { requests.last?.fireAt }
}
