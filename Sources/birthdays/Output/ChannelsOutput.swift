import BirthdayCore
import Foundation

/// `birthdays channels list` output: every channel that can deliver, the
/// built-in ones first. Never a secret: an Apprise URL shows its scheme only.
enum ChannelsOutput {
    struct Row {
        var name: String
        var kind: String
        var target: String
        /// Whether it is on and the permission lets it deliver (``ChannelConsent``); a paused one shows `paused` as its state.
        var enabled: Bool
        var status: ChannelStatus
        /// Why it does not deliver now, when it does not.
        var note: String?
    }

    /// The rows for these settings, permission, added channels and statuses,
    /// by the one consent model: a row is `ok` only when reminders use it.
    static func rows(settings: Settings, permission: AuthorizationStatus, added: [RemoteChannel], statuses: [String: ChannelStatus]) -> [Row] {
        let consent = ChannelConsent(
            status: permission,
            builtIn: settings.channels,
            added: added.filter { $0.isOn && statuses[$0.name]?.paused != true }.map(\.name)
        )
        let builtIn = ChannelKind.allCases.map { kind -> Row in
            let target: String =
                switch kind {
                case .desktop: "this desktop session"
                case .command: settings.command.isEmpty ? "(no command set)" : "the command setting"
                case .log: "standard output (the journal)"
                }
            var note: String?
            if !settings.channels.contains(kind) && !consent.builtIn.contains(kind) {
                note = "off (settings set channels)"
            } else if let hold = ChannelConsent.hold(kind, status: permission) {
                note = hold.words
            }
            return Row(
                name: kind.rawValue,
                kind: "built-in",
                target: target,
                enabled: consent.builtIn.contains(kind),
                status: statuses[kind.rawValue] ?? ChannelStatus(),
                note: note
            )
        }
        // A paused channel shows its state, `paused` (``ChannelStatus/state``); one that is off or stopped by `denied` says why.
        let remote = added.map { channel in
            Row(
                name: channel.name,
                kind: channel.kind.rawValue,
                target: channel.target,
                enabled: channel.isOn && permission != .denied,
                status: statuses[channel.name] ?? ChannelStatus(),
                note: !channel.isOn ? "off (settings set channels)" : permission == .denied ? ChannelConsent.Hold.notificationsOff.words : nil
            )
        }
        return builtIn + remote
    }

    /// One element of `channels list --json`.
    struct Listed: Encodable {
        var name: String
        var kind: String
        var target: String
        var enabled: Bool
        /// `ok`, `retrying`, `refused`, `unavailable`, `paused`, or `off`.
        var state: String
        var last_success: String?
        var last_error: String?
        var last_error_at: String?

        init(_ row: Row, zone: TimeZone) {
            name = row.name
            kind = row.kind
            target = row.target
            enabled = row.enabled
            state = row.enabled ? row.status.state : "off"
            last_success = row.status.lastSuccess.map { ISOInstant.format($0, in: zone) }
            last_error = row.status.lastError
            last_error_at = row.status.lastErrorAt.map { ISOInstant.format($0, in: zone) }
        }
    }

    static func table(_ rows: [Row], zone: TimeZone) -> String {
        let body = rows.map { row -> [String] in
            [
                SafeText.line(row.name), row.kind, SafeText.line(row.target), row.enabled ? row.status.state : "off",
                row.status.lastSuccess.map { Wording.wallClock($0, zone: zone) } ?? "never",
                row.note ?? row.status.lastError.map { SafeText.line($0) } ?? "",
            ]
        }
        return Table.render(body, header: ["NAME", "KIND", "TARGET", "STATE", "LAST SUCCESS", "LAST ERROR"], shrinkable: [2, 5])
    }
}
