import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.SettingsCommand {
    struct SettingsSet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a setting.")

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("The setting, e.g. delivery-time (every setting and its values: birthdays settings --help).", valueName: "key"),
            completion: Completions.settingKeys
        )
        var typedKey: String

        /// The setting, once ``validate()`` has accepted ``typedKey``.
        var key: SettingKey { (try? SettingKey(parsing: typedKey)) ?? .deliveryTime }

        @Argument(help: "The new value, e.g. 08:30.", completion: Completions.settingValues)
        var value: String

        @Flag(help: "Print the settings as a JSON object afterwards.")
        var json = false

        /// A setting that does not exist is a usage error (exit 64) naming the
        /// nearest ones; so is a value the setting does not take, naming what
        /// it takes (`channels` is checked in ``run()``, against the channels added).
        func validate() throws {
            let key = try SettingKey.typed(typedKey)
            // A `name-days` code may be a list of your own: the store checks it against the lists imported.
            guard key != .channels, key != .nameDays else { return }
            var check = Settings()
            do {
                try check.set(key, to: value)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let context = try Context(global)
            let settings: Settings
            if key == .channels {
                // Built-in and added channels are on or off alike: the list names those that are on.
                let known = try await context.database.remoteChannels().map(\.name)
                let choice: ChannelChoice
                do {
                    choice = try ChannelChoice(parsing: value, added: known)
                } catch {
                    throw ValidationError(error.description)
                }
                settings = try await context.database.setChannelsOn(choice)
            } else {
                do {
                    settings = try await context.database.setSetting(key, to: value, now: context.now)
                } catch let error as SettingsError {
                    // A `name-days` code no list has: the same usage error as any other value refused.
                    throw ValidationError(error.description)
                }
            }
            if (key == .channels || key == .command) && settings.channels.contains(.command) && settings.command.trimmingWhitespace().isEmpty {
                printError("warning: the 'command' channel is on, but no command is set; set one with: birthdays settings set command '…'")
            }
            let rescheduled = key.affectsReminders ? try await context.scheduler().reschedule() : nil
            let added = try await context.database.remoteChannels()
            if key == .channels, let rescheduled, !rescheduled.delivers {
                printError(
                    rescheduled.status == .denied
                        ? "warning: notifications are off, so no channel delivers; turn them on with: birthdays notifications enable"
                        : "warning: no channel delivers now, so nothing is reminded"
                )
            }
            try output(
                json
                    ? JSONOutput.string(SettingsOutput(settings, added: added), pretty: true)
                    : SettingsOutput.changed(key, settings, added: added, rescheduled)
            )
        }
    }
}
