import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand.Sources {
    struct SourcesList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sources, with their people count, last sync and last error (no names, no passwords)."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the sources as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let sources = try await context.database.sources()
            let (_, zone, localizer) = try await context.settingsAndLanguage()
            if json {
                try output(JSONOutput.string(sources.map { SourcesOutput.Listed($0, zone: zone) }, pretty: true))
            } else {
                try output(SourcesOutput.table(sources, zone: zone, in: localizer))
            }
        }
    }
}
