import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.Sources {
    struct SourcesSync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Sync sources now (all of them, or those named).",
            discussion: """
                Each source's sync lands whole or not at all; one that fails (network, password, HTTP or XML error, \
                a missing folder) changes nothing and makes the command exit with status 1. A sync that would remove \
                every person of a source, or more than half of one with over 10, is refused until it is run with \
                --allow-mass-removal.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Sources to sync (default: all).", valueName: "name"), completion: Completions.sources)
        var names: [String] = []

        @Flag(help: "Let this sync remove most or all of a source's people (after the source was really emptied).")
        var allowMassRemoval = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let reports: [SourceSyncReport]
            do {
                reports = try await context.sourceSync().sync(named: names, allowMassRemoval: allowMassRemoval)
            } catch {
                throw CLIError(error.description)
            }
            try await SourcesOutput.finish(reports, json: json, context: context, added: false)
        }
    }
}
