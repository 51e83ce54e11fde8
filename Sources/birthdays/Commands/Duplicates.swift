import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Duplicates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "duplicates",
            _superCommandName: "birthdays",
            abstract: "List the people that may be one person (the same name and birthday, nothing shared), most certain first.",
            discussion: """
                Cards that share a UID, or an e-mail address or phone number with names and birthdays that agree, are \
                already one person. These are the rest that look alike: make one person of them with \
                birthdays link ID ID, or leave them.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array of {\"ids\": [...], \"reason\": ...}.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let suggestions = try await context.database.duplicates()
            let localizer = try await context.localizer()
            if json {
                let objects = suggestions.map { DuplicateOutput(ids: $0.ids, reason: localizer(.linkReason($0.reason))) }
                try output(JSONOutput.string(objects, pretty: true))
                return
            }
            guard !suggestions.isEmpty else {
                try output("No duplicates to suggest.")
                return
            }
            let lines = suggestions.map { suggestion in
                let people = zip(suggestion.ids, suggestion.names).map { "\(SafeText.line($1)) (\($0))" }
                return people.joined(separator: ", ") + ": " + localizer(.linkReason(suggestion.reason))
                    + "\n  birthdays link " + suggestion.ids.joined(separator: " ")
            }
            try output(lines.joined(separator: "\n"))
        }
    }
}

/// One suggestion of `duplicates --json`.
struct DuplicateOutput: Encodable {
    var ids: [String]
    var reason: String
}
