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
            switch try await context.database.link(ids, dateFrom: dateFrom, now: context.now, rescheduling: context.scheduler()) {
            case .changed(let change): try output(LinkWords.summary(change))
            case .noPerson: throw CLIError("no person has one of the ids '\(ids.joined(separator: "', '"))'")
            case .notTheirSource(let sources):
                throw ValidationError(
                    "--date-from '\(SafeText.line(dateFrom ?? ""))' is not a source of their cards; they come from \(LinkWords.list(sources))"
                )
            case .notTheirCard: throw CLIError("no card was named")
            }
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlink",
            _superCommandName: "birthdays",
            abstract: "Split a person back into their cards (or one card off), and keep them apart from now on.",
            discussion: """
                Remembered by the cards' ids, so no later import or sync links them again; birthdays link takes it back. \
                With --card SOURCE:UID only that card is split off; the others stay one person.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, a reminder id, or a name (any case).", valueName: "person"), completion: Completions.people)
        var person: String

        @Option(
            help: ArgumentHelp(
                "Split off only this card, as people --json lists it under \"cards\" (its source, a colon, its uid or else its id).",
                valueName: "source:uid"
            )
        )
        var card: String?

        func validate() throws {
            if let card, !card.contains(":") {
                throw ValidationError("--card '\(SafeText.line(card))' is not SOURCE:UID, such as --card icloud.vcf:ada-icloud")
            }
        }

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            if card != nil, try await context.database.origins(of: found.id).cards.count < 2 {
                throw ValidationError("\(found.id) is one card; there is nothing to split off")
            }
            switch try await context.database.unlink(found.id, card: card, now: context.now, rescheduling: context.scheduler()) {
            case .changed(let change): try output(LinkWords.summary(change))
            case .noPerson: throw CLIError("no person has the id '\(found.id)'")
            case .notTheirSource: throw CLIError("no source was named")
            case .notTheirCard(.source(let sources)):
                let source = String((card ?? "").prefix { $0 != ":" })
                throw ValidationError("'\(SafeText.line(source))' is not a source of \(found.id)'s cards; they come from \(LinkWords.list(sources))")
            case .notTheirCard(.uid(let source, let uids)):
                let uid = String((card ?? "").dropFirst(source.count + 1))
                throw ValidationError(
                    "\(found.id)'s cards from \(SafeText.line(source)) have no uid '\(SafeText.line(uid))'; theirs: \(LinkWords.list(uids))"
                )
            }
        }
    }
}

/// What `link` and `unlink` print: one line per card, with the person it is
/// shown as, then one line per choice both a card and the person it joined
/// had made differently (which value is kept).
enum LinkWords {
    static func summary(_ change: LinkChange) -> String {
        let people = Set(change.shownAs.map(\.shownAs)).count
        let head = people == 1 ? "One person of \(Wording.count(change.shownAs.count, "card", "cards")):" : "\(people) people:"
        return ([head] + change.shownAs.map { "  \($0.card) shown as \($0.shownAs)" } + change.conflicts.map(conflict))
            .joined(separator: "\n")
    }

    /// "remind --days: kept 7,1 of ada-icloud, not 3 of ada-nextcloud (still that card's own)".
    static func conflict(_ conflict: ChoiceConflict) -> String {
        let what =
            switch conflict.choice {
            case .exclusion: "exclude/include"
            case .reminderDays: "remind --days"
            case .channels: "remind --channels"
            case .weekend: "remind --weekend"
            case .zone: "zone"
            case .note: "note"
            case .greeting: "greet"
            }
        // A note is the person's own words: which one is kept, not what they say.
        let (kept, other) = conflict.choice == .note ? ("the note", "the note") : (SafeText.line(conflict.kept), SafeText.line(conflict.other))
        return "\(what): kept \(kept) of \(conflict.shownAs), not \(other) of \(conflict.card) (still that card's own)"
    }

    /// "icloud.vcf, nextcloud": names as they are stored, on one line.
    static func list(_ names: [String]) -> String { names.map { SafeText.line($0) }.joined(separator: ", ") }
}
