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
    /// - Returns: the channels, or `nil` when a name is not a channel.
    public static func parseList(_ text: String) -> [ChannelKind]? {
        var kinds: [ChannelKind] = []
        for part in text.split(separator: ",") {
            let name = part.trimmingWhitespace().lowercased()
            if name.isEmpty { continue }
            guard let kind = ChannelKind(rawValue: name) else { return nil }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}

extension ChannelKind {
    /// The built-in channels that deliver under `status`, of the `configured` ones.
    ///
    /// Rule: a `provisional` permission (given because no desktop notification
    /// server answered) holds back the desktop channel only: the command and
    /// the log deliver, and so does every channel the user added (adding it
    /// was their consent). When that leaves no built-in channel, the log
    /// delivers, so a reminder always lands somewhere. Any other status
    /// leaves `configured` as it is (whether anything is delivered at all is
    /// ``AuthorizationStatus/allowsScheduling``).
    public static func delivering(_ configured: [ChannelKind], status: AuthorizationStatus) -> [ChannelKind] {
        guard status == .provisional else { return configured }
        let kept = configured.filter { $0 != .desktop }
        return kept.isEmpty ? [.log] : kept
    }
}
