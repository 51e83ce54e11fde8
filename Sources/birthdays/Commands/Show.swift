import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            _superCommandName: "birthdays",
            abstract: "Show one person: dates, next birthday and anniversary, age (what a click on a reminder shows).",
            discussion: """
                PERSON is an id (as stored, or its public p-… form), a reminder's id (r-3f9c from 'birthdays pending'), \
                or a name or part of one, in any case ('ada'). When it fits several people, each is listed with its id; \
                when it fits nobody, the closest names are suggested.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, a reminder id, or a name or part of one.", valueName: "person"), completion: Completions.people)
        var person: String

        @Flag(help: "Print the person as a JSON object.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            // A card shown as another person (issue 43) finds that person, shown with the birthday chosen among their cards.
            var found = try await context.person(matching: person)
            let origins = try await context.database.origins(of: found.id)
            found.birthday = origins.birthday ?? found.birthday
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let today = LocalDate.today(at: context.now, in: zone)
            let nameDays = try await context.database.nameDays(for: settings)
            if json {
                let ids = try await context.database.publicIDs()
                var shown = ShowOutput(found, publicID: ids.person(found.id), today: today, settings: settings, nameDays: nameDays)
                shown.person.cards = origins.cards.map { PersonOutput.Card(source: $0.source, uid: $0.uid, id: $0.id) }
                shown.birthdayChoice = ShowOutput.BirthdayChoice(origins)
                try output(JSONOutput.string(shown, pretty: true))
                return
            }
            try output(SafeText.line(found.name))
            try output(localizer(.showID(found.id)))
            // Where a person of several cards comes from, and whose date they have when the cards disagree.
            if origins.cards.count > 1 {
                for card in origins.cards { try output(SafeText.line(localizer(.showCard(source: card.source, uid: card.uid ?? card.id)))) }
            }
            if let disagreement = origins.disagreement, let used = origins.cards.first(where: { $0.id == disagreement.card }) {
                // Each date with its card, by source and uid: two cards of one source are told apart.
                let dates = origins.cards.compactMap { card in
                    card.birthday.map { localizer(.showDateOfCard(Wording.date($0), source: card.source, uid: card.uid ?? card.id)) }
                }
                try output(SafeText.line(localizer(.showDatesDisagree(ListJoin.and(dates, in: localizer)))))
                // The card by its source and uid: two cards of one source are told apart (`show --json`'s `"used"` is its id).
                let card = localizer(.showCardNamed(source: used.source, uid: used.uid ?? used.id))
                try output(SafeText.line(localizer(.showDatesUsed(from: card, because: disagreement.reason))))
            }
            // Name days from the lists of the `name-days` setting are shown like the card's labelled dates.
            var shown = found
            shown.labelledDates += nameDays.events(of: found, label: localizer(.plain(.nameDayLabel)))
            let lines = PersonDetails.lines(for: shown, today: today, leapDay: settings.leapDay, anniversaries: settings.anniversaries, in: localizer)
            for item in lines {
                try output(item)
            }
            if let zone = Message.showZone(of: found) { try output(localizer(zone)) }
            for point in found.contactPoints {
                try output(SafeText.line(localizer(.showContact(point))))
            }
            let source = "\(SafeText.line(found.source.file)):\(found.source.line)"
            for raw in found.invalidDates {
                try output(localizer(.showUnreadable(SafeText.quoted("'" + raw + "'"), source: source)))
            }
        }
    }
}

/// `birthdays show --json`: the person exactly as `people --json` lists
/// them, then their public id, where they were read from, and their next
/// occurrences.
struct ShowOutput: Encodable {
    struct Source: Encodable {
        var file: String
        var line: Int
    }

    struct Next: Encodable {
        var kind: String
        var date: String
        var days_until: Int
        var age: Int?
        /// The label of a labelled date (kind `labelled`); absent for the others.
        var label: String?
    }

    /// When a person's linked cards disagree on the birthday (issue 43): each card's date, whose is used and why.
    struct BirthdayChoice: Encodable {
        struct Card: Encodable {
            var source: String
            var uid: String?
            var id: String
            var date: String?
        }

        var cards: [Card]
        /// The id of the card whose date the person has.
        var used: String
        /// `date-from`, `year`, `changed` or `order` (``BirthdayCore/BirthdayChoice/Reason``).
        var reason: String

        init?(_ origins: PersonOrigins) {
            guard let disagreement = origins.disagreement else { return nil }
            cards = origins.cards.map { Card(source: $0.source, uid: $0.uid, id: $0.id, date: $0.birthday?.description) }
            used = disagreement.card
            reason =
                switch disagreement.reason {
                case .dateFrom: "date-from"
                case .year: "year"
                case .changed: "changed"
                case .order: "order"
                }
        }
    }

    var person: PersonOutput
    var public_id: String
    var source: Source
    var next: [Next]
    var birthdayChoice: BirthdayChoice?

    init(_ person: Person, publicID: String, today: LocalDate, settings: Settings, nameDays: NameDaySetup) {
        self.person = PersonOutput(person)
        public_id = publicID
        source = Source(file: person.source.file, line: person.source.line)
        let upcoming = UpcomingEvents(today: today, settings: settings, nameDays: nameDays)
        next = upcoming.occurrences(of: person).map {
            Next(kind: $0.kind.rawValue, date: $0.date.description, days_until: $0.daysUntil, age: $0.age, label: $0.labelled?.label)
        }
    }

    /// The person's keys first, in `people --json` order, then this command's own.
    func encode(to encoder: any Encoder) throws {
        try person.encode(to: encoder)
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(public_id, forKey: JSONKey("public_id"))
        try container.encode(source, forKey: JSONKey("source"))
        try container.encode(next, forKey: JSONKey("next"))
        try container.encode(birthdayChoice, forKey: JSONKey("birthday_choice"))
    }
}
