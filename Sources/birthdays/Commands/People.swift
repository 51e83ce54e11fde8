import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List everyone in the store with their dates.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let people = try context.database.people()
            if json {
                print(JSONValue.array(people.map(PeopleOutput.json)).serialized(pretty: true))
                return
            }
            guard !people.isEmpty else {
                print("No people yet. Import an export with: birthdays import contacts.vcf")
                return
            }
            let rows = people.map { person in
                [
                    person.name.isEmpty ? "(no name)" : person.name,
                    person.birthday.map(PeopleOutput.text) ?? "-",
                    person.anniversary.map(PeopleOutput.text) ?? "-",
                    person.invalidDates.isEmpty ? "" : "unreadable: " + person.invalidDates.joined(separator: ", "),
                ]
            }
            print(Table.render(rows, header: ["NAME", "BIRTHDAY", "ANNIVERSARY", ""]))
        }
    }
}

enum PeopleOutput {
    static func date(_ date: EventDate?) -> JSONValue {
        guard let date else { return .null }
        return .object([("month", .int(date.month)), ("day", .int(date.day)), ("year", .optional(date.year))])
    }

    static func json(_ person: Person) -> JSONValue {
        .object([
            ("id", .string(person.id)),
            ("name", .string(person.name)),
            ("birthday", date(person.birthday)),
            ("anniversary", date(person.anniversary)),
            ("invalid_dates", .array(person.invalidDates.map(JSONValue.string))),
        ])
    }

    /// "1990-05-12", or "05-12" without a year.
    static func text(_ date: EventDate) -> String {
        date.year == nil ? String(date.description.dropFirst(2)) : date.description
    }
}
