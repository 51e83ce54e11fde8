import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Note: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "note",
            _superCommandName: "birthdays",
            abstract: "Keep a short note for a person's day (a gift idea), or clear it.",
            discussion: """
                The note is yours: no import or sync changes it, and the card's own NOTE is not used. show, upcoming --json, \
                the desktop reminder and the digest carry it; e-mail, ntfy, Gotify, Apprise and the published calendar only \
                after: birthdays settings set notes-on-channels on. It is never logged. A week ahead to buy the present: \
                birthdays remind PERSON --days 7,1,0.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String

        @Argument(help: ArgumentHelp("The note, one line of at most \(PersonNote.maximumLength) characters.", valueName: "text"))
        var text: String?

        @Flag(help: "Remove the person's note.")
        var clear = false

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        func validate() throws {
            if clear && text != nil { throw ValidationError("give a TEXT or --clear, not both") }
            guard clear || text != nil else { throw ValidationError("give the note's TEXT, or --clear") }
        }

        func run() async throws {
            var note: String?
            if let text {
                do {
                    note = try PersonNote.normalized(text)
                } catch {
                    throw CLIError(error.description)
                }
            }
            let context = try Context(global)
            let found = try await context.person(matching: person)
            guard try await context.database.setNote(note, personID: found.id, now: context.now, rescheduling: context.scheduler()) != nil else {
                throw CLIError("no person has the id '\(found.id)'")
            }
            var shown = found
            shown.note = note
            if json {
                try output(JSONOutput.string(PersonOutput(shown), pretty: true))
                return
            }
            let localizer = try await context.localizer()
            try output(localizer(.personNote(name: SafeText.line(shown.name), note: note.map { SafeText.line($0) })))
        }
    }
}
