import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Zone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "zone",
            _superCommandName: "birthdays",
            abstract: "Choose the time zone a person's birthday begins in (imports keep this choice).",
            discussion: """
                ZONE is an IANA name (Asia/Tokyo) or a UTC offset (+09:00, -0500, +05:45); local makes the person's \
                reminders follow your own zone whatever their card says. The choice wins over the card's TZ; --default \
                gives the card its say again. Someone in another zone gets the day-of reminder when their birthday has \
                begun where they are (see docs/reminders.md, "Their own time zone").
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String

        @Argument(
            help: ArgumentHelp("An IANA zone such as Asia/Tokyo, an offset such as +09:00, or local.", valueName: "zone"),
            completion: .list(["local"] + TimeZone.knownTimeZoneIdentifiers.sorted())
        )
        var zone: String?

        @Flag(name: .customLong("default"), help: "Forget the choice: the card's TZ decides again (none: your own zone).")
        var useDefault = false

        @Flag(help: "Print the person as `people --json` does.")
        var json = false

        /// The choice ZONE names; `nil` with `--default`.
        var choice: ZoneChoice? {
            guard !useDefault, let zone else { return nil }
            return ZoneChoice(storedValue: zone)
        }

        func validate() throws {
            if useDefault && zone != nil { throw ValidationError("give a ZONE or --default, not both") }
            guard useDefault || zone != nil else {
                throw ValidationError("give a ZONE (e.g. Asia/Tokyo or +09:00), local, or --default")
            }
            if let zone, choice == nil {
                throw ValidationError(
                    "'\(SafeText.line(zone))' is not a time zone; give an IANA name such as Asia/Tokyo, an offset such as +09:00, or local"
                )
            }
        }

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            let result = try await context.database.setZoneChoice(choice, personID: found.id, now: context.now, rescheduling: context.scheduler())
            guard let result else { throw CLIError("no person has the id '\(found.id)'") }
            // What the lookup read (groups, contact points), with the choice as now stored.
            var shown = found
            shown.zoneChoice = result.person.zoneChoice
            if json {
                try output(JSONOutput.string(PersonOutput(shown), pretty: true))
                return
            }
            let localizer = try await context.localizer()
            try output(localizer(.personZone(name: SafeText.line(shown.name), choice: shown.zoneChoice, cardZone: shown.cardZone)))
        }
    }
}
