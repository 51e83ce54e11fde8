/// Whether a reminder could be delivered right now.
public struct ChannelProbeResult: Sendable, Equatable {
    public var reachable: Bool
    /// One line for the user: which channel answered, or why none did.
    public var detail: String

    public init(reachable: Bool, detail: String) {
        self.reachable = reachable
        self.detail = detail
    }
}

/// Finds out whether a notification channel is reachable, for the
/// permission request (the "system prompt" step of onboarding).
public protocol NotificationChannelProbe: Sendable {
    func probe() async -> ChannelProbeResult
}
