import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link",
            _superCommandName: "birthdays",
            abstract: "Make one person of two or more people (their cards stay as they are).",
            discussion: """
                The decision is remembered by the cards' ids, so every later import and sync keeps them together. \
                Undo it with: birthdays unlink PERSON. See birthdays duplicates for people that look alike.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("Two or more ids, reminder ids, or names (any case).", valueName: "person"),
            completion: Completions.people
        )
        var people: [String] = []

        @Option(
            name: .customLong("date-from"),
            help: ArgumentHelp("The source (or imported file's name) whose card gives the person's birthday.", valueName: "source")
        )
        var dateFrom: String?

        func validate() throws {
            if people.count < 2 { throw ValidationError("name two or more people to link, such as: birthdays link ID ID") }
        }

        func run() async throws {
            let context = try Context(global)
            var ids: [String] = []
            for query in people { ids.append(try await context.person(matching: query).id) }
            guard let change = try await context.database.link(ids, dateFrom: dateFrom, now: context.now, rescheduling: context.scheduler()) else {
                throw CLIError("no person has one of the ids '\(ids.joined(separator: "', '"))'")
            }
            try output(LinkWords.summary(change))
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlink",
            _superCommandName: "birthdays",
            abstract: "Split a person back into their cards, and keep them apart from now on.",
            discussion: "Remembered by the cards' ids, so no later import or sync links them again; birthdays link takes it back."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, a reminder id, or a name (any case).", valueName: "person"), completion: Completions.people)
        var person: String

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            guard let change = try await context.database.unlink(found.id, now: context.now, rescheduling: context.scheduler()) else {
                throw CLIError("no person has the id '\(found.id)'")
            }
            try output(LinkWords.summary(change))
        }
    }
}

/// What `link` and `unlink` print: one line per card, with the person it is shown as.
enum LinkWords {
    static func summary(_ change: LinkChange) -> String {
        let people = Set(change.shownAs.map(\.shownAs)).count
        let head = people == 1 ? "One person of \(change.shownAs.count) cards:" : "\(people) people:"
        return ([head] + change.shownAs.map { "  \($0.card) shown as \($0.shownAs)" }).joined(separator: "\n")
    }
}
