import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Upcoming: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upcoming",
            _superCommandName: "birthdays",
            abstract: "List the next birthdays and anniversaries, nearest first.",
            discussion: "Dates are computed in your time zone (setting time-zone, else TZ, else the system's)."
        )

        @OptionGroup var global: GlobalOptions

        // `.unconditional`: `--days -5` reaches validate() and its sentence, not "Missing value".
        @Option(
            parsing: .unconditional,
            help: "Only events at most this many days away (0 = today only, and nothing printed when there is none)."
        )
        var days: Int = 30

        @Option(parsing: .unconditional, help: "At most this many events.")
        var limit: Int?

        @Flag(help: "Print a JSON array.")
        var json = false

        @Flag(name: .shortAndLong, help: "Print nothing when nothing is coming up (for a status bar or a shell prompt).")
        var quiet = false

        func validate() throws {
            guard days >= 0 else { throw ValidationError("--days must be 0 or more") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let upcoming = UpcomingEvents(
                today: LocalDate.today(at: context.now, in: zone),
                settings: settings,
                nameDays: try await context.database.nameDays(for: settings)
            )
            let events = try await context.database.upcoming(upcoming, withinDays: days, limit: limit)
            if json {
                let notes = try await context.database.notes()
                try output(
                    JSONOutput.string(
                        events.map { UpcomingNoteOutput(event: UpcomingOutput($0), note: notes[$0.personID]) },
                        pretty: true
                    )
                )
            } else if events.isEmpty {
                // Today only (a prompt or a status bar asks that): nothing to say is nothing printed.
                guard !quiet && days > 0 else { return }
                try output(localizer(.upcomingNone(days: days)))
            } else {
                try output(UpcomingOutput.table(events, zone: zone, in: localizer))
            }
        }
    }
}
