import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            _superCommandName: "birthdays",
            abstract:
                "Choose a person's reminders: how many days before, through which channels, and weekends on Friday (imports keep these choices).",
            discussion: """
                --days 7,1,0 reminds a week ahead, the day before and on the day (0 is the day itself); the feed's alarms \
                follow the same days. --channels email,ntfy sends this person's reminders through those channels only \
                (built-in desktop, command, log, or names from 'birthdays channels list'); if none of them delivers any \
                more, reminders go through the usual channels. --weekend friday moves reminders that fall on a Saturday \
                or Sunday to the Friday before, at the delivery time (when two land on the same Friday, the nearer one \
                is sent); --weekend off moves nothing. Options not given are left as they are. --default goes back to \
                the defaults for all three: the reminders setting, every channel, no move. \
                --group NAME or --source NAME with --days or --default sets the reminder days of everyone in a group or \
                a source instead; a person's own days win, and someone in several such groups gets all their days.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String?

        @OptionGroup var shared: SharedRuleOptions

        @Option(help: ArgumentHelp("Days before each date, a comma list such as 7,1,0.", valueName: "days"))
        var days: String?

        @Option(
            help: ArgumentHelp("Send this person's reminders only through these channels, a comma list such as email,ntfy.", valueName: "names"),
            completion: Completions.channelNames
        )
        var channels: String?

        @Option(
            help: ArgumentHelp("friday: reminders due on a Saturday or Sunday come on the Friday before; off: no move.", valueName: "friday|off"),
            completion: .list(["friday", "off"])
        )
        var weekend: String?

        @Flag(name: .customLong("default"), help: "Go back to the defaults: the reminders setting, every channel, no weekend move.")
        var useDefault = false

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        /// `--channels`, trimmed, lower-cased, without repeats, in the order given; `nil` when absent or empty.
        var channelNames: [String]? {
            guard let channels else { return nil }
            var names: [String] = []
            for part in channels.split(separator: ",") {
                let name = part.trimmingCharacters(in: .whitespaces).lowercased()
                if !name.isEmpty && !names.contains(name) { names.append(name) }
            }
            return names.isEmpty ? nil : names
        }

        /// `--weekend`: `.some(nil)` for `off`.
        var weekendRule: WeekendRule?? {
            guard let weekend else { return nil }
            let value = weekend.trimmingCharacters(in: .whitespaces).lowercased()
            if value == "off" { return .some(nil) }
            return WeekendRule(rawValue: value).map { .some($0) }
        }

        func validate() throws {
            try shared.validate(person: person)
            if person == nil && (channels != nil || weekend != nil) {
                throw ValidationError("--channels and --weekend are for one person; a --group or --source takes --days or --default")
            }
            if useDefault {
                let others = [("--days", days), ("--channels", channels), ("--weekend", weekend)].filter { $0.1 != nil }.map(\.0)
                if let other = others.first { throw ValidationError("\(other) and --default exclude each other") }
                return
            }
            guard days != nil || channels != nil || weekend != nil else {
                throw ValidationError("give --days (e.g. --days 7,1,0), --channels (e.g. --channels email), --weekend friday|off, or --default")
            }
            if let text = days, ReminderDays(text) == nil {
                throw ValidationError(
                    "'\(text)' is not a list of reminder days; allowed: \(ReminderDays.maximumCount) or fewer of 0 to \(ReminderDays.maximum), e.g. 7,1,0"
                )
            }
            if channels != nil && channelNames == nil {
                throw ValidationError("--channels needs at least one channel name, e.g. --channels email,ntfy")
            }
            if let weekend, weekendRule == nil {
                throw ValidationError("'\(SafeText.line(weekend))' is not a weekend choice; allowed: friday, off")
            }
        }

        func run() async throws {
            let context = try Context(global)
            if let scope = try await context.scope(shared) {
                let result = try await context.database.setSharedRule(
                    scope,
                    exclusion: .keep,
                    days: .set(useDefault ? nil : days.flatMap(ReminderDays.init)),
                    now: context.now,
                    rescheduling: context.scheduler()
                )
                if json {
                    try output(JSONOutput.string(SharedRuleOutput(result.rule), pretty: true))
                } else if let chosen = result.rule.reminderDays {
                    try output("Everyone in the \(scope) is reminded \(chosen.description) days before (a person's own days still win).")
                } else {
                    try output("The \(scope) has no reminder days of its own any more.")
                }
                return
            }
            guard let person else { return }
            let found = try await context.person(matching: person)
            if let names = channelNames {
                // Checked before anything is stored: a name that is not a channel is a usage error.
                let known = ChannelKind.allCases.map(\.rawValue) + (try await context.database.remoteChannels()).map(\.name)
                if let unknown = names.first(where: { !known.contains($0) }) {
                    throw ValidationError("'\(SafeText.line(unknown))' is not a channel; channels: \(known.joined(separator: ", "))")
                }
            }
            let chosenDays = days.flatMap(ReminderDays.init)
            let result = try await context.database.setReminderChoices(
                days: useDefault ? .set(nil) : days == nil ? .keep : .set(chosenDays),
                channels: useDefault ? .set(nil) : channelNames.map { .set($0) } ?? .keep,
                weekend: useDefault ? .set(nil) : weekendRule.map { .set($0) } ?? .keep,
                personID: found.id,
                now: context.now,
                rescheduling: context.scheduler()
            )
            guard let result else { throw CLIError("no person has the id '\(found.id)'") }
            if json {
                try output(JSONOutput.string(PersonOutput(result.person), pretty: true))
                return
            }
            let (settings, _, localizer) = try await context.settingsAndLanguage()
            let name = SafeText.line(result.person.name)
            if useDefault {
                try output(localizer(.personRemindDefault(name: name, days: settings.reminders)))
                // Said only when there was a delivery choice to clear.
                if found.channels != nil || found.weekend != nil { try output(localizer(.personRemindDefaultDelivery(name: name))) }
                return
            }
            if let chosenDays { try output(localizer(.personRemind(name: name, days: chosenDays))) }
            if let names = channelNames { try output(localizer(.personRemindChannels(name: name, channels: names))) }
            if let rule = weekendRule { try output(localizer(.personRemindWeekend(name: name, rule: rule))) }
        }
    }
}
