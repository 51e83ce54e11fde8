/// A key ``PersonLinker/mayLink(_:distinctUIDs:)`` groups cards by: two
/// cards that hold one key may be one person, and a card that shares none
/// with another (and is named by no "keep together") is a person alone.
public enum LinkKey: Hashable, Sendable {
    /// A `UID` as compared: ``PersonID/fromUID(_:)`` of it, lower-cased.
    case uid(String)
    /// An e-mail address as compared (``LinkKeys/email(_:)``).
    case email(String)
    /// A phone number's tail (``LinkKeys/phoneTail(_:)``): numbers whose tails differ are never the same.
    case phone(UInt64)

    /// The keys of `card`, each once: its `UID`'s, then its addresses', then its numbers'.
    public static func keys(of card: LinkCard) -> [LinkKey] {
        var keys: [LinkKey] = []
        if let uid = card.uid.flatMap(PersonID.fromUID) { keys.append(.uid(PersonLinker.lowered(uid))) }
        for email in card.emails { if let key = LinkKeys.email(email) { keys.append(.email(key)) } }
        for phone in card.phones { if let tail = LinkKeys.phoneTail(phone) { keys.append(.phone(tail)) } }
        var unique: [LinkKey] = []
        for key in keys where !unique.contains(key) { unique.append(key) }
        return unique
    }

    /// The key as one integer, for a store to find the cards that hold a key
    /// by an index: a kind in the top two bits, then the number's tail
    /// itself, or a hash of the `UID`'s or the address's compared form
    /// (``StableHash``). Two cards that hold one key have one value; two
    /// keys may share a value, so the cards found by it are told apart by
    /// their keys. A store keeps these values: they never change.
    public var value: Int64 {
        let hashBits: UInt64 = (1 << 62) - 1
        switch self {
        case .uid(let text): return Int64(bitPattern: 1 << 62 | StableHash.value(text.utf8) & hashBits)
        case .email(let text): return Int64(bitPattern: 2 << 62 | StableHash.value(text.utf8) & hashBits)
        case .phone(let tail): return Int64(bitPattern: 3 << 62 | tail & hashBits)
        }
    }
}

/// What a store tells ``PersonLinker/neighbourhood(of:before:in:limit:)`` of
/// the cards it holds now, each found by an index.
public protocol LinkKeyLookup {
    /// The stored card `id` as ``PersonLinker/mayLink(_:distinctUIDs:)``
    /// reads it (its id as the key's, `UID`, addresses and numbers); `nil`
    /// when it is not stored.
    func card(_ id: String) throws -> LinkCard?
    /// The ids of stored cards that may hold `key` (by its ``LinkKey/value``):
    /// every card that holds it, and perhaps cards that do not.
    func cards(holding key: LinkKey) throws -> [String]
    /// The ids of the cards a "keep together" names with the card `id`, stored or not.
    func keptTogether(with id: String) throws -> [String]
}

/// The cards a relink after a few cards changed looks at
/// (``PersonLinker/neighbourhood(of:before:in:limit:)``).
public struct LinkNeighbourhood: Hashable, Sendable {
    /// Every card whose person may have changed; every other card is the
    /// same person as before.
    public var cards: Set<String>
    /// Those of ``cards`` that ``PersonLinker/mayLink(_:distinctUIDs:)``
    /// over every stored card would hand ``PersonLinker/link(_:distinctUIDs:)``,
    /// in id order; the others of ``cards`` are each a person alone.
    public var linked: [String]
}

extension PersonLinker {
    /// The cards a relink must look at after the cards `changed` were
    /// added, changed or removed, so that ``link(_:distinctUIDs:)`` over
    /// only ``LinkNeighbourhood/linked`` groups them exactly as linking
    /// every stored card would, and every card outside
    /// ``LinkNeighbourhood/cards`` stays the person it was; `nil` when more
    /// than `limit` cards would be looked at (then link everyone).
    ///
    /// Two stored cards are *neighbours* when both may be linked at all
    /// (``mayLink(_:distinctUIDs:)``: a `UID` another card holds, an address
    /// or number that two to ``sharedLimit`` cards hold, or a "keep
    /// together" with a stored card) and they share a key, however many
    /// cards hold it, or a "keep together". Linking everyone links only
    /// neighbours, and which of a set of cards closed under neighbours are
    /// one person depends on those cards alone (how many of them hold a key
    /// included). The cards that may have become linkable or unlinkable are
    /// the changed ones and those that hold one of their keys, before or
    /// after, or are kept together with one (the *first ring*); a card that
    /// was a neighbour of one of those that cannot be linked now holds one of
    /// its keys or is kept together with it (the *second ring*). The
    /// neighbourhood is both rings and every card reachable from them through
    /// neighbours: outside it, every card keeps the same neighbours, keys,
    /// counts and decisions, so the same person.
    ///
    /// The store's "keep separate" decisions need not be looked up: they
    /// only keep neighbours apart, and ``link(_:distinctUIDs:)`` applies them.
    ///
    /// - Parameters:
    ///   - changed: the ids of the cards added, changed (any of what
    ///     ``link(_:distinctUIDs:)`` reads: keys, name, birthday, source) or removed.
    ///   - before: the changed cards that were stored before, as they were
    ///     (their keys: `UID`, addresses, numbers), by id.
    ///   - store: the cards as they are now.
    ///   - limit: the most cards to look at.
    public func neighbourhood(
        of changed: [String],
        before: [String: LinkCard],
        in store: some LinkKeyLookup,
        limit: Int
    ) throws -> LinkNeighbourhood? {
        var walk = NeighbourWalk(store: store, sharedLimit: sharedLimit, limit: limit)
        do {
            return try neighbourhood(of: changed, before: before, walk: &walk, limit: limit)
        } catch is TooManyHolders {
            return nil
        }
    }

    private func neighbourhood<Store>(
        of changed: [String],
        before: [String: LinkCard],
        walk: inout NeighbourWalk<Store>,
        limit: Int
    ) throws -> LinkNeighbourhood? {
        var area = Set(changed)
        // The first ring: the keys the changed cards hold or held, and their decisions.
        for id in changed {
            var keys = try walk.keys(id)
            for key in before[id].map(LinkKey.keys(of:)) ?? [] where !keys.contains(key) { keys.append(key) }
            for key in keys { area.formUnion(try walk.holders(key)) }
            area.formUnion(try walk.partners(id))
            guard area.count <= limit else { return nil }
        }
        // The second ring: the neighbours those that cannot be linked now may have had.
        for id in area.sorted() {
            guard try !walk.linkable(id) else { continue }
            for key in try walk.keys(id) { area.formUnion(try walk.holders(key)) }
            area.formUnion(try walk.partners(id))
            guard area.count <= limit else { return nil }
        }
        // Every card reachable from them through neighbours.
        var queue = try area.sorted().filter { try walk.linkable($0) }
        while let id = queue.popLast() {
            var next = try walk.partners(id)
            for key in try walk.keys(id) { next += try walk.holders(key) }
            for other in next where !area.contains(other) {
                area.insert(other)
                if try walk.linkable(other) { queue.append(other) }
            }
            guard area.count <= limit else { return nil }
        }
        return LinkNeighbourhood(cards: area, linked: try area.sorted().filter { try walk.linkable($0) })
    }
}

/// More cards hold a key than a neighbourhood may look at.
private struct TooManyHolders: Error {}

/// What ``PersonLinker/neighbourhood(of:before:in:limit:)`` has asked the
/// store, each card, key and decision asked once.
private struct NeighbourWalk<Store: LinkKeyLookup> {
    let store: Store
    let sharedLimit: Int
    /// The most cards a neighbourhood looks at.
    let limit: Int
    private var cards: [String: LinkCard?] = [:]
    private var keysOf: [String: [LinkKey]] = [:]
    private var holdersOf: [LinkKey: [String]] = [:]
    private var partnersOf: [String: [String]] = [:]
    private var linkableOf: [String: Bool] = [:]

    init(store: Store, sharedLimit: Int, limit: Int) {
        self.store = store
        self.sharedLimit = sharedLimit
        self.limit = limit
    }

    mutating func card(_ id: String) throws -> LinkCard? {
        if let known = cards[id] { return known }
        let card = try store.card(id)
        cards[id] = card
        return card
    }

    /// The keys the stored card `id` holds (none when it is not stored).
    mutating func keys(_ id: String) throws -> [LinkKey] {
        if let known = keysOf[id] { return known }
        let keys = try card(id).map(LinkKey.keys(of:)) ?? []
        keysOf[id] = keys
        return keys
    }

    /// The stored cards that hold `key`, in id order. Every holder of a key
    /// a card of the neighbourhood holds is in it, so more than ``limit``
    /// found (``TooManyHolders``: a number a whole office shares) ends the
    /// walk before each of them is read.
    mutating func holders(_ key: LinkKey) throws -> [String] {
        if let known = holdersOf[key] { return known }
        let found = Set(try store.cards(holding: key))
        guard found.count <= limit else { throw TooManyHolders() }
        var holders: [String] = []
        for id in found.sorted() {
            if try keys(id).contains(key) { holders.append(id) }
        }
        holdersOf[key] = holders
        return holders
    }

    /// The stored cards a "keep together" names with the card `id`, in id order.
    mutating func partners(_ id: String) throws -> [String] {
        if let known = partnersOf[id] { return known }
        var partners: [String] = []
        for other in Set(try store.keptTogether(with: id)).sorted() where other != id {
            if try card(other) != nil { partners.append(other) }
        }
        partnersOf[id] = partners
        return partners
    }

    /// Whether ``PersonLinker/mayLink(_:distinctUIDs:)`` over every stored card would keep the stored card `id`.
    mutating func linkable(_ id: String) throws -> Bool {
        if let known = linkableOf[id] { return known }
        var linkable = false
        for key in try keys(id) where !linkable {
            let holders = try holders(key).count
            // A UID is the same card whatever; an address or number held by too many is no evidence.
            if case .uid = key { linkable = holders > 1 } else { linkable = holders > 1 && holders <= sharedLimit }
        }
        if !linkable, try card(id) != nil { linkable = !(try partners(id)).isEmpty }
        linkableOf[id] = linkable
        return linkable
    }
}
