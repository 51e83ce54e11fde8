import Foundation

/// What one reschedule did.
public struct RescheduleResult: Sendable, Equatable {
    /// The authorization status it found.
    public var status: AuthorizationStatus
    /// The channels that deliver (``ChannelConsent``); nothing is planned when none does.
    public var consent: ChannelConsent
    /// The requests now pending, soonest first (empty when no channel delivers).
    public var requests: [NotificationRequest]
    /// The zone the fire instants were computed in.
    public var timeZone: TimeZone

    public init(status: AuthorizationStatus, consent: ChannelConsent, requests: [NotificationRequest], timeZone: TimeZone) {
        self.status = status
        self.consent = consent
        self.requests = requests
        self.timeZone = timeZone
    }

    /// Whether any channel delivers, so reminders were planned.
    public var delivers: Bool { consent.delivers }

    /// How many requests are pending.
    public var scheduled: Int { requests.count }
    /// How many different people have a pending request.
    public var people: Int { Set(requests.lazy.filter { $0.digest == nil }.map(\.personID)).count }
    /// The soonest fire instant.
    public var first: Date? { requests.first?.fireAt }
    /// The latest fire instant.
    public var last: Date? { requests.last?.fireAt }
}
