import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Exclude: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exclude",
            abstract: "Leave a person out: no reminders, no feed events (imports keep this choice).",
            discussion: """
                Undo it with: birthdays include PERSON. It wins over a card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR either way. \
                --group NAME or --source NAME leaves out everyone in a group or a source instead, kept by the name as \
                people join and leave it; a rule on a person wins, and an include of another of their groups or sources \
                takes them back in. The dates are kept: show and people still list them.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String?

        @OptionGroup var shared: SharedRuleOptions

        @Flag(help: "Print the person as `people --json` does (with --group or --source: the rule).")
        var json = false

        func validate() throws { try shared.validate(person: person) }

        func run() async throws {
            let context = try Context(global)
            if let scope = try await context.scope(shared) {
                try await context.setSharedExclusion(.exclude, for: scope, json: json)
            } else if let person {
                try await context.setExclusion(.exclude, of: person, json: json)
            }
        }
    }
}

extension Context {
    /// `birthdays exclude` and `include`: records `choice` for the person
    /// `query` names, tells a running daemon, and prints the person
    /// (`people --json`'s object) or one sentence.
    func setExclusion(_ choice: Exclusion.Choice, of query: String, json: Bool) async throws {
        let found = try await person(matching: query)
        let result = try await database.setExclusion(choice, personID: found.id, now: now, rescheduling: scheduler())
        guard let result else { throw CLIError("no person has the id '\(found.id)'") }
        let localizer = try await localizer()
        let name = SafeText.line(result.person.name)
        try output(
            json
                ? JSONOutput.string(PersonOutput(result.person), pretty: true)
                : localizer(choice == .exclude ? .personExcluded(name: name) : .personIncluded(name: name))
        )
    }
}
