import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Groups: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "groups",
            _superCommandName: "birthdays",
            abstract: "List the groups of your contacts, how many people each holds, and its rule.",
            discussion: """
                Groups come from the cards: CATEGORIES, Google's labels, Outlook's categories, and group cards (Apple's, \
                vCard 4 KIND:group). Give a group a rule with exclude --group, include --group or remind --group; a rule \
                on a person wins over it. A group with a rule is listed even while nobody is in it. The rules of whole \
                sources (exclude --source) follow the groups in the text output.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        /// One element of `groups --json`.
        struct Listed: Encodable {
            var name: String
            var people: Int
            /// `"exclude"`, `"include"`, or `null`.
            var exclusion: String?
            /// The group's reminder days (`[7, 1, 0]`); `null` when it has none.
            var reminder_days: [Int]?
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let groups = try await context.database.groups()
            if json {
                let listed = groups.map {
                    Listed(name: $0.name, people: $0.people, exclusion: $0.rule?.exclusion?.rawValue, reminder_days: $0.rule?.reminderDays?.days)
                }
                try output(JSONOutput.string(listed, pretty: true))
                return
            }
            if groups.isEmpty {
                try output("No groups yet: no card says it is in one (CATEGORIES, labels, group cards).")
            } else {
                let rows = groups.map { [SafeText.line($0.name), String($0.people), SharedRuleOutput.words($0.rule)] }
                try output(Table.render(rows, header: ["GROUP", "PEOPLE", "RULE"], shrinkable: [0]))
            }
            // The rules of whole sources rank with the groups' (exclude --source), so they are listed here too.
            let sources = try await context.database.sourceRules()
            if !sources.isEmpty {
                try output("")
                let rows = sources.map { [SafeText.line($0.scope.name), SharedRuleOutput.words($0)] }
                try output(Table.render(rows, header: ["SOURCE", "RULE"], shrinkable: [0]))
            }
        }
    }
}
