import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand.Sources {
    struct SourcesRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Stop following a source; its people leave the store unless kept.",
            discussion: """
                People another source has, or that an import brought, stay. With --keep-people the source's people \
                stay as if imported: no sync removes them any more.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The source's name (see 'birthdays sources list').", completion: Completions.sources)
        var name: String

        @Flag(help: "Keep the source's people in the store.")
        var keepPeople = false

        func run() async throws {
            let context = try Context(global)
            let removed: Int
            do {
                removed = try await context.database.removeSource(
                    named: name,
                    keepPeople: keepPeople,
                    now: context.now,
                    systemTimeZone: context.systemTimeZone,
                    systemLocale: context.systemLocale
                )
            } catch {
                throw CLIError(error.description)
            }
            let localizer = try await context.localizer()
            let source = SafeText.line(name)
            try output(localizer(keepPeople ? .sourcesRemovedKept(source: source) : .sourcesRemoved(source: source, peopleLeft: removed)))
        }
    }
}
