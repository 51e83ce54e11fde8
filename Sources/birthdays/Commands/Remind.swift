import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose how many days before a person's dates their reminders come (imports keep this choice).",
            discussion: """
                --days 7,1,0 reminds a week ahead, the day before and on the day (0 is the day itself); \
                --default follows the reminders setting again. The feed's alarms follow the same days.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String

        @Option(help: ArgumentHelp("Days before each date, a comma list such as 7,1,0.", valueName: "days"))
        var days: String?

        @Flag(name: .customLong("default"), help: "Follow the reminders setting again.")
        var useDefault = false

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        func validate() throws {
            switch (days, useDefault) {
            case (nil, false): throw ValidationError("give --days (e.g. --days 7,1,0) or --default")
            case (_?, true): throw ValidationError("--days and --default exclude each other")
            case (let text?, false):
                guard ReminderDays(text) != nil else {
                    throw ValidationError(
                        "'\(text)' is not a list of reminder days; allowed: \(ReminderDays.maximumCount) or fewer of 0 to \(ReminderDays.maximum), e.g. 7,1,0"
                    )
                }
            case (nil, true): break
            }
        }

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            let chosen = days.flatMap(ReminderDays.init)
            let result = try await context.database.setReminderDays(chosen, personID: found.id, now: context.now, rescheduling: context.scheduler())
            guard let result else { throw CLIError("no person has the id '\(found.id)'") }
            if json {
                try output(JSONOutput.string(PersonOutput(result.person), pretty: true))
                return
            }
            let (settings, _, localizer) = try await context.settingsAndLanguage()
            let name = SafeText.line(result.person.name)
            try output(localizer(chosen.map { .personRemind(name: name, days: $0) } ?? .personRemindDefault(name: name, days: settings.reminders)))
        }
    }
}
