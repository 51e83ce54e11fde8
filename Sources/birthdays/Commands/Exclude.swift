import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Exclude: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave a person out: no reminders, no feed events (imports keep this choice).",
            discussion: "Undo it with: birthdays include PERSON. It wins over a card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR either way."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"))
        var person: String

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            let result = try await context.database.setExclusion(.exclude, personID: found.id, now: context.now, rescheduling: context.scheduler())
            guard let result else { throw CLIError("no person has the id '\(found.id)'") }
            DaemonSignal.reload(context)
            let localizer = try await context.localizer()
            try output(
                json
                    ? JSONOutput.string(PersonOutput(result.person), pretty: true)
                    : localizer(.personExcluded(name: SafeText.line(result.person.name)))
            )
        }
    }
}
