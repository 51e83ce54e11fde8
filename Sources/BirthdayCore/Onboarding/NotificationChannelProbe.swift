/// Whether a reminder could be delivered right now.
public struct ChannelProbeResult: Sendable, Equatable {
    public var reachable: Bool
    /// One line for the user: which channel answered, or why none did, in
    /// plain English (no D-Bus error names).
    public var detail: String
    /// Why no channel answered, for words in the user's language
    /// (BirthdayText's `Message.deliveryError(_:)`); `nil` when one did.
    public var failure: DeliveryError?

    public init(reachable: Bool, detail: String, failure: DeliveryError? = nil) {
        self.reachable = reachable
        self.detail = detail
        self.failure = failure
    }
}

/// Finds out whether a notification channel is reachable, for the
/// permission request (the "system prompt" step of onboarding) and for the
/// daemon, which moves a `provisional` permission to `authorized` once one is.
public protocol NotificationChannelProbe: Sendable {
    func probe() async -> ChannelProbeResult
}
