import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Include: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "include",
            abstract: "Take a person back in after `exclude`, or despite their card's exclusion (imports keep this choice).",
            discussion: """
                A card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR no longer leaves them out; birthdays exclude PERSON does again. \
                --group NAME or --source NAME takes in everyone in a group or a source instead, even when another of their \
                groups or sources is excluded (a rule on a person, or the card's exclusion, still wins).
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
                try await context.setSharedExclusion(.include, for: scope, json: json)
            } else if let person {
                try await context.setExclusion(.include, of: person, json: json)
            }
        }
    }
}
