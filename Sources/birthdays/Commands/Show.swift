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
            let found = try await context.person(matching: person)
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
