import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            _superCommandName: "birthdays",
            abstract: "Show the daemon, permission, channels, pending reminders and recent deliveries.",
            discussion: """
                Recent problems are failed, missed, interrupted and retrying reminders of the last --days days. \
                On a terminal the people are named; piped, in --json and in logs only public ids appear.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(parsing: .unconditional, help: "How many days back to report deliveries.")
        var days = 7

        @Flag(help: "Print the status as JSON.")
        var json = false

        func validate() throws {
            guard days >= 0 else { throw ValidationError("--days must be 0 or more") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            // Names only for a person at a terminal: never in JSON, a pipe or a log.
            let report = try await StatusReport(context: context, days: days, names: !json && FileHandle.isTerminal(1))
            try output(json ? JSONOutput.string(report.output) : report.text)
        }
    }
}
