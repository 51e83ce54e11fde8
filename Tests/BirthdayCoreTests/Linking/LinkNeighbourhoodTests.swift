import Foundation
import Testing

@testable import BirthdayCore

/// ``LinkKey`` and ``PersonLinker/neighbourhood(of:before:in:limit:)``:
/// after a few cards change, linking only their neighbourhood gives every
/// card the person linking everyone gives it.
@Suite struct LinkNeighbourhoodTests {
    @Test func aCardsKeysAreItsComparedFormsEachOnce() {
        let card = LinkCard(
            key: LinkCard.Key(source: "", id: "x"),
            uid: "urn:uuid:ABC-1",
            name: "",
            emails: ["Ada@Example.org", "mailto:ada@example.org", "not an address"],
            phones: ["+44 20 7946 0958", "020 7946 0958", "12 34"]
        )
        #expect(LinkKey.keys(of: card) == [.uid("abc-1"), .email("ada@example.org"), .phone(8 << 32 | 79_460_958)])
    }

    /// A store keeps the values: a change would leave its rows unfound.
    @Test func valuesNeverChange() {
        #expect(LinkKey.uid("abc-1").value == 7_206_855_812_151_676_473)
        #expect(LinkKey.email("ada@example.org").value == -8_117_452_808_186_313_827)
        #expect(LinkKey.phone(8 << 32 | 79_460_958).value == -4_611_685_983_988_188_578)
    }

    /// The cards as a store holds them, looked up as a store's indexes would (a key's lookup finds a card that does not hold it too).
    struct Memory: LinkKeyLookup {
        var cards: [String: LinkCard]
        var together: [(String, String)]

        func card(_ id: String) -> LinkCard? {
            cards[id].map { LinkCard(key: LinkCard.Key(source: "", id: $0.key.id), uid: $0.uid, name: "", emails: $0.emails, phones: $0.phones) }
        }

        func cards(holding key: LinkKey) -> [String] {
            cards.values.filter { LinkKey.keys(of: $0).contains(key) }.map(\.key.id) + (cards.keys.min().map { [$0] } ?? [])
        }

        func keptTogether(with id: String) -> [String] {
            together.compactMap { $0.0 == id ? $0.1 : $0.1 == id ? $0.0 : nil }
        }
    }

    /// Who each card is shown as (the smallest id of its person), linking everyone as the store does.
    static func links(_ cards: [String: LinkCard], together: [(String, String)], apart: [(String, String)], limit: Int) -> [String: String] {
        let all = cards.values.sorted { $0.key.id < $1.key.id }
        let keys = all.map { LinkCard(key: LinkCard.Key(source: "", id: $0.key.id), uid: $0.uid, name: "", emails: $0.emails, phones: $0.phones) }
        let decided = together.map { LinkException(.keepTogether, LinkCard.Key(source: "", id: $0.0), LinkCard.Key(source: "", id: $0.1)) }
        let scope = PersonLinker(exceptions: decided, sharedLimit: limit).mayLink(keys).map { all[$0] }
        return links(of: scope, together: together, apart: apart, limit: limit)
    }

    /// Who each of `cards` is shown as, linking them alone.
    static func links(of cards: [LinkCard], together: [(String, String)], apart: [(String, String)], limit: Int) -> [String: String] {
        var byID: [String: LinkCard.Key] = [:]
        for card in cards { byID[card.key.id] = card.key }
        var exceptions: [LinkException] = []
        for (kind, pairs) in [(LinkException.Kind.keepSeparate, apart), (.keepTogether, together)] {
            for (a, b) in pairs { if let x = byID[a], let y = byID[b] { exceptions.append(LinkException(kind, x, y)) } }
        }
        var links: [String: String] = [:]
        for group in PersonLinker(exceptions: exceptions, sharedLimit: limit).link(cards).groups where group.cards.count > 1 {
            let ids = group.cards.map { cards[$0].key.id }
            guard let shown = ids.min() else { continue }
            for id in ids where id != shown { links[id] = shown }
        }
        return links
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func theNeighbourhoodLinksAsEveryone(seed: UInt64) throws {
        var state = seed
        func roll(_ count: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(count))
        }
        // An address or number four cards share is no evidence: crowds come and go at every step.
        let limit = 4
        let names = ["Ada Lovelace", "Ada M. Lovelace", "Grace Hopper", "Alan Turing", "Lovelace Ada"]
        let dates = [
            nil, EventDate(year: 1815, month: 12, day: 10), EventDate(year: nil, month: 12, day: 10), EventDate(year: 1816, month: 12, day: 10),
        ]
        let ids = (0..<24).map { "card-\($0)" }
        func card(_ id: String) -> LinkCard {
            LinkCard(
                key: LinkCard.Key(source: ["a", "b", "c"][roll(3)], id: id),
                uid: roll(5) == 0 ? ["u1", "U1", "u2"][roll(3)] : nil,
                name: names[roll(names.count)],
                emails: (0..<roll(2)).map { _ in ["a@x.org", "b@x.org", "c@x.org", "d@x.org", "e@x.org", "f@x.org"][roll(6)] },
                // A number about as many cards hold as may share one (the crowd), and some others.
                phones: (roll(3) == 0 ? ["+1 800 555 0000"] : [])
                    + (0..<roll(2)).map { _ in ["+44 20 7946 0958", "020 7946 0958", "555 0100 77"][roll(3)] },
                birthday: dates[roll(dates.count)]
            )
        }
        var cards: [String: LinkCard] = [:]
        for id in ids where roll(2) == 0 { cards[id] = card(id) }
        var together: [(String, String)] = []
        var apart: [(String, String)] = []
        var links = Self.links(cards, together: together, apart: apart, limit: limit)
        var outside = 0
        for step in 0..<300 {
            // A decision changes everyone's links (the store relinks everyone after `link` and `unlink`).
            if roll(10) == 0 {
                let pair = (ids[roll(ids.count)], ids[roll(ids.count)])
                if roll(2) == 0 { together.append(pair) } else { apart.append(pair) }
                links = Self.links(cards, together: together, apart: apart, limit: limit)
                continue
            }
            var changed: [String] = []
            var before: [String: LinkCard] = [:]
            for _ in 0...roll(2) {
                let id = ids[roll(ids.count)]
                if let old = cards[id], before[id] == nil, !changed.contains(id) { before[id] = old }
                if !changed.contains(id) { changed.append(id) }
                cards[id] = roll(4) == 0 ? nil : card(id)
            }
            let memory = Memory(cards: cards, together: together)
            let area = try #require(try PersonLinker(sharedLimit: limit).neighbourhood(of: changed, before: before, in: memory, limit: 1000))
            // No link made before crosses the neighbourhood's edge; within it, its cards linked alone.
            #expect(links.allSatisfy { area.cards.contains($0.key) == area.cards.contains($0.value) }, "step \(step)")
            var around = links.filter { !area.cards.contains($0.key) }
            around.merge(
                Self.links(of: area.linked.compactMap { cards[$0] }, together: together, apart: apart, limit: limit),
                uniquingKeysWith: { $1 }
            )
            links = Self.links(cards, together: together, apart: apart, limit: limit)
            #expect(around == links, "step \(step)")
            outside += cards.count - area.cards.intersection(cards.keys).count
        }
        // The neighbourhoods leave most cards out.
        #expect(outside > 100)
    }
}
