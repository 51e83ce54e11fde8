import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct SettingsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            _superCommandName: "birthdays",
            abstract: "Show or change settings.",
            // One line per setting in --help; no blank line, which the man page would warn about.
            discussion: "Every setting and the values it takes:\n"
                + SettingKey.shown.map { "\($0.rawValue): \($0.allowedValues)" }.joined(separator: ";\n")
                + ".\nChanging a setting that affects reminders reschedules them at once; docs/settings.md says what each one does.",
            subcommands: [SettingsShow.self, SettingsSet.self, SettingsReset.self],
            defaultSubcommand: SettingsShow.self
        )
    }
}

extension SettingKey {
    /// The setting named on the command line (`settings set delivery-time
    /// 08:30`); one that does not exist is a usage error of one line with
    /// the nearest names, and the whole list stays behind `settings --help`.
    static func typed(_ text: String) throws(ValidationError) -> SettingKey {
        do {
            return try SettingKey(parsing: text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
