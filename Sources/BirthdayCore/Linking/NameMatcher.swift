import Foundation

/// Who a name and a date that come without a card are among the people
/// already there: an invitation's answer, a birthday calendar's event.
///
/// A person matches when a name of one of their cards agrees with the name
/// by ``PersonLinker``'s rules (``LinkName``: order, case, accents, a middle
/// initial, a nickname the card carries) and no card of theirs has a
/// birthday that contradicts the date (``DateAgreement``: the person is
/// undated, or has the same day, a year on one side only). So a namesake
/// on another day is not them, and two people who both match are both
/// returned: the caller does not guess between them.
///
/// Only people who share a whole word of the name (or of a nickname) are
/// compared.
public struct NameMatcher: Sendable {
    /// Each person's cards' names (each with its nickname variants) and birthdays.
    private let names: [[[LinkName]]]
    private let birthdays: [[EventDate]]
    /// Whole word → the people with a card whose name (or a variant of it) has it.
    private let byWord: [String: [Int]]

    /// - Parameter people: each person as their cards (a person of one card is one).
    public init(people: [[LinkCard]]) {
        var names: [[[LinkName]]] = []
        var birthdays: [[EventDate]] = []
        var byWord: [String: [Int]] = [:]
        names.reserveCapacity(people.count)
        for (index, cards) in people.enumerated() {
            let variants = cards.map { Prepared.variants(of: LinkName($0.name), nicknames: $0.nickname.isEmpty ? [] : [LinkName($0.nickname)]) }
            var words: Set<String> = []
            for name in variants.joined() { words.formUnion(name.words) }
            for word in words { byWord[word, default: []].append(index) }
            names.append(variants)
            birthdays.append(cards.compactMap(\.birthday))
        }
        self.names = names
        self.birthdays = birthdays
        self.byWord = byWord
    }

    /// The people (by their index in what the matcher was made of, ascending)
    /// that `name`, born on `birthday`, may be (see the type's summary).
    public func matches(name: String, birthday: EventDate?) -> [Int] {
        let wanted = [LinkName(name)]
        guard let first = wanted.first, !first.words.isEmpty else { return [] }
        var candidates: Set<Int> = []
        for word in first.words { candidates.formUnion(byWord[word] ?? []) }
        return candidates.sorted().filter { person in
            guard !birthdays[person].contains(where: { DateAgreement($0, birthday) == .conflict }) else { return false }
            return names[person].contains { PersonLinker.names($0, wanted) != nil }
        }
    }
}
