import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Upcoming: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the next birthdays and anniversaries, nearest first.",
            discussion: "Dates are computed in your time zone (setting time-zone, else TZ, else the system's)."
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only events at most this many days away (0 = today only).")
        var days: Int = 30

        @Option(help: "At most this many events.")
        var limit: Int?

        @Flag(help: "Print a JSON array.")
        var json = false

        func validate() throws {
            guard days >= 0 else { throw ValidationError("--days must be 0 or more") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let upcoming = UpcomingEvents(
                today: LocalDate.today(at: context.now, in: zone),
                leapDay: settings.leapDay,
                includeAnniversaries: settings.anniversaries
            )
            let events = try await context.database.upcoming(upcoming, withinDays: days, limit: limit)
            if json {
                try output(JSONOutput.string(events.map(UpcomingOutput.init), pretty: true))
            } else if events.isEmpty {
                try output(localizer(days == 0 ? .plain(.upcomingNoneToday) : .upcomingNone(days: days)))
            } else {
                try output(UpcomingOutput.table(events, in: localizer))
            }
        }
    }
}
