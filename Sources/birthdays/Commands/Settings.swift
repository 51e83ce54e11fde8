import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct SettingsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or change settings.",
            discussion: """
                Keys: delivery-time (HH:MM, default 09:00), time-zone (IANA name or 'system'), leap-day (feb28 | mar1), \
                day-before (on | off), anniversaries (on | off), calendar-name, emoji (on | off). \
                Changing a setting that affects reminders reschedules them at once.
                """,
            subcommands: [Show.self, SetValue.self, Reset.self],
            defaultSubcommand: Show.self
        )
    }
}

extension BirthdaysCommand.SettingsCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every setting with its value.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON object of key to value.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let (settings, zone) = try context.settings()
            print(json ? SettingsOutput.json(settings).serialized(pretty: true) : SettingsOutput.text(settings, zone: zone))
        }
    }

    struct SetValue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a setting.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The setting, e.g. delivery-time.")
        var key: String

        @Argument(help: "The new value, e.g. 08:30.")
        var value: String

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        func run() async throws {
            let settingKey = try SettingKey(parsing: key, value: value)
            let context = try Context(global)
            let settings = try context.database.setSetting(settingKey, to: value, now: context.now)
            let rescheduled = settingKey.affectsReminders ? try await context.scheduler().reschedule() : nil
            print(json ? SettingsOutput.json(settings).serialized(pretty: true) : SettingsOutput.changed(settingKey, settings, rescheduled))
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Return a setting to its default.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The setting, e.g. delivery-time.")
        var key: String

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        func run() async throws {
            let settingKey = try SettingKey(parsing: key)
            let context = try Context(global)
            let settings = try context.database.resetSetting(settingKey, now: context.now)
            let rescheduled = settingKey.affectsReminders ? try await context.scheduler().reschedule() : nil
            print(json ? SettingsOutput.json(settings).serialized(pretty: true) : SettingsOutput.changed(settingKey, settings, rescheduled))
        }
    }
}

enum SettingsOutput {
    static func json(_ settings: Settings) -> JSONValue {
        .object(SettingKey.allCases.map { ($0.rawValue, .string(settings.text(for: $0))) })
    }

    static func text(_ settings: Settings, zone: TimeZone) -> String {
        Table.render(SettingKey.allCases.map { key in
            let value = settings.text(for: key)
            return [key.rawValue, key == .timeZone && settings.timeZone == nil ? value + " (" + zone.identifier + ")" : value]
        })
    }

    static func changed(_ key: SettingKey, _ settings: Settings, _ rescheduled: RescheduleResult?) -> String {
        var line = "\(key.rawValue) = \(settings.text(for: key))"
        if let rescheduled {
            line += rescheduled.status.allowsScheduling
                ? "; reminders rescheduled (\(rescheduled.scheduled) pending)"
                : "; no reminders pending (notifications \(rescheduled.status.rawValue))"
        }
        return line
    }
}
