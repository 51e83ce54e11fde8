import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List everyone in the store with their ids and dates, or those whose name contains PERSON.",
            discussion: "PERSON is compared ignoring case and accents ('ada' lists Ada Lovelace and Adam); an id or p-… id lists that person."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Only people whose name contains this (or with this id).", valueName: "person"))
        var person: String?

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let people: [Person]
            if let person {
                people = try await context.database.people(matching: person)
                if people.isEmpty { throw CLIError(PersonChoice.notFound(person, try await context.database.suggestions(for: person))) }
            } else {
                people = try await context.database.people()
            }
            if json {
                try output(JSONOutput.string(people.map(PersonOutput.init), pretty: true))
                return
            }
            guard !people.isEmpty else {
                try output("No people yet. Import an export with: birthdays import contacts.vcf")
                return
            }
            let rows = people.map { person in
                [
                    person.id,
                    PersonChoice.display(person),
                    person.birthday.map(Wording.date) ?? "-",
                    person.anniversary.map(Wording.date) ?? "-",
                    person.invalidDates.isEmpty ? "" : "unreadable: " + person.invalidDates.joined(separator: ", "),
                ]
            }
            try output(Table.render(rows, header: ["ID", "NAME", "BIRTHDAY", "ANNIVERSARY", ""], shrinkable: [1, 4]))
        }
    }
}
