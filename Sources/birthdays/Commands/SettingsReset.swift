import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.SettingsCommand {
    struct SettingsReset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Return a setting to its default.")

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("The setting, e.g. delivery-time (every setting: birthdays settings --help).", valueName: "key"),
            completion: Completions.settingKeys
        )
        var typedKey: String

        /// The setting, once ``validate()`` has accepted ``typedKey``.
        var key: SettingKey { (try? SettingKey(parsing: typedKey)) ?? .deliveryTime }

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        /// A setting that does not exist is a usage error (exit 64) naming the nearest ones.
        func validate() throws {
            _ = try SettingKey.typed(typedKey)
        }

        func run() async throws {
            let context = try Context(global)
            let settings = try await context.database.resetSetting(key, now: context.now)
            let rescheduled = key.affectsReminders ? try await context.scheduler().reschedule() : nil
            let added = try await context.database.remoteChannels()
            try output(
                json
                    ? JSONOutput.string(SettingsOutput(settings, added: added), pretty: true)
                    : SettingsOutput.changed(key, settings, added: added, rescheduled)
            )
        }
    }
}
