import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "people",
            _superCommandName: "birthdays",
            abstract: "List everyone in the store with their ids and dates, or those whose name contains PERSON.",
            discussion: "PERSON is compared ignoring case and accents ('ada' lists Ada Lovelace and Adam); an id or p-… id lists that person."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Only people whose name contains this (or with this id).", valueName: "person"), completion: Completions.people)
        var person: String?

        @Option(help: ArgumentHelp("Only the people in this group (see birthdays groups).", valueName: "name"), completion: Completions.groups)
        var group: String?

        @Flag(help: "Only the people kept without any date (not reminded, not in the feed).")
        var undated = false

        @Flag(help: "Print a JSON array.")
        var json = false

        func validate() throws {
            if person != nil && group != nil { throw ValidationError("give PERSON or --group, not both") }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            var people: [Person]
            if group != nil, case .group(let name)? = try await context.scope(group: group, source: nil) {
                people = try await context.database.people(inGroup: name)
            } else if let person {
                people = try await context.database.people(matching: person)
                if people.isEmpty { throw CLIError(PersonChoice.notFound(person, try await context.database.suggestions(for: person))) }
            } else {
                people = try await context.database.people()
            }
            // One person of several cards once, with the birthday chosen among them (issue 43).
            let linked = try await context.database.personCards()
            people = people.compactMap { person in
                guard !linked.hidden.contains(person.id) else { return nil }
                var person = person
                person.birthday = linked.birthdays[person.id] ?? person.birthday
                return person
            }
            if undated { people = people.filter(\.isUndated) }
            if json {
                let objects = people.map { person in
                    var object = PersonOutput(person)
                    object.cards = (linked.cards[person.id] ?? []).map { PersonOutput.Card(source: $0.source, uid: $0.uid, id: $0.id) }
                    return object
                }
                try output(JSONOutput.string(objects, pretty: true))
                return
            }
            guard !people.isEmpty else {
                if undated {
                    try output("Everyone has a date.")
                    return
                }
                try output("No people yet. Import an export with: birthdays import contacts.vcf")
                return
            }
            // Dates in other calendars get a column when anyone has one: `birthday chinese 0078-0002-11-01`.
            let otherCalendars = people.contains { !$0.alternateDates.isEmpty }
            let rows = people.map { person in
                [
                    person.id,
                    PersonChoice.display(person),
                    person.birthday.map(Wording.date) ?? "-",
                    person.anniversary.map(Wording.date) ?? "-",
                ]
                    + (otherCalendars ? [person.alternateDates.isEmpty ? "-" : person.alternateDates.map(\.description).joined(separator: ", ")] : [])
                    + [PersonOutput.notes(person)]
            }
            let header = ["ID", "NAME", "BIRTHDAY", "ANNIVERSARY"] + (otherCalendars ? ["OTHER CALENDARS"] : []) + [""]
            // Names and the last column (unreadable dates) may be cut to fit; ids and dates never.
            try output(Table.render(rows, header: header, shrinkable: [1, header.count - 1]))
        }
    }
}
