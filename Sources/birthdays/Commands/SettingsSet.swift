import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.SettingsCommand {
    struct SettingsSet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a setting.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The setting, e.g. delivery-time.")
        var key: SettingKey

        @Argument(help: "The new value, e.g. 08:30.")
        var value: String

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let settings: Settings
            do {
                settings = try await context.database.setSetting(key, to: value, now: context.now)
            } catch let error as SettingsError {
                throw CLIError(error.description)
            }
            let rescheduled = key.affectsReminders ? try await context.scheduler().reschedule() : nil
            try output(json ? JSONOutput.string(SettingsOutput(settings), pretty: true) : SettingsOutput.changed(key, settings, rescheduled))
        }
    }
}
