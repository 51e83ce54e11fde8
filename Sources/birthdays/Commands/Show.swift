import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one person: dates, next birthday and anniversary, age (what a click on a reminder shows)."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A person id (as stored, or its public p-… form), or their exact name.")
        var person: String

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let found: Person
            if let byID = try await context.database.person(id: person) {
                found = byID
            } else if PublicID.looksPublic(person), person.hasPrefix("p-") {
                let ids = try await context.database.publicIDs()
                guard let byPublicID = try await context.database.people().first(where: { ids.person($0.id) == person }) else {
                    throw CLIError("no person has the id '\(person)'")
                }
                found = byPublicID
            } else {
                let matches = try await context.database.people().filter { $0.name.caseInsensitiveCompare(person) == .orderedSame }
                guard let first = matches.first else { throw CLIError("no person has the id or name '\(person)'") }
                guard matches.count == 1 else {
                    throw CLIError("\(matches.count) people are named '\(person)'; use an id: \(matches.map(\.id).joined(separator: ", "))")
                }
                found = first
            }
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            try output(SafeText.line(found.name))
            try output(localizer(.showID(found.id)))
            let today = LocalDate.today(at: context.now, in: zone)
            let lines = PersonDetails.lines(for: found, today: today, leapDay: settings.leapDay, anniversaries: settings.anniversaries, in: localizer)
            for item in lines {
                try output(item)
            }
        }
    }
}
