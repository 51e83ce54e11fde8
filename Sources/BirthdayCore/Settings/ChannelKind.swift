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
