/// The permission for desktop notifications, as iOS's `UNAuthorizationStatus`;
/// `denied` also stops every other channel (``ChannelConsent`` has the whole model).
///
/// | status | the desktop | the other channels that are on | how it is reached |
/// |---|---|---|---|
/// | `notDetermined` | not asked yet | deliver | the start; "Maybe later" in onboarding keeps it |
/// | `authorized` | delivers | deliver | "Allow" with a reachable desktop, or `birthdays notifications enable` |
/// | `provisional` | waits for a notification server | deliver (the log when none is on) | "Allow" while no desktop is reachable |
/// | `denied` | off | off | "Don't allow", or `birthdays notifications disable` |
///
/// Once `denied`, a permission request returns `denied` without asking
/// again; only `birthdays notifications enable` (the equivalent of the
/// system Settings app) leaves it.
public enum AuthorizationStatus: String, Sendable, CaseIterable, Codable {
    case notDetermined
    case authorized
    case denied
    case provisional

    /// Whether the person said yes to desktop notifications (`authorized` or
    /// `provisional`). Whether reminders are planned is ``ChannelConsent/delivers``.
    public var isAllowed: Bool {
        switch self {
        case .authorized, .provisional: true
        case .notDetermined, .denied: false
        }
    }

    /// The status after the user answered a permission request.
    ///
    /// - Parameters:
    ///   - allowed: the user's answer.
    ///   - channelReachable: whether a delivery channel was found by the probe;
    ///     allowing without one gives `provisional` (quiet delivery to the log).
    public static func afterRequest(allowed: Bool, channelReachable: Bool) -> AuthorizationStatus {
        guard allowed else { return .denied }
        return channelReachable ? .authorized : .provisional
    }
}
