import BirthdayCore
import Foundation

/// `birthdays settings --json`: every setting, key to text, in ``SettingKey`` order.
///
/// `channels` lists every channel that is on, built-in and added alike (the
/// one list `status` and `channels` show), not only the built-in ones the
/// setting stores.
struct SettingsOutput: Encodable {
    let settings: Settings
    /// The added channels that are on.
    let addedOn: [String]

    init(_ settings: Settings, added: [RemoteChannel]) {
        self.settings = settings
        addedOn = added.filter(\.isOn).map(\.name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for key in SettingKey.shown { try container.encode(Self.text(for: key, settings, addedOn: addedOn), forKey: JSONKey(key.rawValue)) }
    }

    /// `key`'s value as shown; for `channels`, every channel that is on.
    static func text(for key: SettingKey, _ settings: Settings, addedOn: [String]) -> String {
        guard key == .channels else { return settings.text(for: key) }
        let on = settings.channels.map(\.rawValue) + addedOn
        return on.isEmpty ? "none" : on.joined(separator: ",")
    }

    static func text(_ settings: Settings, added: [RemoteChannel], zone: TimeZone) -> String {
        let addedOn = added.filter(\.isOn).map(\.name)
        return Table.render(
            SettingKey.shown.map { key in
                let value = text(for: key, settings, addedOn: addedOn)
                return [key.rawValue, key == .timeZone && settings.timeZone == nil ? value + " (" + zone.identifier + ")" : value]
            },
            // A command is never cut: it is what the user has to read in full.
            shrinkable: []
        )
    }

    static func changed(_ key: SettingKey, _ settings: Settings, added: [RemoteChannel], _ rescheduled: RescheduleResult?) -> String {
        // The alias day-before shows the setting it changed: "reminders = 0".
        var line = "\(key.storedKey.rawValue) = \(text(for: key.storedKey, settings, addedOn: added.filter(\.isOn).map(\.name)))"
        if let rescheduled {
            line +=
                rescheduled.delivers
                ? "; reminders rescheduled (\(rescheduled.scheduled) pending)"
                : rescheduled.status == .denied
                    ? "; no reminders pending (notifications are off)"
                    : "; no reminders pending (no channel delivers: \(rescheduled.status.rawValue))"
        }
        return line
    }
}
