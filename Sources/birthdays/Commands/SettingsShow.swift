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
            try output(json ? JSONOutput.string(SettingsOutput(settings), pretty: true) : SettingsOutput.text(settings, zone: zone))
        }
    }
}
