import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

/// `birthdays sources …` output: the `--json` shapes the README documents,
/// and the text forms. Never a person's name, never a password.
enum SourcesOutput {
    /// One element of `sources list --json`.
    struct Listed: Encodable {
        var name: String
        var kind: String
        var location: String
        var last_sync: String?
        var people: Int
        var error: String?

        init(_ source: Source, zone: TimeZone) {
            name = source.name
            kind = source.kind.rawValue
            location = source.location
            last_sync = source.status.lastSync.map { ISOInstant.format($0, in: zone) }
            people = source.status.people
            error = source.status.error
        }
    }

    /// `sources sync --json` (and `sources add --json`).
    struct Synced: Encodable {
        struct Report: Encodable {
            var name: String
            var added: Int
            var updated: Int
            var removed: Int
            var unchanged: Int
            var problems: [Problem]
            /// Choices a card linked by this sync had made differently from the person it joined.
            var conflicts: [ConflictOutput]
        }

        /// A card that could not be read (file and line), or the error that
        /// stopped the sync (the source's location, no line).
        struct Problem: Encodable {
            var file: String
            var line: Int?
            var message: String
        }

        var sources: [Report]
    }

    static func synced(_ reports: [SourceSyncReport], locations: [String: String]) -> Synced {
        Synced(
            sources: reports.map { report in
                var problems = report.problems.map { Synced.Problem(file: $0.file, line: $0.line, message: $0.message) }
                if let error = report.error {
                    problems.append(Synced.Problem(file: locations[report.name] ?? report.name, line: nil, message: error.description))
                }
                return Synced.Report(
                    name: report.name,
                    added: report.added,
                    updated: report.updated,
                    removed: report.removed,
                    unchanged: report.unchanged,
                    problems: problems,
                    conflicts: report.conflicts.map(ConflictOutput.init)
                )
            }
        )
    }

    /// One line per source: "Friends: synced; 3 added, 1 updated, 0 removed, 10 unchanged" (in the user's language).
    /// Then one line per choice a link made in conflict (``LinkWords/conflict(_:)``).
    static func summary(_ report: SourceSyncReport, added: Bool, in localizer: Localizer) -> String {
        let counts = (report.added, report.updated, report.removed, report.unchanged)
        return localizer(.sourcesSummary(source: SafeText.line(report.name), added: added, counts: counts))
            + (report.problems.isEmpty ? "" : "; " + localizer(.sourcesProblems(report.problems.count)))
            + report.conflicts.map { "\n" + LinkWords.conflict($0) }.joined()
    }

    /// Prints the reports (problems on standard error) and fails with one
    /// line naming every source that failed.
    static func finish(_ reports: [SourceSyncReport], json: Bool, context: Context, added: Bool) async throws {
        let failed = reports.filter { !$0.succeeded }
        if json {
            let sources = try await context.database.sources(counting: false)
            let locations = Dictionary(sources.map { ($0.name, $0.location) }, uniquingKeysWith: { first, _ in first })
            try output(JSONOutput.string(synced(reports, locations: locations), pretty: true))
        } else {
            let localizer = try await context.localizer()
            for report in reports {
                for problem in report.problems { printError(problem.description) }
                if report.succeeded { try output(summary(report, added: added, in: localizer)) }
            }
        }
        guard failed.isEmpty else {
            throw CLIError(failed.map { "\(SafeText.line($0.name)): \($0.error?.description ?? "failed")" }.joined(separator: "; "))
        }
    }

    /// `sources list` as a table (in the user's language), with errors on their own lines.
    static func table(_ sources: [Source], zone: TimeZone, in localizer: Localizer) -> String {
        guard !sources.isEmpty else { return localizer(.sourcesNone) }
        var rows: [[String]] = []
        for source in sources {
            let last = source.status.lastSync.map { Wording.wallClock($0, zone: zone) } ?? localizer(.sourcesNever)
            rows.append([source.name, source.kind.rawValue, String(source.status.people), last, source.location])
        }
        let header: [Message.Key] = [.sourcesHeaderName, .sourcesHeaderKind, .sourcesHeaderPeople, .sourcesHeaderLastSync, .sourcesHeaderLocation]
        var text = Table.render(rows, header: header.map { localizer($0) })
        for source in sources {
            if let error = source.status.error { text += "\n\(SafeText.line(source.name)): \(SafeText.line(error))" }
        }
        return text
    }
}
