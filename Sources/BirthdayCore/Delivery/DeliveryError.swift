/// A reminder could not be delivered through a channel.
///
/// Descriptions are sentences a user can read, in plain words: what went
/// wrong and what to do, never a raw D-Bus error (the cases keep those, for
/// ``detail``). They never contain a reminder's title or body, or a
/// command's output, because those can contain names; they may be logged.
public enum DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No D-Bus session bus could be reached.
    case noSessionBus(reason: String)
    /// The bus is there, but nothing owns `org.freedesktop.Notifications`.
    case noNotificationServer
    /// The notification server answered with a D-Bus error.
    case notificationServer(errorName: String, message: String)
    /// The notification server did not answer in time.
    case notificationServerTimedOut
    /// The connection to the bus broke.
    case busDisconnected
    /// The `command` channel has no command configured.
    case noCommand
    /// The command could not be started.
    case commandNotStarted(reason: String)
    /// The command ran and exited with a non-zero status.
    case commandFailed(status: Int32)
    /// The command was killed by a signal it did not get from us.
    case commandKilled(signal: Int32)
    /// The command ran longer than the channel's timeout and was killed.
    case commandTimedOut(after: Duration)
    /// Delivery was cancelled (the daemon is shutting down).
    case cancelled
    /// The `log` channel could not write its line.
    case logWriteFailed(reason: String)
    /// Some channels of a ``ChannelSet`` failed; the others delivered.
    case channelsFailed([ChannelFailure])
    /// A remote channel (e-mail, apprise, …) could not hand the reminder
    /// over this time: the server or program may take it later (a
    /// connection refused, SMTP 4xx, sendmail's 75 or 69, apprise's 1). Retried.
    case remoteUnavailable(channel: String, reason: String)
    /// A remote channel's server asked to wait before the next request (an
    /// HTTP 429 with `Retry-After`): retried, not before `retryAfter` has
    /// passed (see ``RetryPolicy/decide(afterFailures:failedAt:deadline:notBefore:)``).
    case remoteThrottled(channel: String, reason: String, retryAfter: Duration)
    /// A remote channel refused the reminder for a reason that waiting will
    /// not fix (SMTP 5xx, a wrong password, a bad address: sendmail's 65, 77
    /// or 78, apprise's 2 or 3). Not retried; shown in `status` and
    /// `channels list` with the server's words (`reason`, one line).
    case remoteRefused(channel: String, reason: String)

    /// Whether retrying cannot help (``remoteRefused(channel:reason:)``):
    /// the engine stops that channel's retries for the reminder.
    public var isPermanent: Bool {
        if case .remoteRefused = self { return true }
        return false
    }

    /// Whether there is nowhere to show the reminder (no desktop session, or
    /// no notification server on it): the desktop channel is `unavailable`,
    /// which is not a failure when another channel delivered.
    public var isUnavailable: Bool {
        switch self {
        case .noSessionBus, .noNotificationServer: true
        default: false
        }
    }

    /// How long the server asked to wait before the next attempt: a
    /// throttled channel's, or the longest of several failures'; `nil` when
    /// none asked.
    public var retryAfter: Duration? {
        switch self {
        case .remoteThrottled(_, _, let wait): wait
        case .channelsFailed(let failures): failures.compactMap(\.error.retryAfter).max()
        default: nil
        }
    }

    /// What the system said, for a debug log: the D-Bus error, or the description.
    public var detail: String {
        switch self {
        case .noSessionBus(let reason): reason
        case .notificationServer(let name, let message): name + (message.isEmpty ? "" : ": " + message)
        default: description
        }
    }

    public var description: String {
        switch self {
        case .noSessionBus:
            "this is not a desktop session (over SSH, or in a terminal started outside the desktop), so there is nowhere to show "
                + "a notification; the 'log' and 'command' channels work anywhere"
        case .noNotificationServer:
            "no notification server is running on the desktop; start one (such as dunst, or your desktop's own), "
                + "or use the 'log' or 'command' channel"
        case .notificationServer:
            "the desktop's notification server refused the notification"
        case .notificationServerTimedOut:
            "the desktop's notification server did not answer in time"
        case .busDisconnected:
            "the connection to the desktop session was lost"
        case .noCommand:
            "the 'command' channel is enabled but no notification command is set"
        case .commandNotStarted(let reason):
            "the notification command could not be started: \(reason)"
        case .commandFailed(let status):
            "the notification command exited with status \(status)"
        case .commandKilled(let signal):
            "the notification command was killed by signal \(signal)"
        case .commandTimedOut(let timeout):
            "the notification command did not finish within \(timeout) and was stopped"
        case .cancelled:
            "delivery was cancelled because birthdays is shutting down"
        case .logWriteFailed(let reason):
            "the reminder could not be written to the log: \(reason)"
        case .channelsFailed(let failures):
            failures.map { "\($0.channel): \($0.error)" }.joined(separator: "; ")
        case .remoteUnavailable(let channel, let reason), .remoteThrottled(let channel, let reason, _):
            "\(channel) could not take the reminder now and it will be tried again: \(reason)"
        case .remoteRefused(let channel, let reason):
            "\(channel) refused the reminder, and trying again will not help until the channel is fixed: \(reason)"
        }
    }
}

/// One channel's failure in a ``ChannelSet``.
public struct ChannelFailure: Sendable, Equatable, CustomStringConvertible {
    public var channel: String
    public var error: DeliveryError

    public init(channel: String, error: DeliveryError) {
        self.channel = channel
        self.error = error
    }

    public var description: String { "\(channel): \(error)" }
}
