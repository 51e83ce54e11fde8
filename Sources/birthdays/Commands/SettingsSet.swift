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

        @Argument(help: "The new value, e.g. 08:30.", completion: Completions.settingValues)
        var value: String

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        /// A value the setting does not take is a usage error (exit 64) naming what it takes.
        func validate() throws {
            var check = Settings()
            do {
                try check.set(key, to: value)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let context = try Context(global)
            let settings = try await context.database.setSetting(key, to: value, now: context.now)
            if (key == .channels || key == .command) && settings.channels.contains(.command) && settings.command.trimmingWhitespace().isEmpty {
                printError("warning: the 'command' channel is on, but no command is set; set one with: birthdays settings set command '…'")
            }
            let rescheduled = key.affectsReminders ? try await context.scheduler().reschedule() : nil
            try output(json ? JSONOutput.string(SettingsOutput(settings), pretty: true) : SettingsOutput.changed(key, settings, rescheduled))
        }
    }
}
