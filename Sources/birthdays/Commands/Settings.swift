import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct SettingsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or change settings.",
            discussion: """
                Keys: delivery-time (HH:MM, default 09:00), time-zone (IANA name or 'system'), leap-day (feb28 | mar1), \
                day-before (on | off), anniversaries (on | off), calendar-name, emoji (on | off), channels, command, serve. \
                Changing a setting that affects reminders reschedules them at once.
                """,
            subcommands: [SettingsShow.self, SettingsSet.self, SettingsReset.self],
            defaultSubcommand: SettingsShow.self
        )
    }
}

/// A setting's name on the command line: `settings set delivery-time 08:30`.
extension SettingKey: ExpressibleByArgument {}
