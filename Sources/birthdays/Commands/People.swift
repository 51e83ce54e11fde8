import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List everyone in the store with their dates.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let people = try await context.database.people()
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
                    person.name.isEmpty ? "(no name)" : person.name,
                    person.birthday.map(Wording.date) ?? "-",
                    person.anniversary.map(Wording.date) ?? "-",
                    person.invalidDates.isEmpty ? "" : "unreadable: " + person.invalidDates.joined(separator: ", "),
                ]
            }
            try output(Table.render(rows, header: ["NAME", "BIRTHDAY", "ANNIVERSARY", ""]))
        }
    }
}
