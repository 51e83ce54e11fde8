import BirthdayCore
import Foundation
import GRDB

/// People that may be one, as `birthdays duplicates` lists them.
package struct DuplicateSuggestion: Sendable, Hashable {
    /// The person ids `link` takes, one per person (the id each is shown as).
    package var ids: [String]
    /// Their names, in the order of ``ids``.
    package var names: [String]
    package var reason: LinkReason
}

/// What `link` or `unlink` made of the people they named.
package struct LinkChange: Sendable {
    /// The cards of the person, each with the id it is shown as now, by card id.
    package var shownAs: [(card: String, shownAs: String)]
    /// The reschedule that followed, in the same transaction; `nil` without a scheduler.
    package var rescheduled: RescheduleResult?
}

extension AppDatabase {
    /// Recomputes which card is shown as which person (`personLink`) from
    /// ``PersonLinker`` over every stored person and the person's remembered
    /// decisions (`linkException`); the cards of one person are shown as the
    /// smallest of their ids, which stays as long as that card does. Runs in
    /// the caller's transaction (an import's, a sync's, `link`'s); only the
    /// rows that differ are written. Returns how many rows changed.
    @discardableResult
    static func relink(_ db: Database) throws -> Int {
        let cards = try PersonRecord.linkCards(db)
        let result = try linker(cards: cards, db).link(cards)
        var links: [String: String] = [:]
        for group in result.groups where group.cards.count > 1 {
            let ids = group.cards.map { cards[$0].key.id }
            guard let shown = ids.min() else { continue }
            for id in ids where id != shown { links[id] = shown }
        }
        return try PersonLinkRecord.replace(with: links, db)
    }

    /// The linker under the remembered decisions about `cards` (a decision
    /// about a card not stored now waits for it).
    private static func linker(cards: [LinkCard], _ db: Database) throws -> PersonLinker {
        var keys: [String: LinkCard.Key] = [:]
        for card in cards { keys[card.key.id] = card.key }
        let exceptions = try LinkExceptionRecord.all(db).compactMap { row -> LinkException? in
            guard let first = keys[row.first], let second = keys[row.second] else { return nil }
            return LinkException(row.kind, first, second)
        }
        return PersonLinker(exceptions: exceptions)
    }

    /// `birthdays duplicates`: the people that may be one, most certain first.
    package func duplicates() async throws(StoreError) -> [DuplicateSuggestion] {
        try await read { db in
            let cards = try PersonRecord.linkCards(db)
            let result = try AppDatabase.linker(cards: cards, db).link(cards)
            return result.suggestions.map { suggestion in
                let shown = suggestion.groups.compactMap { group in
                    result.groups[group].cards.map { cards[$0] }.min { $0.key.id < $1.key.id }
                }
                return DuplicateSuggestion(ids: shown.map(\.key.id), names: shown.map(\.name), reason: suggestion.reason)
            }
        }
    }

    /// `birthdays link A B …`: keeps the people `ids` together from now on
    /// (a "keep together" between the first and each other, replacing any
    /// "keep separate" between them), relinks and reschedules in one transaction.
    /// With `dateFrom`, the person's birthday is the one of their card from that source.
    ///
    /// - Returns: `nil` when one of `ids` is no stored person (nothing is written).
    package func link(
        _ ids: [String],
        dateFrom: String? = nil,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> LinkChange? {
        let change = try await write(at: now) { db -> LinkChange? in
            guard try ids.allSatisfy({ try PersonRecord.exists(db, key: $0) }), let first = ids.first else { return nil }
            // Each named person by its shown card and each of its cards: a card kept apart from another named one is brought in.
            let links = try PersonLinkRecord.all(db)
            let named = Set(ids.map { links[$0] ?? $0 })
            let cards = Set(ids).union(links.filter { named.contains($0.value) }.keys).union(named).sorted()
            for card in cards where card != first { try LinkExceptionRecord.set(.keepTogether, first, card, db) }
            if let dateFrom { try LinkExceptionRecord.setDateFrom(dateFrom, card: first, db) }
            try AppDatabase.relink(db)
            return LinkChange(shownAs: try AppDatabase.shownAs(cards, db), rescheduled: try scheduler?.reschedule(db))
        }
        if let rescheduled = change?.rescheduled { scheduler?.log(rescheduled) }
        return change
    }

    /// `birthdays unlink PERSON`: splits the person `id` is (or is shown as)
    /// back into its cards, and keeps them apart from now on (a "keep
    /// separate" between each two of them, replacing any "keep together");
    /// relinks and reschedules in one transaction.
    ///
    /// - Returns: `nil` when `id` is no stored person (nothing is written).
    package func unlink(
        _ id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> LinkChange? {
        let change = try await write(at: now) { db -> LinkChange? in
            guard try PersonRecord.exists(db, key: id) else { return nil }
            let links = try PersonLinkRecord.all(db)
            let shown = links[id] ?? id
            let cards = ([shown] + links.filter { $0.value == shown }.map(\.key)).sorted()
            for (index, card) in cards.enumerated() {
                try LinkExceptionRecord.forgetTogether(card, db)
                for other in cards[(index + 1)...] { try LinkExceptionRecord.set(.keepSeparate, card, other, db) }
            }
            try AppDatabase.relink(db)
            return LinkChange(shownAs: try AppDatabase.shownAs(cards, db), rescheduled: try scheduler?.reschedule(db))
        }
        if let rescheduled = change?.rescheduled { scheduler?.log(rescheduled) }
        return change
    }

    /// Each of `cards` with the id it is shown as.
    private static func shownAs(_ cards: [String], _ db: Database) throws -> [(card: String, shownAs: String)] {
        let links = try PersonLinkRecord.all(db)
        return cards.map { (card: $0, shownAs: links[$0] ?? $0) }
    }
}

/// One card of a person, as `people --json` lists it under `"cards"`.
package struct LinkedCard: Sendable, Hashable {
    /// The source's name, else the name of the file it was imported from.
    package var source: String
    /// The card's `UID`; `nil` for a card without one (a CSV row).
    package var uid: String?
    /// The stored id of the card (the id `unlink` and `link` take).
    package var id: String
}

/// Who is one person of which cards (``AppDatabase/personCards()``).
package struct PeopleCards: Sendable {
    /// Each person's cards, the person's own first, by the id the person is shown as.
    package var cards: [String: [LinkedCard]]
    /// The cards shown as another person: `people` lists them under that person, not on their own.
    package var hidden: Set<String>
    /// The birthday chosen among their cards, for people of several cards that have one.
    package var birthdays: [String: EventDate]
}

extension AppDatabase {
    /// Every person's cards, and which cards are shown as another person.
    package func personCards() async throws(StoreError) -> PeopleCards {
        try await read { db in
            let links = try PersonLinkRecord.all(db)
            var cards: [String: [LinkedCard]] = [:]
            for card in try PersonRecord.linkCards(db) {
                let shown = links[card.key.id] ?? card.key.id
                let entry = LinkedCard(source: card.key.source, uid: card.uid, id: card.key.id)
                if shown == card.key.id { cards[shown, default: []].insert(entry, at: 0) } else { cards[shown, default: []].append(entry) }
            }
            return PeopleCards(cards: cards, hidden: Set(links.keys), birthdays: try PersonLinks.read(db).birthdays)
        }
    }
}
