import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.SettingsCommand {
    struct SettingsReset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Return a setting to its default.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The setting, e.g. delivery-time.")
        var key: SettingKey

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

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
