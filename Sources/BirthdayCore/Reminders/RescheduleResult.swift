import Foundation

/// What a reschedule did.
public struct RescheduleResult: Sendable, Equatable {
    /// The authorization status it found.
    public var status: AuthorizationStatus
    /// The channels that deliver (``ChannelConsent``); nothing is planned when none does.
    public var consent: ChannelConsent
    /// The requests it planned and left pending: the reminders soonest first,
    /// then the team rooms' messages and the greetings (empty of reminders when no channel delivers).
    public var requests: [NotificationRequest]
    /// The zone the fire instants were computed in.
    public var timeZone: TimeZone
    /// The friends' greetings left pending as an earlier reschedule planned
    /// them (their plan still held: ``GreetingPlan/Stamp``), counted here,
    /// not listed in ``requests``.
    public var kept: Kept

    /// Greetings left pending as they were planned before.
    public struct Kept: Sendable, Equatable {
        /// How many.
        public var count: Int
        /// How many of them are of people with none of ``RescheduleResult/requests``.
        public var otherPeople: Int
        /// The soonest and the latest instant among them.
        public var first: Date?
        public var last: Date?

        public init(count: Int = 0, otherPeople: Int = 0, first: Date? = nil, last: Date? = nil) {
            self.count = count
            self.otherPeople = otherPeople
            self.first = first
            self.last = last
        }
    }

    public init(status: AuthorizationStatus, consent: ChannelConsent, requests: [NotificationRequest], timeZone: TimeZone, kept: Kept = Kept()) {
        self.status = status
        self.consent = consent
        self.requests = requests
        self.timeZone = timeZone
        self.kept = kept
    }

    /// Whether any channel delivers, so reminders were planned.
    public var delivers: Bool { consent.delivers }

    /// How many requests are pending.
    public var scheduled: Int { requests.count + kept.count }
    /// How many different people have a pending request.
    public var people: Int { Set(requests.lazy.filter { $0.digest == nil }.map(\.personID)).count + kept.otherPeople }
    /// The soonest fire instant.
    public var first: Date? { [requests.lazy.map(\.fireAt).min(), kept.first].compactMap { $0 }.min() }
    /// The latest fire instant.
    public var last: Date? { [requests.lazy.map(\.fireAt).max(), kept.last].compactMap { $0 }.max() }
}
