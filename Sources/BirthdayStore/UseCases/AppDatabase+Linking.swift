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

/// The cards a transaction added, changed or removed, with the keys those
/// stored before held then: ``AppDatabase/relink(_:adding:changed:)`` looks
/// at their neighbourhood only. A card counts as changed when anything
/// ``PersonLinker`` reads of it may have: its row (name, nickname, birthday,
/// file), its addresses and numbers, or who has it (`sourcePerson`: its source's name).
struct ChangedCards {
    /// The cards' ids, in the order they were first recorded.
    private(set) var ids: [String] = []
    /// The keys of those stored before, as they were (the id as the key, with no source; `UID`, addresses, numbers), by id.
    private(set) var before: [String: LinkCard] = [:]
    private var known: Set<String> = []

    /// Records the card `id` as changed; `stored` is what the store held of
    /// it before the transaction wrote it (`nil` for a card it adds). The
    /// first record of a card stands: a later one may see it written already.
    mutating func record(_ id: String, stored: ContactMerge.Stored?) {
        guard known.insert(id).inserted else { return }
        ids.append(id)
        guard let stored else { return }
        var card = LinkCard(key: LinkCard.Key(source: "", id: id), uid: PersonRecord.uid(ofID: id), name: "")
        for point in stored.contactPoints {
            switch point.kind {
            case .email: card.emails.append(point.value)
            case .phone: card.phones.append(point.value)
            case .impp: break
            }
        }
        before[id] = card
    }
}

/// What `link` or `unlink` made of the people they named.
package struct LinkChange: Sendable {
    /// The cards of the person, each with the id it is shown as now, by card id.
    package var shownAs: [(card: String, shownAs: String)]
    /// The choices both a card and the person it is now shown as had made, differently: the shown person's is kept.
    package var conflicts: [ChoiceConflict] = []
    /// The reschedule that followed, in the same transaction; `nil` without a scheduler.
    package var rescheduled: RescheduleResult?
}

/// What `link` or `unlink` came to.
package enum LinkOutcome: Sendable {
    case changed(LinkChange)
    /// An id is no stored person (nothing is written).
    case noPerson
    /// `link --date-from` names a source none of the cards comes from; the sources they come from (nothing is written).
    case notTheirSource(sources: [String])
    /// `unlink --card` names no card of the person (nothing is written).
    case notTheirCard(CardMiss)

    /// Why `--card SOURCE:UID` names no card of the person.
    package enum CardMiss: Sendable, Equatable {
        /// No card of the person comes from that source; the sources they come from.
        case source(sources: [String])
        /// The person has cards from `source`, none with that uid; theirs.
        case uid(source: String, uids: [String])
    }
}

extension AppDatabase {
    /// Recomputes which card is shown as which person (`personLink`) from
    /// ``PersonLinker`` over every stored person and the person's remembered
    /// decisions (`linkException`); the cards of one person are shown as the
    /// smallest of their ids, which stays as long as that card does. Runs in
    /// the caller's transaction (an import's, a sync's, `link`'s); only the
    /// rows that differ are written. The choices a card newly shown as
    /// another person had made go with it (``PersonRecord/carryChoices(_:_:)``);
    /// returns those both had made differently.
    ///
    /// Only the cards that may be linked at all are read whole and given to
    /// the linker (``PersonLinker/mayLink(_:)`` over everyone's ids,
    /// addresses and numbers): everyone else is a person alone. The keys of
    /// the people the same transaction just `added` are taken as they were
    /// written, not read back: only the people stored before are read. When
    /// the rows after `added.after` are not exactly those (a person written
    /// in between), everyone is read, so no card is left out or read twice.
    ///
    /// With the cards the transaction `changed` (every card it added,
    /// changed or removed, and what it held before), when they are few (at
    /// most a 32nd of the store, or 64), only their neighbourhood is read
    /// and linked (``PersonLinker/neighbourhood(of:before:in:limit:)``, of
    /// as many cards at most), and only its rows are compared and written: the same rows and
    /// conflicts as relinking everyone, as long as `personLink` was what
    /// relinking everyone gives before the transaction and `linkKey` holds
    /// every card's keys, which `internal.links.index` says
    /// (``LinkKeyRecord/isWhole(_:)``: set by the last relink, at the data
    /// revision this transaction started from, under the linker's rules of
    /// now). The first such relink after it was
    /// not (a new database, an import of many cards, `link`, `unlink`, an
    /// accepted invitation, any other write of an event since the last
    /// relink, a card written by an older version, a change of the linker's
    /// rules: ``PersonLinker/rulesVersion``) relinks everyone and
    /// makes the table whole from the keys it read; one whose neighbourhood
    /// is larger than the limit relinks everyone. A relink without `changed`
    /// or with many says the table is not whole any more.
    @discardableResult
    static func relink(_ db: Database, adding added: AddedLinkKeys? = nil, changed: ChangedCards? = nil) throws -> [ChoiceConflict] {
        try relinked(db, adding: added, changed: changed).conflicts
    }

    /// How ``relink(_:adding:changed:)`` went.
    enum Relinked: Equatable {
        /// Everyone was relinked; `linkKey` is whole now or not, as `internal.links.index` says.
        case everyone
        /// The neighbourhood of the changed cards, of so many cards.
        case neighbourhood(cards: Int)
        /// Everyone, though `linkKey` was whole: the neighbourhood was larger than the limit.
        case everyoneAroundMany
        /// Everyone, though `linkKey` was whole: a stored link crossed the neighbourhood's edge (never, while the
        /// links are what linking everyone gives: this keeps a store whose links are not from giving wrong ones).
        case everyoneAcrossTheEdge
    }

    /// ``relink(_:adding:changed:)``, and how it went.
    static func relinked(
        _ db: Database,
        adding added: AddedLinkKeys? = nil,
        changed: ChangedCards? = nil
    ) throws -> (conflicts: [ChoiceConflict], how: Relinked) {
        if let changed, let relinked = try relink(around: changed, adding: added, db) {
            // The links and the table follow every card now; said last, at the revision this transaction leaves so far.
            try LinkKeyRecord.keep(db)
            return relinked
        }
        let conflicts = try relinkEveryone(adding: added, db).conflicts
        // The cards changed without `linkKey` following them (or in numbers): it is made whole again by the next small change.
        try LinkKeyRecord.keepLinksOnly(db)
        return (conflicts, .everyone)
    }

    /// ``relink(_:adding:changed:)`` of the neighbourhood of the cards
    /// `changed`; `nil`, having written nothing, when they are too many.
    private static func relink(
        around changed: ChangedCards,
        adding added: AddedLinkKeys?,
        _ db: Database
    ) throws -> (conflicts: [ChoiceConflict], how: Relinked)? {
        let limit = max(64, try PersonRecord.roughCount(db) / 32)
        guard changed.ids.count <= limit else { return nil }
        guard try LinkKeyRecord.isWhole(db) else {
            let (conflicts, keys) = try relinkEveryone(adding: added, db)
            try LinkKeyRecord.rebuild(from: keys, db)
            return (conflicts, .everyone)
        }
        try LinkKeyRecord.replace(before: Array(changed.before.values), now: changed.ids, db)
        guard
            let area = try PersonLinker().neighbourhood(of: changed.ids, before: changed.before, in: StoredLinkKeys(db: db), limit: limit)
        else {
            // A neighbourhood of many (an address a crowd holds): everyone; the table follows the cards still.
            return (try relinkEveryone(adding: added, db).conflicts, .everyoneAroundMany)
        }
        let cards = try PersonRecord.linkCards(full: area.linked, db)
        guard let written = try PersonLinkRecord.replace(with: try links(of: cards, db), among: area.cards, db) else {
            return (try relinkEveryone(adding: added, db).conflicts, .everyoneAcrossTheEdge)
        }
        return (try PersonRecord.carryChoices(written, db), .neighbourhood(cards: area.cards.count))
    }

    /// ``relink(_:adding:changed:)`` of everyone; with the keys it read of everyone (``PersonRecord/linkKeys(upTo:_:)``).
    private static func relinkEveryone(adding added: AddedLinkKeys?, _ db: Database) throws -> (conflicts: [ChoiceConflict], keys: [LinkCard]) {
        let keys: [LinkCard]
        if let added, try PersonRecord.count(after: added.after, db) == added.cards.count {
            keys = added.after > 0 ? try PersonRecord.linkKeys(upTo: added.after, db) + added.cards : added.cards
        } else {
            keys = try PersonRecord.linkKeys(db)
        }
        let conflicts = try PersonRecord.carryChoices(try PersonLinkRecord.replace(with: try links(ofEveryone: keys, db), db), db)
        return (conflicts, keys)
    }

    /// Which stored card is shown as which other (card id → the smallest id
    /// of its person), linking everyone, `keys` every stored card's keys
    /// (``PersonRecord/linkKeys(_:)``): only the cards that may be linked at all are read whole and linked.
    private static func links(ofEveryone keys: [LinkCard], _ db: Database) throws -> [String: String] {
        let decided = try LinkExceptionRecord.all(db).map {
            LinkException($0.kind, LinkCard.Key(source: "", id: $0.first), LinkCard.Key(source: "", id: $0.second))
        }
        // A card's UID is its id, the store's key: no two cards hold the same.
        let scope = PersonLinker(exceptions: decided).mayLink(keys, distinctUIDs: true)
        return try links(of: try PersonRecord.linkCards(full: scope.map { keys[$0].key.id }, db), db)
    }

    /// Which of `cards` is shown as which other (card id → the smallest id of its person) as ``PersonLinker`` links them.
    private static func links(of cards: [LinkCard], _ db: Database) throws -> [String: String] {
        let result = try linker(cards: cards, db).link(cards, distinctUIDs: true)
        var links: [String: String] = [:]
        for group in result.groups where group.cards.count > 1 {
            let ids = group.cards.map { cards[$0].key.id }
            guard let shown = ids.min() else { continue }
            for id in ids where id != shown { links[id] = shown }
        }
        return links
    }

    /// The linker under the remembered decisions about `cards` (a decision
    /// about a card not stored now waits for it).
    private static func linker(cards: [LinkCard], _ db: Database) throws -> PersonLinker {
        let rows = try LinkExceptionRecord.all(db)
        guard !rows.isEmpty else { return PersonLinker() }
        // Only the cards a decision names are looked up.
        let named = Set(rows.flatMap { [$0.first, $0.second] })
        var keys: [String: LinkCard.Key] = [:]
        for card in cards where named.contains(card.key.id) { keys[card.key.id] = card.key }
        let exceptions = rows.compactMap { row -> LinkException? in
            guard let first = keys[row.first], let second = keys[row.second] else { return nil }
            return LinkException(row.kind, first, second)
        }
        return PersonLinker(exceptions: exceptions)
    }

    /// `birthdays duplicates`: the people that may be one, most certain first.
    package func duplicates() async throws(StoreError) -> [DuplicateSuggestion] {
        try await read { db in
            let (cards, result, _) = try AppDatabase.suggestions(db)
            return result.suggestions.map { suggestion in
                let shown = suggestion.groups.compactMap { group in
                    result.groups[group].cards.map { cards[$0] }.min { $0.key.id < $1.key.id }
                }
                return DuplicateSuggestion(ids: shown.map(\.key.id), names: shown.map(\.name), reason: suggestion.reason)
            }
        }
    }

    /// The suggestions between the stored people
    /// (``PersonLinker/suggest(_:people:)``), and the cards they are made
    /// of: between the people as `personLink` shows them while it is what
    /// linking everyone gives (``LinkKeyRecord/linksAreCurrent(_:)``),
    /// which needs no address or number read; else (a store no relink has
    /// followed since its last write) between the people a relink of
    /// everyone would make, as it would make them. `stored` says which it
    /// was. Without `storedLinks`, always the people a relink would make.
    static func suggestions(_ db: Database, storedLinks: Bool = true) throws -> (cards: [LinkCard], result: LinkResult, stored: Bool) {
        var (cards, people) = try PersonRecord.linkedCards(db)
        let stored = try storedLinks && LinkKeyRecord.linksAreCurrent(db)
        if !stored {
            let links = try links(ofEveryone: try PersonRecord.linkKeys(db), db)
            let shown = Set(links.values)
            var index: [String: Int] = [:]
            for (place, card) in cards.enumerated() where shown.contains(card.key.id) { index[card.key.id] = place }
            people = cards.indices.map { place in links[cards[place].key.id].flatMap { index[$0] } ?? place }
        }
        return (cards, try linker(cards: cards, db).suggest(cards, people: people), stored)
    }

    /// `birthdays link A B …`: keeps the people `ids` together from now on
    /// (a "keep together" between the first and each other card, and no
    /// "keep separate" left between any two of their cards), relinks and
    /// reschedules in one transaction. With `dateFrom`, the person's birthday
    /// is the one of their card from that source, which must be the source of
    /// one of their cards; it replaces any `dateFrom` chosen before for them.
    package func link(
        _ ids: [String],
        dateFrom: String? = nil,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> LinkOutcome {
        let outcome = try await write(at: now) { db -> LinkOutcome in
            guard try ids.allSatisfy({ try PersonRecord.exists(db, key: $0) }), let first = ids.first else { return .noPerson }
            // Each named person by its shown card and each of its cards: a card kept apart from another named one is brought in.
            let links = try PersonLinkRecord.all(db)
            let named = Set(ids.map { links[$0] ?? $0 })
            let cards = Set(ids).union(links.filter { named.contains($0.value) }.keys).union(named).sorted()
            if let dateFrom {
                let sources = Set(try PersonRecord.linkCards(ids: cards, db).map(\.key.source))
                guard sources.contains(dateFrom) else { return .notTheirSource(sources: sources.sorted()) }
            }
            // Kept together: no "keep separate" between any two of them is left to win (an earlier unlink's).
            try LinkExceptionRecord.forgetSeparate(among: cards, db)
            for card in cards where card != first { try LinkExceptionRecord.set(.keepTogether, first, card, db) }
            // One --date-from per person: the new one replaces any kept on one of their cards.
            if let dateFrom {
                for card in cards { try LinkExceptionRecord.setDateFrom(nil, card: card, db) }
                try LinkExceptionRecord.setDateFrom(dateFrom, card: first, db)
            }
            let conflicts = try AppDatabase.relink(db)
            return .changed(
                LinkChange(shownAs: try AppDatabase.shownAs(cards, db), conflicts: conflicts, rescheduled: try scheduler?.reschedule(db))
            )
        }
        if case .changed(let change) = outcome, let rescheduled = change.rescheduled { scheduler?.log(rescheduled) }
        return outcome
    }

    /// `birthdays unlink PERSON`: splits the person `id` is (or is shown as)
    /// back into its cards, and keeps them apart from now on (a "keep
    /// separate" between each two of them, replacing any "keep together");
    /// relinks and reschedules in one transaction.
    ///
    /// With `card` (`SOURCE:UID`, the uid or the stored id of a card without
    /// one: `people --json`'s `"cards"`), only that card is split off and kept
    /// apart from the others, which stay one person: when the card was what
    /// held them together (a link by hand through it, an address only it
    /// shared), they are kept together by hand from now on. When it is the
    /// card the person is shown as, the choices made on the person go to
    /// the card the others are shown as now (``PersonRecord/handOverChoices(from:to:_:)``).
    package func unlink(
        _ id: String,
        card: String? = nil,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> LinkOutcome {
        let outcome = try await write(at: now) { db -> LinkOutcome in
            guard try PersonRecord.exists(db, key: id) else { return .noPerson }
            let (shown, linked) = try PersonLinkRecord.cards(ofPerson: id, db)
            let cards = linked.sorted()
            guard let card else {
                // Greeted already this year as the person: none of the cards is greeted again as a person of its own.
                for card in cards { try GreetingSkipRecord.carryGreeted(from: shown, to: card, db) }
                for (index, card) in cards.enumerated() {
                    try LinkExceptionRecord.forgetTogether(card, db)
                    for other in cards[(index + 1)...] { try LinkExceptionRecord.set(.keepSeparate, card, other, db) }
                }
                let conflicts = try AppDatabase.relink(db)
                return .changed(
                    LinkChange(shownAs: try AppDatabase.shownAs(cards, db), conflicts: conflicts, rescheduled: try scheduler?.reschedule(db))
                )
            }
            let stored = try PersonRecord.linkCards(ids: cards, db)
            guard let split = stored.first(where: { $0.key.description == card || "\($0.key.source):\($0.uid ?? $0.key.id)" == card }) else {
                let from = stored.filter { card.hasPrefix($0.key.source + ":") }
                guard let source = from.map(\.key.source).max(by: { $0.count < $1.count }) else {
                    return .notTheirCard(.source(sources: Set(stored.map(\.key.source)).sorted()))
                }
                return .notTheirCard(.uid(source: source, uids: from.filter { $0.key.source == source }.map { $0.uid ?? $0.key.id }))
            }
            for card in cards { try GreetingSkipRecord.carryGreeted(from: shown, to: card, db) }
            let rest = cards.filter { $0 != split.key.id }
            try LinkExceptionRecord.forgetTogether(split.key.id, db)
            for other in rest { try LinkExceptionRecord.set(.keepSeparate, split.key.id, other, db) }
            // `link --date-from` kept on the card split off stays with the others.
            if let source = try LinkExceptionRecord.dateFrom([split.key.id], db)[split.key.id], rest.count > 1,
                try LinkExceptionRecord.dateFrom(rest, db).isEmpty
            {
                try LinkExceptionRecord.setDateFrom(source, card: rest[0], db)
            }
            // The card split off is the one the person was shown as, on whose row their choices are kept: the
            // person the user keeps, the other cards, keeps them on the smallest id, which they are shown as from
            // now on. Before the relink, so that what another card carries over to it meets the person's choices.
            if split.key.id == shown, let first = rest.first { try PersonRecord.handOverChoices(from: shown, to: first, db) }
            var conflicts = try AppDatabase.relink(db)
            if rest.count > 1, Set(try AppDatabase.shownAs(rest, db).map(\.shownAs)).count > 1 {
                for other in rest.dropFirst() { try LinkExceptionRecord.set(.keepTogether, rest[0], other, db) }
                conflicts += try AppDatabase.relink(db)
            }
            return .changed(
                LinkChange(shownAs: try AppDatabase.shownAs(cards, db), conflicts: conflicts, rescheduled: try scheduler?.reschedule(db))
            )
        }
        if case .changed(let change) = outcome, let rescheduled = change.rescheduled { scheduler?.log(rescheduled) }
        return outcome
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
    /// The card's birthday (only in ``PersonOrigins``).
    package var birthday: EventDate? = nil
}

/// Where a person comes from, as `show` tells it (``AppDatabase/origins(of:)``).
package struct PersonOrigins: Sendable {
    /// The id the person is shown as.
    package var shownAs: String
    /// Their cards, the one they are shown as first, each with its birthday.
    package var cards: [LinkedCard]
    /// The birthday chosen among their cards when there are several (the walk's); `nil` for one card or no date.
    package var birthday: EventDate?
    /// When cards say other dates: the card whose date the person has, and why.
    package var disagreement: Disagreement?

    package struct Disagreement: Sendable {
        /// The id of the card whose birthday is the person's.
        package var card: String
        package var reason: BirthdayChoice.Reason
        /// The source `link --date-from` named, when there is one.
        package var dateFrom: String?
    }
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
    /// Where the person `id` is (or is shown as) comes from: their cards, and
    /// which card's birthday they have when the cards disagree
    /// (``PersonLinker/birthday(of:preferring:)``, as the walk chooses it).
    package func origins(of id: String) async throws(StoreError) -> PersonOrigins {
        try await read { db in
            let (shown, ids) = try PersonLinkRecord.cards(ofPerson: id, db)
            let cards = try PersonRecord.linkCards(ids: ids, db)
            let dateFrom = try LinkExceptionRecord.dateFrom(ids, db)
            let preferred = ids.lazy.compactMap { dateFrom[$0] }.first
            let choice = cards.count > 1 ? PersonLinker.birthday(of: cards, preferring: preferred) : nil
            var disagreement: PersonOrigins.Disagreement?
            if let choice, choice.disagreement, let reason = choice.reason {
                disagreement = PersonOrigins.Disagreement(card: cards[choice.card].key.id, reason: reason, dateFrom: preferred)
            }
            return PersonOrigins(
                shownAs: shown,
                cards: cards.map { LinkedCard(source: $0.key.source, uid: $0.uid, id: $0.key.id, birthday: $0.birthday) },
                birthday: choice?.date,
                disagreement: disagreement
            )
        }
    }

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
