import BirthdayCore
import Foundation
import GRDB

/// A person already there that a name and a date may be (``PeopleByName``).
package struct PersonMatch: Sendable, Hashable {
    /// The id the person is shown as (the one `show` and `--as` take).
    package var id: String
    package var name: String
    /// Where the person comes from: the source that holds their card, else the file it was imported from.
    package var source: String
    /// The person's birthday (the one chosen among their cards); `nil` when undated.
    package var birthday: EventDate?
}

/// The people already there, to find who a name and a date that come
/// without a card are (core's ``NameMatcher``): an invitation's answer, a
/// birthday calendar's event. Each person once, as the id they are shown as,
/// with all their cards.
struct PeopleByName {
    let people: [PersonMatch]
    let matcher: NameMatcher

    /// Reads every stored person, leaving out the cards `excluded` says to leave out.
    static func read(_ db: Database, excluding excluded: (String) -> Bool = { _ in false }) throws -> PeopleByName {
        let links = try PersonLinkRecord.all(db)
        var order: [String] = []
        var cards: [String: [LinkCard]] = [:]
        for card in try PersonRecord.linkCards(db) where !excluded(card.key.id) {
            let shown = links[card.key.id] ?? card.key.id
            if cards[shown] == nil { order.append(shown) }
            // The card shown as the person first: it names them.
            if shown == card.key.id { cards[shown, default: []].insert(card, at: 0) } else { cards[shown, default: []].append(card) }
        }
        let chosen = links.isEmpty ? [:] : try PersonLinks.read(db).birthdays
        let groups = order.map { cards[$0] ?? [] }
        let people = zip(order, groups).map { id, group in
            PersonMatch(id: id, name: group.first?.name ?? "", source: group.first?.key.source ?? "", birthday: chosen[id] ?? group.first?.birthday)
        }
        return PeopleByName(people: people, matcher: NameMatcher(people: groups))
    }

    /// The people `name`, born on `birthday`, may be (``NameMatcher/matches(name:birthday:)``).
    func matches(name: String, birthday: EventDate?) -> [PersonMatch] {
        matcher.matches(name: name, birthday: birthday).map { people[$0] }
    }
}
