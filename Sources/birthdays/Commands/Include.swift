import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Include: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a person back in after `exclude`, or despite their card's exclusion (imports keep this choice).",
            discussion: "A card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR no longer leaves them out; birthdays exclude PERSON does again."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        func run() async throws {
            try await Context(global).setExclusion(.include, of: person, json: json)
        }
    }
}
