/// Which channels deliver a reminder: the one consent model, for the
/// planner, the delivery engine, `channels`, `settings show` and `status`
/// alike (docs/channels.md, "Who delivers").
///
/// Every channel, built-in (`desktop`, `command`, `log`) or added (e-mail,
/// ntfy, Gotify, Apprise), is on or off: the built-in ones by the `channels`
/// setting, an added one from the moment it is added until it is turned off
/// or removed. Turning a channel on, or adding one, is the person's consent.
/// The permission is about the desktop alone, as the system permission it
/// imitates, except that `denied` (`notifications disable`) is the one
/// switch that stops everything:
///
/// | permission | desktop (when on) | command and log (when on) | added channels (when on, not paused) |
/// |---|---|---|---|
/// | `notDetermined` | no: not asked yet | yes | yes |
/// | `provisional` | no: waits until a desktop notification server answers | yes | yes |
/// | `authorized` | yes | yes | yes |
/// | `denied` | no | no | no |
///
/// Under `provisional`, when nothing else would deliver, the log does, so a
/// reminder the person allowed always lands somewhere. Reminders are
/// planned only while at least one channel delivers (``delivers``): there is
/// no state in which a channel is shown as delivering and reminders will
/// not use it.
public struct ChannelConsent: Sendable, Hashable {
    /// Why a channel that is on does not deliver now.
    public enum Hold: Sendable, Hashable {
        /// `notifications disable` (or "Don't allow"): nothing delivers.
        case notificationsOff
        /// The desktop has not been asked for yet (`notDetermined`).
        case desktopNotAsked
        /// The desktop waits until a notification server answers (`provisional`).
        case desktopWaiting
    }

    /// The built-in channels that deliver, in the setting's order.
    public let builtIn: [ChannelKind]
    /// The added channels that deliver, in the order given.
    public let added: [String]

    /// - Parameters:
    ///   - status: the permission.
    ///   - builtIn: the built-in channels that are on (the `channels` setting).
    ///   - added: the added channels that are on and not paused, oldest first.
    public init(status: AuthorizationStatus, builtIn: [ChannelKind], added: [String]) {
        guard status != .denied else {
            self.builtIn = []
            self.added = []
            return
        }
        var kinds = builtIn.filter { Self.hold($0, status: status) == nil }
        if status == .provisional && kinds.isEmpty && added.isEmpty { kinds = [.log] }
        self.builtIn = kinds
        self.added = added
    }

    /// Whether any channel delivers: reminders are planned and sent only then.
    public var delivers: Bool { !builtIn.isEmpty || !added.isEmpty }

    /// Every delivering channel's name, the built-in ones first.
    public var names: [String] { builtIn.map(\.rawValue) + added }

    /// Why the built-in channel `kind`, when on, does not deliver under
    /// `status`; `nil` when it does.
    public static func hold(_ kind: ChannelKind, status: AuthorizationStatus) -> Hold? {
        switch (status, kind) {
        case (.denied, _): .notificationsOff
        case (.notDetermined, .desktop): .desktopNotAsked
        case (.provisional, .desktop): .desktopWaiting
        default: nil
        }
    }
}

extension ChannelConsent.Hold {
    /// The words `channels` and `status` show for it.
    public var words: String {
        switch self {
        case .notificationsOff: "notifications are off (birthdays notifications enable)"
        case .desktopNotAsked: "desktop notifications are not enabled yet (birthdays notifications enable)"
        case .desktopWaiting: "held back until a desktop notification server answers (provisional)"
        }
    }
}

/// A `settings set channels` list: the channels to turn on, built-in and
/// added alike; every channel it does not name is turned off.
public struct ChannelChoice: Sendable, Hashable {
    /// The built-in channels named, in the list's order.
    public var builtIn: [ChannelKind]
    /// The added channels named.
    public var added: Set<String>

    /// Parses `text` (`desktop,email`, `none`): names are trimmed and
    /// case-insensitive, duplicates are dropped.
    ///
    /// - Parameter known: the names of the channels the person added.
    /// - Throws: ``ChannelChoiceError`` naming the first name that is no channel.
    public init(parsing text: String, added known: [String]) throws(ChannelChoiceError) {
        builtIn = []
        added = []
        let value = text.trimmingWhitespace()
        guard value.lowercased() != "none" else { return }
        for part in value.split(separator: ",") {
            let name = part.trimmingWhitespace().lowercased()
            if name.isEmpty { continue }
            if let kind = ChannelKind(rawValue: name) {
                if !builtIn.contains(kind) { builtIn.append(kind) }
            } else if known.contains(name) {
                added.insert(name)
            } else {
                throw ChannelChoiceError(name: String(part.trimmingWhitespace()), known: ChannelKind.allCases.map(\.rawValue) + known)
            }
        }
        guard !builtIn.isEmpty || !added.isEmpty else { throw ChannelChoiceError(name: value, known: ChannelKind.allCases.map(\.rawValue) + known) }
    }
}

/// A `settings set channels` list that names something that is no channel.
public struct ChannelChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as typed (empty when the list named nothing).
    public var name: String
    /// Every channel's name, built-in first.
    public var known: [String]

    public var description: String {
        let list = known.joined(separator: ", ")
        guard !name.isEmpty else { return "name at least one channel, or none; the channels are \(list)" }
        let typed = SafeText.line(name)
        // Within two typing mistakes (a swap of two letters is two): "emial" is email.
        let typedLetters = Array(name.lowercased())
        let near = known.map { (PersonLookup.editDistance(typedLetters, Array($0), limit: 2), $0) }.filter { $0.0 <= 2 }.min { $0.0 < $1.0 }?.1
        if let near {
            return "'\(typed)' is not a channel (did you mean \(near)?); the channels are \(list)"
        }
        return "'\(typed)' is not a channel; the channels are \(list) (add one with: birthdays channels add)"
    }
}
