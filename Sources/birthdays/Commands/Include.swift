import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Include: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "include",
            _superCommandName: "birthdays",
            abstract: "Take a person back in after `exclude`, or despite their card's exclusion (imports keep this choice).",
            discussion: """
                A card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR no longer leaves them out; birthdays exclude PERSON does again. \
                --group NAME or --source NAME takes in everyone in a group or a source instead, even when another of their \
                groups or sources is excluded (a rule on a person, or the card's exclusion, still wins). --label TEXT \
                takes in the dates cards keep under that label, whatever the labelled-dates setting.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String?

        @OptionGroup var shared: SharedRuleOptions

        @Option(
            help: ArgumentHelp(
                "A team room (see birthdays announce list): take the person back in, for that room's messages only.",
                valueName: "room"
            )
        )
        var announce: String?

        @Option(
            help: ArgumentHelp(
                "The label of dates the cards keep (\"Started work\", any case) instead of a person: their dates remind and are in the feed, even with labelled-dates off.",
                valueName: "text"
            )
        )
        var label: String?

        @Flag(help: "Print the person as `people --json` does (with --group or --source: the rule).")
        var json = false

        /// What the command names (``ExclusionTarget``).
        var target: ExclusionTarget { ExclusionTarget(person: person, shared: shared, announce: announce, label: label) }

        func validate() throws { try target.validate() }

        func run() async throws { try await Context(global).set(.include, for: target, json: json) }
    }
}
