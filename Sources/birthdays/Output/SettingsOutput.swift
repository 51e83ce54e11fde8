import BirthdayCore
import Foundation

/// `birthdays settings --json`: every setting, key to text, in ``SettingKey`` order.
struct SettingsOutput: Encodable {
    let settings: Settings

    init(_ settings: Settings) { self.settings = settings }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for key in SettingKey.shown { try container.encode(settings.text(for: key), forKey: JSONKey(key.rawValue)) }
    }

    static func text(_ settings: Settings, zone: TimeZone) -> String {
        Table.render(
            SettingKey.shown.map { key in
                let value = settings.text(for: key)
                return [key.rawValue, key == .timeZone && settings.timeZone == nil ? value + " (" + zone.identifier + ")" : value]
            },
            // A command is never cut: it is what the user has to read in full.
            shrinkable: []
        )
    }

    static func changed(_ key: SettingKey, _ settings: Settings, _ rescheduled: RescheduleResult?) -> String {
        // The alias day-before shows the setting it changed: "reminders = 0".
        var line = "\(key.storedKey.rawValue) = \(settings.text(for: key.storedKey))"
        if let rescheduled {
            line +=
                rescheduled.status.allowsScheduling
                ? "; reminders rescheduled (\(rescheduled.scheduled) pending)"
                : "; no reminders pending (notifications \(rescheduled.status.rawValue))"
        }
        return line
    }
}
