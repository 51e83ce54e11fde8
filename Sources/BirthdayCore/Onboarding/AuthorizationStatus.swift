/// Whether `birthdays` may deliver reminders, as iOS's `UNAuthorizationStatus`.
///
/// | status | reminders scheduled | delivered | how it is reached |
/// |---|---|---|---|
/// | `notDetermined` | no | - | the start; "Maybe later" in onboarding keeps it |
/// | `authorized` | yes | to every channel | "Allow" with a reachable channel, or `birthdays notifications enable` |
/// | `provisional` | yes | quietly, to the log only | "Allow" while no channel is reachable |
/// | `denied` | no | - | "Don't allow", or `birthdays notifications disable` |
///
/// Once `denied`, a permission request returns `denied` without asking
/// again; only `birthdays notifications enable` (the equivalent of the
/// system Settings app) leaves it.
public enum AuthorizationStatus: String, Sendable, CaseIterable, Codable {
    case notDetermined
    case authorized
    case denied
    case provisional

    /// Whether reminders are scheduled in this state.
    public var allowsScheduling: Bool {
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
