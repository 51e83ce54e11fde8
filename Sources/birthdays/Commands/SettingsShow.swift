import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.SettingsCommand {
    struct SettingsShow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print every setting with its value.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON object of key to value.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone) = try await context.settings()
            let added = try await context.database.remoteChannels()
            try output(
                json
                    ? JSONOutput.string(SettingsOutput(settings, added: added), pretty: true)
                    : SettingsOutput.text(settings, added: added, zone: zone)
            )
        }
    }
}
