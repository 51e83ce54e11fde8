import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct DigestCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "digest",
            _superCommandName: "birthdays",
            abstract: "Print what the next digest of the days ahead will say.",
            discussion: """
                With the digest setting on (weekly or monthly), birthdays run sends one message listing the days ahead \
                through every channel, at the delivery time: weekly on the digest-day (default monday) for that day and \
                the six after it, monthly on the 1st for the whole month. A period without birthdays sends nothing. \
                This prints the next one, also while the setting is off (as a weekly digest) and with no channel set. \
                A digest instead of the messages ahead of each day: settings set reminders 0 (the day's own message stays), \
                settings set digest weekly.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(parsing: .unconditional, help: "List this many days from the next digest's first day (1 to 366) instead of its week or month.")
        var days: Int?

        @Flag(help: "Print a JSON object.")
        var json = false

        func validate() throws {
            if let days, !(1...366).contains(days) { throw ValidationError("--days must be between 1 and 366") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let frequency = settings.digest == .off ? DigestFrequency.weekly : settings.digest
            guard let next = DigestPeriod.next(frequency, settings: settings, now: context.now, timeZone: zone) else {
                throw CLIError("the next digest day has no delivery time in the time zone \(zone.identifier)")
            }
            var period = next.period
            let fireAt = next.fireAt
            if let days { period = DigestPeriod(frequency: frequency, first: period.first, last: period.first.adding(days: days - 1)) }
            let digest = try await context.database.digest(of: period, settings: settings)
            if json {
                try output(
                    JSONOutput.string(
                        DigestOutput(
                            digest,
                            setting: settings.digest,
                            asSent: days == nil,
                            fireAt: fireAt,
                            zone: zone,
                            today: LocalDate.today(at: context.now, in: zone),
                            in: localizer
                        ),
                        pretty: true
                    )
                )
                return
            }
            var text: [String] = []
            if settings.digest == .off {
                text.append(localizer(.digestOff))
            } else {
                text.append(localizer(.digestNext(Wording.wallClock(fireAt, zone: zone))))
            }
            text.append("")
            if digest.events.isEmpty {
                let dates = localizer.shortDates()
                text.append(localizer(.digestNone(from: dates(period.first), to: dates(period.last))))
            } else {
                text.append(digest.title(in: localizer))
                text.append("")
                // Marked as seen now: on a Friday, Monday's birthday is not "today".
                text += digest.lines(in: localizer, readOn: LocalDate.today(at: context.now, in: zone))
            }
            try output(text.joined(separator: "\n"))
        }
    }
}

/// `birthdays digest --json`: the period, when it is sent, and what it says.
/// `setting` is the `digest` setting (`off` previews a weekly one); `sent`
/// says whether the daemon will send this very message (the setting is on,
/// no `--days` changed the period, and the period has events; notifications
/// must be allowed too, as for any reminder); `lines` mark today and tomorrow
/// as seen when it runs, as the text does; `events` are `upcoming --json`
/// entries, `days_until` counted from `first`.
struct DigestOutput: Encodable {
    var setting: String
    var first: String
    var last: String
    var fire_at: String
    var sent: Bool
    var title: String?
    var lines: [String]
    var events: [UpcomingOutput]

    init(_ digest: Digest, setting: DigestFrequency, asSent: Bool, fireAt: Date, zone: TimeZone, today: LocalDate, in localizer: Localizer) {
        self.setting = setting.rawValue
        first = digest.period.first.description
        last = digest.period.last.description
        fire_at = ISOInstant.format(fireAt, in: zone)
        sent = setting != .off && asSent && !digest.events.isEmpty
        title = digest.events.isEmpty ? nil : digest.title(in: localizer)
        lines = digest.lines(in: localizer, readOn: today)
        events = digest.events.map(UpcomingOutput.init)
    }
}
