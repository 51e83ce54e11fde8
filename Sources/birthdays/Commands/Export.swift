import ArgumentParser
import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the birthdays as an iCalendar (.ics) feed with alarms.",
            discussion: """
                One all-day yearly event per birthday and anniversary, with alarms at the delivery time \
                (the day before too, unless day-before is off). The output is byte-identical for identical data.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Write to this file atomically instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "Leave out the VALARM reminders.")
        var noAlarms = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let contents = try await context.database.feedContents()
            let exporter = CalendarExporter(
                settings: contents.settings,
                includeAlarms: !noAlarms,
                localizer: contents.settings.localizer(systemLocale: context.systemLocale)
            )
            if let output {
                do {
                    try exporter.write(contents.people, lastChange: contents.changedAt, to: output)
                } catch {
                    throw CLIError(error.description)
                }
            } else {
                let bytes: [UInt8]
                do {
                    bytes = try exporter.exportBytes(contents.people, lastChange: contents.changedAt)
                } catch {
                    throw CLIError(error.description)
                }
                // The bytes as they are: megabytes for a large address book, not worth a copy.
                try StandardOutput.write(bytes)
            }
        }
    }
}
