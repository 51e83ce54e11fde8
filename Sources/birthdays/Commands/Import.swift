import ArgumentParser
import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            _superCommandName: "birthdays",
            abstract: "Import vCard (2.1, 3.0, 4.0) and CSV exports, vdir folders, or a birthday calendar (.ics).",
            discussion: """
                Importing the same export again changes nothing; edited contacts are updated in place. \
                One run is one transaction with the reminders it schedules: it lands whole or not at all. \
                Problems are reported as file:line: message; a file of a folder that holds no contacts is named as skipped. \
                A calendar file (.ics: Google's birthdays, a Facebook birthdays export, Outlook's or Thunderbird's yearly events, \
                this program's own feed) gives a person for each yearly all-day event whose title names a birthday or an anniversary.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "Files (.vcf, .vcard, .csv) or folders: their .vcf files, and every other file whose content is a vCard or a contacts CSV.",
                valueName: "path"
            )
        )
        var paths: [String]

        @Option(
            help: ArgumentHelp(
                "How to read slash dates such as 03/04/1990 in CSV files, for the whole run: dmy (day first), mdy (month first, as in the US) or ymd.",
                discussion:
                    "Without it, the order is taken from the file (a date such as 20/01/1991 settles it), and ambiguous dates are reported, not guessed.",
                valueName: "order"
            )
        )
        var dateOrder: DateOrder?

        @Option(
            name: .customLong("as"),
            help: ArgumentHelp(
                "In a calendar file (.ics), take every yearly all-day event as a birthday, its title the name.",
                valueName: "birthday"
            )
        )
        var calendarKind: CalendarEventKind?

        @Flag(help: "Report what would change without writing anything.")
        var dryRun = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: dryRun, emptyIfMissing: true)
            let today = try await context.today()
            // The reminders follow the new people at once, in the import's own transaction.
            var importer = ContactImporter(
                database: context.database,
                now: context.now,
                referenceYear: today.year,
                today: today,
                dateOrder: dateOrder,
                scheduler: dryRun ? nil : context.scheduler()
            )
            let asBirthday = calendarKind == .birthday
            importer.calendarParser = { data, file, known in
                CalendarFileReader.parse(data, file: file, asBirthday: asBirthday, today: today, known: known)
            }
            let progress: ContactImporter.Progress? = FileHandle.isTerminal(2) && !json ? ImportProgress.report : nil
            let report: ImportReport
            do {
                report = try await importer.importPaths(paths, dryRun: dryRun, progress: progress)
            } catch {
                if progress != nil { ImportProgress.clear() }
                if case .nothingImported(let partial) = error {
                    if json {
                        try output(JSONOutput.string(ImportOutput(partial), pretty: true))
                    } else {
                        for line in ImportOutput.messages(partial) { printError(line) }
                    }
                }
                throw CLIError(error.description)
            }
            if progress != nil { ImportProgress.clear() }
            if json {
                try output(JSONOutput.string(ImportOutput(report), pretty: true))
            } else {
                for line in ImportOutput.messages(report) { printError(line) }
                try output(ImportOutput.summary(report, dryRun: dryRun))
            }
        }
    }
}

/// `--date-order dmy|mdy|ymd`.
extension DateOrder: ExpressibleByArgument {}

/// `--as birthday`: what every yearly all-day event of a calendar file is.
enum CalendarEventKind: String, ExpressibleByArgument, CaseIterable {
    case birthday
}
