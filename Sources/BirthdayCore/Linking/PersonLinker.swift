import Foundation

/// Decides which cards are one person, and which look like one but need the
/// person's word (pure; the store keeps cards and people and asks it).
///
/// ## Linked on their own
/// Two cards are one person when the evidence is strong and nothing
/// contradicts it:
/// - the same `UID` (the same card held by two sources), or
/// - the same e-mail address (``LinkKeys/email(_:)``) or phone number
///   (``PhoneKey``), **and** names that agree (``LinkName``: order, case,
///   accents, a middle initial, a nickname the card carries), **and**
///   birthdays that do not contradict (``DateAgreement``: the same, a year
///   on one side only, or a card without one).
///
/// So a family's shared e-mail address or landline links no one whose name
/// is another (twins with the same birthday and phone stay two), and the same
/// name on another day or in another year stays two, shared address or not.
/// An address or number that more than ``sharedLimit`` cards hold is no
/// evidence at all (an office's switchboard). Links are made strongest first
/// (a `UID`, then the same full date, then the same day, then one side
/// undated; the same name before a similar one; then in the cards' ``LinkCard/Key``
/// order), and a link is not made when it would put two birthdays that
/// contradict into one person (1990-05-01 and 1991-05-01, linked through a
/// third card `--05-01`): the result does not depend on the order of the cards.
///
/// ## Suggested
/// People (after the links) whose names agree on at least two whole words
/// and whose birthdays agree (the same, or a year on one side only) but
/// who share no address are suggested (``LinkSuggestion``), most certain
/// first (``LinkReason``). People that look alike in ways that contradict
/// each other (a card `--12-10` that would join "Ada Lovelace 1815-12-10"
/// to "Ada Lovelace 1845-12-10") are not suggested at all: which one it is
/// is a guess.
///
/// ## Remembered decisions
/// ``LinkException``s are applied first: "keep together" links its two cards
/// whatever they say; "keep separate" keeps two cards out of one person, and
/// out of one suggestion, whatever links them (a `UID` too).
///
/// Near-linear: cards are grouped by their keys (a `UID`, an address, a
/// number, two words of the name and the day), and only cards that share a
/// key are compared; a key shared by more than ``sharedLimit`` cards is left out.
public struct PersonLinker: Sendable {
    public var exceptions: [LinkException]
    /// The most cards an address, a number, or a name and day may be shared by and still count.
    public var sharedLimit: Int

    /// The version of the rules: what ``mayLink(_:distinctUIDs:)`` and
    /// ``link(_:distinctUIDs:)`` decide, and the forms keys are compared in
    /// (``LinkKey``, ``LinkKeys``). Raise it with any change of them: a
    /// store that kept the links and keys of an older version links
    /// everyone again at its next change.
    public static let rulesVersion = 1

    public init(exceptions: [LinkException] = [], sharedLimit: Int = 32) {
        self.exceptions = exceptions
        self.sharedLimit = sharedLimit
    }

    /// Which of `cards` are one person, and what to suggest.
    ///
    /// - Parameter distinctUIDs: as ``mayLink(_:distinctUIDs:)`` takes it.
    public func link(_ cards: [LinkCard], distinctUIDs: Bool = false) -> LinkResult {
        // Only a card holding a UID, an address or a number another card holds too can be linked by one: the
        // others' are not prepared (a card of each key held twice or more is, so each such key groups the same cards).
        let uids = !distinctUIDs || !Self.allComparedForm(cards)
        let sharing = holdingShared(cards, hashMask: .max, limited: false, uids: uids) ?? [Bool](repeating: true, count: cards.count)
        let prepared = Self.prepare(cards) { sharing[$0] }
        let order = Self.keyOrder(cards)
        var sets = Groups(cards)
        let byKey = exceptionCards(cards)
        separate(&sets, byKey)
        for exception in exceptions where exception.kind == .keepTogether {
            guard let a = byKey[exception.first], let b = byKey[exception.second] else { continue }
            sets.join(a, b, .byHand, checkingDates: false)
        }

        // The same UID: the same card, whatever it says.
        var byUID: [String: [Int]] = [:]
        for index in cards.indices { if let uid = prepared[index].uid { byUID[uid, default: []].append(index) } }
        var edges: [Edge] = []
        for members in byUID.values where members.count > 1 {
            let sorted = members.sorted { order[$0] < order[$1] }
            for other in sorted.dropFirst() { edges.append(Edge(strength: 0, kind: .uid, a: sorted[0], b: other)) }
        }

        // The same address or number, names that agree, birthdays that do not contradict.
        var byEmail: [String: [Int]] = [:]
        var byPhone: [Substring: [Int]] = [:]
        for index in cards.indices {
            for email in prepared[index].emails { byEmail[email, default: []].append(index) }
            for phone in prepared[index].phones { byPhone[phone.tail, default: []].append(index) }
        }
        func evidence(_ members: [Int], _ kind: LinkEvidence, _ shares: (Int, Int) -> Bool) {
            guard members.count > 1 else { return }
            let unique = Array(Set(members)).sorted { order[$0] < order[$1] }
            guard unique.count > 1, unique.count <= sharedLimit else { return }
            for x in unique.indices {
                for y in unique.indices[(x + 1)...] {
                    let a = unique[x]
                    let b = unique[y]
                    guard shares(a, b), let names = Self.names(prepared[a].names, prepared[b].names) else { continue }
                    let dates = DateAgreement(cards[a].birthday, cards[b].birthday)
                    guard dates != .conflict else { continue }
                    edges.append(Edge(strength: 1 + dates.rawValue * 2 + (names.isSame ? 0 : 1), kind: kind, a: a, b: b))
                }
            }
        }
        for members in byEmail.values { evidence(members, .email) { _, _ in true } }
        for members in byPhone.values {
            evidence(members, .phone) { a, b in prepared[a].phones.contains { mine in prepared[b].phones.contains(where: mine.matches) } }
        }
        edges.sort { ($0.strength, $0.kind, order[$0.a], order[$0.b]) < ($1.strength, $1.kind, order[$1.a], order[$1.b]) }
        for edge in edges { sets.join(edge.a, edge.b, edge.kind, checkingDates: edge.kind != .uid) }

        return result(cards, prepared, order: order, sets: &sets)
    }

    /// The suggestions between the people `cards` are linked into already:
    /// `people[i]` is the index of a card of the person `cards[i]` is
    /// (the same one for each of their cards), as ``link(_:distinctUIDs:)``
    /// linked them over these very cards under these exceptions. Its groups
    /// and suggestions are then the ones ``link(_:distinctUIDs:)`` gives
    /// (each group's ``LinkGroup/evidence`` aside, which is empty): only
    /// names and birthdays are compared, no `UID`, address or number is
    /// prepared, and no card is joined by one.
    public func suggest(_ cards: [LinkCard], people: [Int]) -> LinkResult {
        precondition(people.count == cards.count, "one person per card")
        let prepared = Self.prepare(cards) { _ in false }
        let order = Self.keyOrder(cards)
        var sets = Groups(cards)
        separate(&sets, exceptionCards(cards))
        for index in cards.indices where people[index] != index { sets.join(index, people[index], .byHand, checkingDates: false) }
        var linked = result(cards, prepared, order: order, sets: &sets)
        for group in linked.groups.indices { linked.groups[group].evidence = [] }
        return linked
    }

    /// Each card prepared, its keys too where `keys` says so for its index.
    /// A store's cards repeat names (a family's, a name held by several
    /// sources): each text is folded once.
    private static func prepare(_ cards: [LinkCard], keys: (Int) -> Bool) -> [Prepared] {
        var folded: [String: LinkName] = [:]
        func name(_ text: String) -> LinkName {
            if let known = folded[text] { return known }
            let name = LinkName(text)
            folded[text] = name
            return name
        }
        return cards.indices.map { Prepared(cards[$0], name: name, keys: keys($0)) }
    }

    /// Each card's place in key order: ties between links are broken by it,
    /// not by the input's order (which is that order already when the store
    /// reads its cards by id, all of one source).
    private static func keyOrder(_ cards: [LinkCard]) -> [Int] {
        var order = Array(cards.indices)
        if !cards.indices.dropFirst().allSatisfy({ cards[$0 - 1].key < cards[$0].key }) {
            for (place, index) in cards.indices.sorted(by: { cards[$0].key < cards[$1].key }).enumerated() { order[index] = place }
        }
        return order
    }

    /// Each card a remembered decision names, by its key (empty without decisions).
    private func exceptionCards(_ cards: [LinkCard]) -> [LinkCard.Key: Int] {
        guard !exceptions.isEmpty else { return [:] }
        var named = Set<LinkCard.Key>()
        for exception in exceptions {
            named.insert(exception.first)
            named.insert(exception.second)
        }
        var byKey: [LinkCard.Key: Int] = [:]
        for index in cards.indices where named.contains(cards[index].key) && byKey[cards[index].key] == nil { byKey[cards[index].key] = index }
        return byKey
    }

    /// Applies every "keep separate" between two of the cards `byKey` finds.
    private func separate(_ sets: inout Groups, _ byKey: [LinkCard.Key: Int]) {
        for exception in exceptions where exception.kind == .keepSeparate {
            guard let a = byKey[exception.first], let b = byKey[exception.second], a != b else { continue }
            sets.separate(a, b)
        }
    }

    /// The groups `sets` joined, in the order of their first card, and the suggestions between them.
    private func result(_ cards: [LinkCard], _ prepared: [Prepared], order: [Int], sets: inout Groups) -> LinkResult {
        // Groups in the order of their first card.
        var groupOfRoot = [Int](repeating: -1, count: cards.count)
        var groupOf = [Int](repeating: 0, count: cards.count)
        var groups: [LinkGroup] = []
        var roots: [Int] = []
        for index in cards.indices {
            let root = sets.find(index)
            if groupOfRoot[root] < 0 {
                groupOfRoot[root] = groups.count
                roots.append(root)
                groups.append(LinkGroup(cards: [], evidence: sets.evidence(of: root)))
            }
            groupOf[index] = groupOfRoot[root]
            groups[groupOfRoot[root]].cards.append(index)
        }
        let joined = sets
        let suggestions = suggest(cards, prepared, order: order, groupOf: groupOf, groups: groups) { a, b in
            joined.compatible(roots[a], roots[b])
        }
        return LinkResult(groups: groups, groupOf: groupOf, suggestions: suggestions)
    }

    /// The suggestions between `groups` (see the type's summary).
    private func suggest(
        _ cards: [LinkCard],
        _ prepared: [Prepared],
        order: [Int],
        groupOf: [Int],
        groups: [LinkGroup],
        compatible: (Int, Int) -> Bool
    ) -> [LinkSuggestion] {
        // Two whole words of a name and the day: cards that share one are compared.
        // The key is a hash of the two words and the day: a collision only puts more cards side by side, and each pair is checked.
        var byNameAndDay: [UInt64: [Int]] = [:]
        for index in cards.indices {
            guard let birthday = cards[index].birthday else { continue }
            var keys: [UInt64] = []
            for name in prepared[index].names where name.words.count >= 2 {
                let hashes = name.words.prefix(8).map { StableHash.value($0) }
                for x in hashes.indices {
                    for y in hashes.indices[(x + 1)...] {
                        // The words are sorted, so the pair is always hashed in the same order.
                        let key = (hashes[x] &* 31 &+ hashes[y]) &* 1_000_003 &+ UInt64(birthday.month * 32 + birthday.day)
                        if !keys.contains(key) { keys.append(key) }
                    }
                }
            }
            for key in keys { byNameAndDay[key, default: []].append(index) }
        }
        var pairs: [Pair: LinkReason] = [:]
        for members in byNameAndDay.values where members.count > 1 && members.count <= sharedLimit {
            for x in members.indices {
                for y in members.indices[(x + 1)...] {
                    let a = members[x]
                    let b = members[y]
                    guard groupOf[a] != groupOf[b], let names = Self.names(prepared[a].names, prepared[b].names), names.shared >= 2 else { continue }
                    let dates = DateAgreement(cards[a].birthday, cards[b].birthday)
                    guard dates == .same || dates == .sameDay else { continue }
                    let reason = LinkReason(names: names, dates: dates)
                    let pair = Pair(groupOf[a], groupOf[b])
                    if pairs[pair].map({ reason < $0 }) ?? true { pairs[pair] = reason }
                }
            }
        }
        guard !pairs.isEmpty else { return [] }

        // People suggested together are one suggestion, when every two of them may be one person.
        var component: [Int: Int] = [:]
        func find(_ g: Int) -> Int {
            var g = g
            while let up = component[g], up != g { g = up }
            return g
        }
        for pair in pairs.keys.sorted(by: { ($0.low, $0.high) < ($1.low, $1.high) }) {
            let a = find(pair.low)
            let b = find(pair.high)
            component[a] = a
            component[b] = b
            if a != b { component[max(a, b)] = min(a, b) }
        }
        var together: [Int: [Int]] = [:]
        for g in component.keys { together[find(g), default: []].append(g) }
        var weakest: [Int: LinkReason] = [:]
        for (pair, reason) in pairs {
            let c = find(pair.low)
            weakest[c] = max(weakest[c] ?? reason, reason)
        }
        var suggestions: [LinkSuggestion] = []
        for (c, members) in together {
            let sorted = members.sorted()
            guard sorted.count <= 8 else { continue }
            // A nickname one card carries stands for that name on the others too ("Pepe" for "José").
            let cardsOf = sorted.map { groups[$0].cards }
            var nicknames: [LinkName] = []
            for card in cardsOf.joined() where !cards[card].nickname.isEmpty { nicknames.append(LinkName(cards[card].nickname)) }
            let names = cardsOf.map { $0.map { Prepared.variants(of: prepared[$0].names[0], nicknames: nicknames) } }
            var consistent = true
            for x in sorted.indices where consistent {
                for y in sorted.indices[(x + 1)...] where !compatible(sorted[x], sorted[y]) || !Self.anyAgree(names[x], names[y]) {
                    consistent = false
                    break
                }
            }
            guard consistent, let reason = weakest[c] else { continue }
            suggestions.append(LinkSuggestion(groups: sorted, reason: reason))
        }
        func first(_ s: LinkSuggestion) -> Int { s.groups.flatMap { groups[$0].cards }.map { order[$0] }.min() ?? 0 }
        return suggestions.sorted { ($0.reason, first($0)) < ($1.reason, first($1)) }
    }

    /// Whether some card of one group and some card of the other (each its names) have names that agree.
    private static func anyAgree(_ a: [[LinkName]], _ b: [[LinkName]]) -> Bool {
        a.contains { x in b.contains { y in names(x, y) != nil } }
    }

    /// How the names of two cards agree, each with the nickname it carries
    /// in place of a word of its name; `nil` when they do not.
    static func names(_ a: [LinkName], _ b: [LinkName]) -> NameAgreement? {
        var best: NameAgreement?
        for (i, x) in a.enumerated() {
            for (j, y) in b.enumerated() {
                guard var found = x.agreement(with: y) else { continue }
                if i > 0 || j > 0 { found = .similar(shared: found.shared) }
                if let known = best, (known.isSame ? 1 : 0, known.shared) >= (found.isSame ? 1 : 0, found.shared) { continue }
                best = found
            }
        }
        return best
    }

    /// The indices of `cards` (ascending) that ``link(_:)`` may put
    /// together with another card: those sharing a `UID`, an address or a
    /// number (held by at most ``sharedLimit`` cards) with another, or named
    /// by a "keep together", and every card reachable from them that way.
    /// Every other card is a person alone whatever its name says, so
    /// ``link(_:)`` over only the cards returned groups them exactly as over
    /// all of them (a link never crosses what this leaves apart).
    ///
    /// Reads only each card's key, `UID`, addresses and numbers: the names
    /// and birthdays of a store's people need not be read to find the few
    /// that may be one.
    ///
    /// Cards are grouped by integers, not texts: a number by its tail
    /// (``LinkKeys/phoneTail(_:)``), a `UID` and an address by a hash of
    /// their compared form, made without a copy. Two cards whose keys hash
    /// alike are compared by their texts; when two different keys share a
    /// hash, the cards are grouped by their texts instead, so the answer is
    /// always the one of the texts.
    ///
    /// - Parameter distinctUIDs: the caller's word that no two of `cards`
    ///   hold the same `uid` text (a store's, whose `UID` is its card's
    ///   id). When every `uid` is then the form it is compared in (a
    ///   ``PersonID`` without capitals), no two cards can share one, and
    ///   the `UID`s are not hashed at all.
    public func mayLink(_ cards: [LinkCard], distinctUIDs: Bool = false) -> [Int] {
        mayLink(cards, hashMask: .max, distinctUIDs: distinctUIDs)
    }

    /// ``mayLink(_:distinctUIDs:)`` with every `UID`'s and address's hash masked by
    /// `hashMask` (a test masks them to make them collide).
    func mayLink(_ cards: [LinkCard], hashMask: UInt64, distinctUIDs: Bool = false) -> [Int] {
        let uids = !distinctUIDs || !Self.allComparedForm(cards)
        var joined = holdingShared(cards, hashMask: hashMask, limited: true, uids: uids) ?? mayLinkByText(cards)
        if exceptions.contains(where: { $0.kind == .keepTogether }) {
            var byKey: [LinkCard.Key: Int] = [:]
            for index in cards.indices where byKey[cards[index].key] == nil { byKey[cards[index].key] = index }
            for exception in exceptions where exception.kind == .keepTogether {
                guard let a = byKey[exception.first], let b = byKey[exception.second], a != b else { continue }
                joined[a] = true
                joined[b] = true
            }
        }
        return cards.indices.filter { joined[$0] }
    }

    /// Per card of `cards`, whether it holds a `UID`, an address or a number
    /// (as ``mayLink(_:)`` compares them) that another card holds too; when
    /// `limited`, an address or number held by more than ``sharedLimit``
    /// cards does not count. `nil` when two different keys hash alike
    /// (masked by `hashMask`): only their texts can tell the cards apart then.
    /// Without `uids`, the cards' `UID`s are left out (none is shared).
    private func holdingShared(_ cards: [LinkCard], hashMask: UInt64, limited: Bool, uids: Bool = true) -> [Bool]? {
        let mask = hashMask & KeyTable.hashBits
        var table = KeyTable(keys: cards.reduce(0) { $0 + (uids ? 1 : 0) + $1.emails.count + $1.phones.count })
        // Each card after a key's first holder: the key's slot and the card.
        var later: [(slot: Int, card: Int)] = []
        // The card's keys: each value and what it is (``KeyTable/uid``, an address's place, ``KeyTable/phone``).
        var keys: [(value: UInt64, item: Int)] = []
        for index in cards.indices {
            keys.removeAll(keepingCapacity: true)
            if uids, let uid = cards[index].uid, let id = PersonID.fromUID(uid) {
                keys.append((KeyTable.uidTag | Self.loweredHash(id) & mask, KeyTable.uid))
            }
            for (place, email) in cards[index].emails.enumerated() {
                if let key = LinkKeys.email(email) { keys.append((KeyTable.emailTag | StableHash.value(key.utf8) & mask, place)) }
            }
            for phone in cards[index].phones {
                if let tail = LinkKeys.phoneTail(phone) { keys.append((KeyTable.phoneTag | tail, KeyTable.phone)) }
            }
            for (place, key) in keys.enumerated() {
                if let earlier = keys[..<place].first(where: { $0.value == key.value }) {
                    // The same key twice on one card counts once; two keys with one hash are told apart by their texts.
                    guard sameKey(cards, index, earlier.item, index, key.item) else { return nil }
                    continue
                }
                let slot = table.slot(key.value)
                if table.entries[slot].holders == 0 {
                    table.entries[slot].first = Int32(index)
                    table.entries[slot].item = Int32(key.item)
                } else {
                    let first = table.entries[slot]
                    guard sameKey(cards, Int(first.first), Int(first.item), index, key.item) else { return nil }
                    later.append((slot, index))
                }
                table.entries[slot].holders += 1
            }
        }
        var joined = [Bool](repeating: false, count: cards.count)
        for (slot, card) in later {
            // A UID is the same card whatever; an address or number held by too many is no evidence.
            let entry = table.entries[slot]
            if limited && Int(entry.item) != KeyTable.uid && entry.holders > sharedLimit { continue }
            joined[Int(entry.first)] = true
            joined[card] = true
        }
        return joined
    }

    /// Whether the key `item` of card `a` and the key `itemB` of card `b`
    /// (of one kind: their values are equal) are the same key, by their texts.
    private func sameKey(_ cards: [LinkCard], _ a: Int, _ item: Int, _ b: Int, _ itemB: Int) -> Bool {
        switch item {
        case KeyTable.phone: return true  // the tail itself, not a hash
        case KeyTable.uid:
            func text(_ card: Int) -> String? { cards[card].uid.flatMap(PersonID.fromUID).map(Self.lowered) }
            return text(a) == text(b)
        default: return LinkKeys.email(cards[a].emails[item]) == LinkKeys.email(cards[b].emails[itemB])
        }
    }

    /// Whether every `UID` of `cards` is in the form it is compared in (``isComparedForm(_:)``).
    static func allComparedForm(_ cards: [LinkCard]) -> Bool {
        cards.allSatisfy { $0.uid.map(isComparedForm) ?? true }
    }

    /// Whether the `UID` `text` is compared as it is: a ``PersonID/fromUID(_:)``
    /// of itself (ASCII letters, digits, `-`, `.` and `_`, at most
    /// ``PersonID/maxLength`` bytes) without a capital to lower. Two such
    /// `UID`s are the same `UID` only when their texts are.
    static func isComparedForm(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                count += 1
            default: return false
            }
        }
        return count > 0 && count <= PersonID.maxLength
    }

    /// The hash of `text` lower-cased (``lowered(_:)``), without a copy when it is ASCII.
    private static func loweredHash(_ text: String) -> UInt64 {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return StableHash.value(text.lowercased().utf8) }
        var hash = StableHash.start
        for byte in text.utf8 {
            hash ^= UInt64(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// ``holdingShared(_:hashMask:limited:)`` (limited) grouping cards by the texts of their keys.
    private func mayLinkByText(_ cards: [LinkCard]) -> [Bool] {
        // One pass: each key's first card and how many hold it, and each later holder (no array per key).
        var firstOf: [LinkKey: (card: Int, holders: Int)] = [:]
        // About a UID and an address or number per card: no growing on the way.
        firstOf.reserveCapacity(cards.count * 2)
        var later: [(key: LinkKey, card: Int)] = []
        func hold(_ key: LinkKey, _ card: Int) {
            // One lookup: the first holder stays, the count grows.
            var first = false
            func new() -> (card: Int, holders: Int) {
                first = true
                return (card, 0)
            }
            firstOf[key, default: new()].holders += 1
            if !first { later.append((key, card)) }
        }
        for index in cards.indices {
            for key in LinkKey.keys(of: cards[index]) { hold(key, index) }
        }
        var joined = [Bool](repeating: false, count: cards.count)
        for (key, card) in later {
            guard let first = firstOf[key] else { continue }
            // A UID is the same card whatever; an address or number held by too many is no evidence.
            if case .uid = key {} else if first.holders > sharedLimit { continue }
            joined[first.card] = true
            joined[card] = true
        }
        return joined
    }

    /// `text` lower-cased, without a copy when it has no capital to lower.
    static func lowered(_ text: String) -> String {
        text.utf8.contains { $0 >= 0x80 || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) } ? text.lowercased() : text
    }

    /// Which card's birthday the person has, of the cards of one person: a
    /// card of `source` when one has a birthday (`link --date-from SOURCE`),
    /// else a card with a year over one without, then the most recently
    /// changed (a card that does not say when is the oldest), then the first
    /// in ``LinkCard/Key`` order. `nil` when no card has a birthday.
    public static func birthday(of cards: [LinkCard], preferring source: String? = nil) -> BirthdayChoice? {
        let dated = cards.indices.filter { cards[$0].birthday != nil }
        func rank(_ i: Int) -> (Int, Int, Double, LinkCard.Key) {
            let changed = cards[i].changed?.timeIntervalSinceReferenceDate ?? -.infinity
            return (cards[i].key.source == source ? 0 : 1, cards[i].birthday?.year == nil ? 1 : 0, -changed, cards[i].key)
        }
        guard let chosen = dated.min(by: { rank($0) < rank($1) }), let date = cards[chosen].birthday else {
            return nil
        }
        let conflicting = dated.filter { DateAgreement(cards[$0].birthday, date) == .conflict }
        // The rule that chose: the last one needed to put the chosen card before every card that says otherwise.
        let reason = conflicting.map { other -> BirthdayChoice.Reason in
            let (mine, theirs) = (rank(chosen), rank(other))
            if mine.0 != theirs.0 { return .dateFrom }
            if mine.1 != theirs.1 { return .year }
            if mine.2 != theirs.2 { return .changed }
            return .order
        }.max()
        return BirthdayChoice(card: chosen, date: date, disagreement: !conflicting.isEmpty, reason: reason)
    }
}

/// Which cards are one person (``PersonLinker/link(_:)``).
public struct LinkResult: Hashable, Sendable {
    /// Every card in exactly one group; ordered by their first card.
    public var groups: [LinkGroup]
    /// The group of each card, by the card's index.
    public var groupOf: [Int]
    /// Most certain first.
    public var suggestions: [LinkSuggestion]
}

/// The cards of one person, by their index in what ``PersonLinker/link(_:)`` was given (ascending).
public struct LinkGroup: Hashable, Sendable {
    public var cards: [Int]
    /// What linked them (empty for one card alone).
    public var evidence: Set<LinkEvidence>
}

/// What links two cards.
public enum LinkEvidence: Int, Hashable, Sendable, Comparable, CaseIterable {
    /// The person linked them (``LinkException/Kind/keepTogether``).
    case byHand
    case uid
    case email
    case phone

    public static func < (lhs: LinkEvidence, rhs: LinkEvidence) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// People that may be one: `duplicates` lists them, `link` takes them.
public struct LinkSuggestion: Hashable, Sendable {
    /// Two or more groups, by their index in ``LinkResult/groups`` (ascending).
    public var groups: [Int]
    /// Why, for the least certain two of them.
    public var reason: LinkReason
}

/// Why people are suggested as one; all of them share no address or number.
/// The most certain first.
public enum LinkReason: Int, Hashable, Sendable, Comparable, CaseIterable {
    /// The same name and the same birthday, year and all.
    case sameNameSameBirthday
    /// Names that agree up to a middle initial or a nickname, and the same birthday, year and all.
    case similarNameSameBirthday
    /// The same name and the same day, a year on one side only.
    case sameNameSameDay
    /// Names that agree up to a middle initial or a nickname, and the same day, a year on one side only.
    case similarNameSameDay

    init(names: NameAgreement, dates: DateAgreement) {
        switch (names.isSame, dates == .same) {
        case (true, true): self = .sameNameSameBirthday
        case (false, true): self = .similarNameSameBirthday
        case (true, false): self = .sameNameSameDay
        case (false, false): self = .similarNameSameDay
        }
    }

    public static func < (lhs: LinkReason, rhs: LinkReason) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The birthday of a person of several cards (``PersonLinker/birthday(of:preferring:)``).
public struct BirthdayChoice: Hashable, Sendable {
    /// The index of the card whose birthday it is.
    public var card: Int
    public var date: EventDate
    /// Whether another card says another day or year (`show` names it).
    public var disagreement: Bool
    /// Which rule chose the card over the cards that say otherwise; `nil` when none does.
    public var reason: Reason?

    /// The rules of ``PersonLinker/birthday(of:preferring:)``, in the order they apply.
    public enum Reason: Int, Hashable, Sendable, Comparable, CaseIterable {
        /// The card is from the source `link --date-from` named.
        case dateFrom
        /// The card has a year, the others do not.
        case year
        /// The card changed most recently.
        case changed
        /// Nothing else told them apart: the first by source name, then id.
        case order

        public static func < (lhs: Reason, rhs: Reason) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

/// A card's keys, worked out once.
struct Prepared {
    /// The name, then the name with the nickname in place of each of its words.
    var names: [LinkName]
    var uid: String?
    var emails: [String]
    var phones: [PhoneKey]

    /// The keys of `card`, its name and nickname made into ``LinkName``s by `name`.
    /// Without `keys`, no `UID`, address or number.
    init(_ card: LinkCard, name: (String) -> LinkName = LinkName.init, keys: Bool = true) {
        names = Self.variants(of: name(card.name), nicknames: card.nickname.isEmpty ? [] : [name(card.nickname)])
        emails = []
        phones = []
        guard keys else { return }
        uid = card.uid.flatMap(PersonID.fromUID).map(PersonLinker.lowered)
        for email in card.emails { if let key = LinkKeys.email(email), !emails.contains(key) { emails.append(key) } }
        phones = card.phones.compactMap(LinkKeys.phone)
    }

    /// `name`, then `name` with each nickname in place of each of its words.
    static func variants(of name: LinkName, nicknames: [LinkName]) -> [LinkName] {
        var names = [name]
        for nickname in nicknames where !nickname.words.isEmpty && !nickname.words.allSatisfy(name.words.contains) {
            for word in name.words { names.append(name.replacing(word, with: nickname)) }
        }
        return names
    }
}

/// Two groups, the lower index first.
private struct Pair: Hashable {
    let low: Int
    let high: Int
    init(_ a: Int, _ b: Int) {
        low = min(a, b)
        high = max(a, b)
    }
}

/// A possible link between two cards: the lower strength is tried first.
private struct Edge {
    var strength: Int
    var kind: LinkEvidence
    var a: Int
    var b: Int
}

/// The cards joined so far (union-find), with what each group holds.
private struct Groups {
    private var parent: [Int]
    private var size: [Int]
    /// Per root: the group's different birthdays (one, unless the person linked cards that disagree).
    private var dates: [[EventDate]]
    /// Per root: the cards its cards are kept apart from.
    private var apart: [[Int]]
    private var linkedBy: [Set<LinkEvidence>]

    init(_ cards: [LinkCard]) {
        parent = Array(cards.indices)
        size = [Int](repeating: 1, count: cards.count)
        dates = cards.map { $0.birthday.map { [$0] } ?? [] }
        apart = [[Int]](repeating: [], count: cards.count)
        linkedBy = [Set<LinkEvidence>](repeating: [], count: cards.count)
    }

    mutating func find(_ i: Int) -> Int {
        var i = i
        while parent[i] != i {
            parent[i] = parent[parent[i]]
            i = parent[i]
        }
        return i
    }

    mutating func separate(_ a: Int, _ b: Int) {
        apart[a].append(b)
        apart[b].append(a)
    }

    func evidence(of root: Int) -> Set<LinkEvidence> { linkedBy[root] }

    /// The root of `i`'s group, without shortening the path (for reading only).
    private func root(_ i: Int) -> Int {
        var i = i
        while parent[i] != i { i = parent[i] }
        return i
    }

    /// Whether a card of one root is kept apart from a card of the other.
    func keptApart(_ a: Int, _ b: Int) -> Bool {
        let (few, other) = apart[a].count <= apart[b].count ? (a, b) : (b, a)
        return apart[few].contains { root($0) == other }
    }

    /// Whether a birthday of one root contradicts one of the other.
    func datesConflict(_ a: Int, _ b: Int) -> Bool {
        dates[a].contains { x in dates[b].contains { DateAgreement(x, $0) == .conflict } }
    }

    /// Whether two groups (by their roots) may be one person.
    func compatible(_ a: Int, _ b: Int) -> Bool {
        !keptApart(a, b) && !datesConflict(a, b)
    }

    /// Joins the groups of `a` and `b` unless they are kept apart or (when
    /// checking) their birthdays contradict.
    mutating func join(_ a: Int, _ b: Int, _ kind: LinkEvidence, checkingDates: Bool) {
        var x = find(a)
        var y = find(b)
        if x == y {
            linkedBy[x].insert(kind)
            return
        }
        guard !keptApart(x, y), !checkingDates || !datesConflict(x, y) else { return }
        if size[x] < size[y] { swap(&x, &y) }
        parent[y] = x
        size[x] += size[y]
        for date in dates[y] where !dates[x].contains(date) { dates[x].append(date) }
        apart[x] += apart[y]
        linkedBy[x].formUnion(linkedBy[y])
        linkedBy[x].insert(kind)
        dates[y] = []
        apart[y] = []
    }
}

/// The keys ``PersonLinker/mayLink(_:)`` groups cards by, as integers in an
/// open-addressed table: per slot the key's value, its first holder (and
/// which of its keys it is), and how many cards hold it, side by side (one
/// cache line a key).
private struct KeyTable {
    /// A value's two top bits say its kind (no value is 0, an empty slot); the rest is a hash, or a number's tail.
    static let uidTag: UInt64 = 1 << 62
    static let emailTag: UInt64 = 2 << 62
    static let phoneTag: UInt64 = 3 << 62
    static let hashBits: UInt64 = (1 << 62) - 1
    /// ``Entry/item`` of a UID, and of a number (an address's is its place among the card's addresses).
    static let uid = -1
    static let phone = Int(Int32.max)

    struct Entry {
        var value: UInt64 = 0
        var first: Int32 = 0
        var item: Int32 = 0
        var holders = 0
    }

    var entries: [Entry]
    private let mask: Int

    /// A table for at most `keys` keys, at most half full.
    init(keys: Int) {
        var size = 16
        while size < keys * 2 { size *= 2 }
        entries = [Entry](repeating: Entry(), count: size)
        mask = size - 1
    }

    /// The slot of `value`, taken for it when it is new (its ``Entry/holders`` 0).
    mutating func slot(_ value: UInt64) -> Int {
        // Spread the bits (a number's tail is no hash), then probe slot by slot.
        var mixed = value ^ (value >> 33)
        mixed = mixed &* 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        var index = Int(truncatingIfNeeded: mixed) & mask
        while true {
            if entries[index].value == value { return index }
            if entries[index].value == 0 {
                entries[index].value = value
                return index
            }
            index = (index + 1) & mask
        }
    }
}
