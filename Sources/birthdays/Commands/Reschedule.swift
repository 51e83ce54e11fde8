import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Reschedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reschedule",
            _superCommandName: "birthdays",
            abstract: "Replace the pending reminders with the next ones (at most 64).",
            discussion: """
                Reminders fire the day before and the day of each birthday and anniversary at the delivery time, \
                in your time zone. Only the soonest 64 are kept pending, as on iOS; run this again (the daemon does) \
                as time passes to fill the freed slots. Nothing is scheduled until notifications are enabled.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"scheduled\",\"people\",\"first\",\"last\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let result = try await context.scheduler().reschedule()
            try output(json ? JSONOutput.string(RescheduleOutput(result)) : RescheduleOutput.text(result))
        }
    }
}
