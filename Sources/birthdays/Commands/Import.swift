import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import vCard (2.1, 3.0, 4.0) and CSV exports, or vdir folders.",
            discussion: """
                Importing the same export again changes nothing; edited contacts are updated in place. \
                One run is one transaction: it lands whole or not at all. \
                Problems are reported as file:line: message.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Files (.vcf, .vcard, .csv) or directories of .vcf files.", valueName: "path"))
        var paths: [String]

        @Flag(help: "Report what would change without writing anything.")
        var dryRun = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let (_, zone) = try context.settings()
            let importer = ContactImporter(database: context.database, now: context.now, referenceYear: LocalDate.today(at: context.now, in: zone).year)
            let progress: ContactImporter.Progress? = FileHandle.isTerminal(2) && !json ? ImportProgress.report : nil
            let report: ImportReport
            do {
                report = try importer.importPaths(paths, dryRun: dryRun, progress: progress)
            } catch {
                if progress != nil { ImportProgress.clear() }
                if case .nothingImported(let partial) = error {
                    if json { print(ImportOutput.json(partial)) } else { partial.problems.forEach { printError($0.description) } }
                }
                throw error
            }
            if progress != nil { ImportProgress.clear() }
            if !dryRun { try await afterImport(context) }
            if json {
                print(ImportOutput.json(report))
            } else {
                report.problems.forEach { printError($0.description) }
                print(ImportOutput.summary(report, dryRun: dryRun))
            }
        }

        /// Work that follows a successful import: the reminders follow the new people at once.
        func afterImport(_ context: Context) async throws {
            try await context.scheduler().reschedule()
        }
    }
}

enum ImportOutput {
    static func json(_ report: ImportReport) -> String {
        JSONValue.object([
            ("added", .int(report.added)),
            ("updated", .int(report.updated)),
            ("unchanged", .int(report.unchanged)),
            ("invalid", .int(report.invalid)),
            ("without_dates", .int(report.withoutDates)),
            ("problems", .array(report.problems.map { .object([("file", .string($0.file)), ("line", .int($0.line)), ("message", .string($0.message))]) })),
        ]).serialized(pretty: true)
    }

    /// One line: what happened. Problems go to standard error, one per line, before it.
    static func summary(_ report: ImportReport, dryRun: Bool) -> String {
        let verb = dryRun ? "would import" : "imported"
        return (
            "\(verb) \(report.files) file\(report.files == 1 ? "" : "s"): \(report.added) added, \(report.updated) updated, "
                + "\(report.unchanged) unchanged, \(report.invalid) with invalid dates"
                + (report.withoutDates > 0 ? "; \(report.withoutDates) contacts without dates skipped" : "")
                + (report.problems.isEmpty ? "" : "; \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")")
        )
    }
}

/// Progress on standard error for long imports on a terminal.
enum ImportProgress {
    static let report: ContactImporter.Progress = { done, total in
        guard total > 8_000_000 else { return }
        let percent = total > 0 ? Int(done * 100 / total) : 100
        let megabytes = (total + 500_000) / 1_000_000
        FileHandle.standardError.write(Data("\rreading \(megabytes) MB of contacts… \(percent)%".utf8))
    }

    static func clear() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
