import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the daemon, permission, channels, pending reminders and recent deliveries (no names).",
            discussion: "Recent problems are failed, missed, interrupted and retrying reminders of the last --days days."
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "How many days back to report deliveries.")
        var days = 7

        @Flag(help: "Print the status as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let report = try await StatusReport(context: context, days: days)
            try output(json ? JSONOutput.string(report.output) : report.text)
        }
    }
}
