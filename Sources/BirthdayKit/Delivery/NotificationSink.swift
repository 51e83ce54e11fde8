/// Something that shows or records a reminder: the desktop, a user's command,
/// the log, or a set of them.
///
/// Rules for implementations:
/// - `deliver` returns once the reminder is handed over (the notification
///   server accepted it, the command exited 0, the line was written) and
///   throws when the caller should retry later (see ``RetryPolicy``).
/// - Delivering the same ``Reminder/id`` again may replace the earlier
///   notification but must not fail because of it.
/// - Errors and logs never contain the reminder's title or body.
public protocol NotificationSink: Sendable {
    func deliver(_ reminder: Reminder) async throws(DeliveryError)
}

/// The channels the `channels` setting can name.
public enum ChannelKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Freedesktop notifications over the D-Bus session bus.
    case desktop
    /// The user's command, run with `/bin/sh -c` and the reminder in `BIRTHDAYS_*` variables.
    case command
    /// One line per delivery on standard output (the journal under systemd).
    case log

    /// Parses a comma list such as `desktop,log`: names are trimmed and
    /// case-insensitive, duplicates are dropped, the order is kept.
    ///
    /// - Throws: ``DeliveryError/unknownChannel(_:)`` for a name that is not a channel.
    public static func parseList(_ text: String) throws(DeliveryError) -> [ChannelKind] {
        var kinds: [ChannelKind] = []
        for part in text.split(separator: ",") {
            let name = part.trimmingWhitespace().lowercased()
            if name.isEmpty { continue }
            guard let kind = ChannelKind(rawValue: name) else { throw .unknownChannel(name) }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}
