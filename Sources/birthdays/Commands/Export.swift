import ArgumentParser
import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            _superCommandName: "birthdays",
            abstract: "Write the birthdays as an iCalendar (.ics) feed with alarms.",
            discussion: """
                One all-day yearly event per birthday and anniversary, with alarms at the delivery time \
                (the day before too, unless day-before is off); dates in other calendars (a lunar birthday) \
                as the calendar-rules setting says. The output is byte-identical for identical data \
                (and, with dates in other calendars expanded, the same year).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Write to this file atomically instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "Leave out the VALARM reminders.")
        var noAlarms = false

        func validate() throws {
            if let output, output.isEmpty || output.hasSuffix("/") { throw ValidationError("--output must name a file, such as birthdays.ics") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let contents = try await context.database.feedContents()
            let today = LocalDate.today(at: context.now, in: contents.settings.resolvedTimeZone(system: context.systemTimeZone))
            let exporter = CalendarExporter(
                settings: contents.settings,
                includeAlarms: !noAlarms,
                localizer: contents.settings.localizer(systemLocale: context.systemLocale),
                today: today
            )
            if let output {
                do {
                    try exporter.write(
                        contents.events,
                        lastChange: exporter.lastChange(of: contents.events, changedAt: contents.changedAt),
                        to: output
                    )
                } catch {
                    throw CLIError(error.description)
                }
            } else {
                let bytes: [UInt8]
                do {
                    bytes = try exporter.exportBytes(
                        contents.events,
                        lastChange: exporter.lastChange(of: contents.events, changedAt: contents.changedAt)
                    )
                } catch {
                    throw CLIError(error.description)
                }
                // The bytes as they are: megabytes for a large address book, not worth a copy.
                try StandardOutput.write(bytes)
            }
        }
    }
}
