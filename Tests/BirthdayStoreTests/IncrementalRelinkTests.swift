import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// A relink after a few cards changed reads and links only their
/// neighbourhood (``AppDatabase/relink(_:adding:changed:)``): the same
/// `personLink` rows, conflicts and carried choices as relinking everyone.
/// Two real database files live through the same changes, one relinking
/// the neighbourhood, the other everyone (its table said not whole before
/// each relink), and are compared after each.
@Suite final class IncrementalRelinkTests {
    /// 2026-03-01T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_772_352_000)

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    deinit { directory.cleanup() }

    /// SplitMix64: the same scenario on every run and machine.
    struct Dice {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ count: Int) -> Int { Int(next() % UInt64(count)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    // Few names, days, addresses and numbers, in the forms cards write them, so that cards share them.
    static let names = [
        "Ada Lovelace", "Ada M. Lovelace", "Lovelace Ada", "Ada Byron", "Grace Hopper", "Grace B. Hopper", "Alan Turing", "A. Turing",
    ]
    static let birthdays: [EventDate?] = [
        nil, EventDate(year: 1815, month: 12, day: 10), EventDate(year: nil, month: 12, day: 10), EventDate(year: 1816, month: 12, day: 10),
        EventDate(year: 1906, month: 12, day: 9), EventDate(year: nil, month: 12, day: 9),
    ]
    static let emails = ["ada@example.org", "ADA@Example.org", "mailto:grace@example.org", "family@example.org", "alan@example.org"]
    static let phones = ["+44 20 7946 0958", "020 7946 0958", "tel:+1-555-010-0100", "(555) 010-0100", "+49 30 1234567"]
    /// Held by about as many cards as an address may be and still count (``PersonLinker/sharedLimit``), in some scenarios.
    static let switchboard = "+1 800 555 0000"
    static let files = ["a.vcf", "b.csv", "c.vcf"]
    struct Scenario: CustomStringConvertible, Sendable {
        var seed: UInt64
        /// How likely a card holds the switchboard's number, in percent.
        var switchboard: Int
        /// How many UIDs the cards are given from.
        var uids = 36
        var description: String { "seed \(seed), switchboard \(switchboard)%, \(uids) UIDs" }

        /// The cards' ids: UIDs (two of them another's in other case) and ids derived from names.
        var ids: [String] { (0..<uids).map { "card-\($0)" } + ["CARD-1", "Card-2"] + (0..<6).map { "c-00000000000000\($0)a" } }
    }

    static func card(_ id: String, _ dice: inout Dice, switchboard: Int) -> Person {
        var person = Person(
            id: id,
            name: dice.pick(names),
            source: ContactSource(file: "/cards/" + dice.pick(files), index: 0, line: 1),
            birthday: dice.pick(birthdays)
        )
        if dice.chance(15) { person.nickname = "Addie" }
        for _ in 0..<dice.below(3) { person.contactPoints.append(ContactPoint(kind: .email, value: dice.pick(emails))) }
        for _ in 0..<dice.below(3) { person.contactPoints.append(ContactPoint(kind: .phone, value: dice.pick(phones))) }
        if dice.chance(switchboard) { person.contactPoints.append(ContactPoint(kind: .phone, value: Self.switchboard)) }
        return person
    }

    /// What one step does to the store.
    enum Change {
        case write(Person)
        case remove(String)
        /// A decision about two cards, and a relink of everyone (as `link` and `unlink` do).
        case decide(LinkException.Kind?, String, String)
        /// A choice made on a card (its note), which a link carries over or says is in conflict.
        case note(String, String)
    }

    /// Applies `changes` to `database` in one transaction and relinks: the
    /// neighbourhood of the changed cards, or everyone when `everyone`.
    /// Returns the conflicts, whether `linkKey` was whole, and how the relink went.
    func apply(
        _ changes: [Change],
        to database: AppDatabase,
        everyone: Bool
    ) throws -> (conflicts: [ChoiceConflict], whole: Bool, how: AppDatabase.Relinked) {
        try database.writeNow { db in
            let stored = try PersonRecord.mergeStates(db)
            var cards = ChangedCards()
            var decided = false
            for change in changes {
                switch change {
                case .write(let person):
                    cards.record(person.id, stored: stored[person.id]?.contact)
                    let exists = try PersonRecord.exists(db, key: person.id)
                    try PersonRecord.write(person, createdAt: 0, updatedAt: Self.now.timeIntervalSince1970, imported: true, isNew: !exists, db)
                case .remove(let id):
                    cards.record(id, stored: stored[id]?.contact)
                    _ = try PersonRecord.delete(ids: [id], db)
                case .decide(let kind, let a, let b):
                    if let kind {
                        try LinkExceptionRecord.set(kind, a, b, db)
                    } else {
                        try db.execute(sql: "DELETE FROM linkException WHERE first = ? AND second = ?", arguments: [min(a, b), max(a, b)])
                    }
                    decided = true
                case .note(let id, let note):
                    try db.execute(sql: "UPDATE person SET note = ? WHERE id = ?", arguments: [note, id])
                }
            }
            if decided { return (try AppDatabase.relink(db), false, .everyone) }
            if everyone { try LinkKeyRecord.forget(db) }
            let whole = try LinkKeyRecord.isWhole(db)
            let relinked = try AppDatabase.relinked(db, changed: cards)
            return (relinked.conflicts, whole, relinked.how)
        }
    }

    /// What a relink decides, and what it carries: the links, and every card's choices.
    static func state(_ database: AppDatabase) throws -> (links: [String: String], choices: [String]) {
        try database.readNow { db in
            let choices = try Row.fetchAll(db, sql: "SELECT id, note, exclusionChoice, excluded FROM person ORDER BY id").map { "\($0)" }
            return (try PersonLinkRecord.all(db), choices)
        }
    }

    /// Every stored card's keys are in `linkKey` (the rows the neighbourhood is found by).
    static func tableHoldsEveryKey(_ database: AppDatabase) throws -> Bool {
        try database.readNow { db in
            var rows: Set<String> = []
            for row in try Row.fetchAll(db, sql: "SELECT value, personId FROM linkKey") { rows.insert("\(row[0] as Int64) \(row[1] as String)") }
            return try PersonRecord.linkKeys(db).allSatisfy { card in
                LinkKey.keys(of: card).allSatisfy { rows.contains("\($0.value) \(card.key.id)") }
            }
        }
    }

    /// Whether `duplicates` suggested between the people as stored (the
    /// links current), what it suggested is what linking everyone again
    /// suggests, with the same groups of the same cards; and how many.
    static func suggestionsAsEveryone(_ database: AppDatabase) throws -> (stored: Bool, same: Bool, count: Int) {
        try database.readNow { db in
            let stored = try AppDatabase.suggestions(db)
            let again = try AppDatabase.suggestions(db, storedLinks: false)
            let same =
                stored.cards.map(\.key) == again.cards.map(\.key) && stored.result.groups.map(\.cards) == again.result.groups.map(\.cards)
                && stored.result.suggestions == again.result.suggestions
            return (stored.stored, same, again.result.suggestions.count)
        }
    }

    /// Small people of a few cards each; and a number held by 20 to 40 cards, about as many as may share one.
    static let scenarios = [
        Scenario(seed: 1, switchboard: 0), Scenario(seed: 2, switchboard: 0), Scenario(seed: 3, switchboard: 0),
        Scenario(seed: 4, switchboard: 50), Scenario(seed: 5, switchboard: 70, uids: 50), Scenario(seed: 6, switchboard: 60, uids: 60),
    ]

    @Test(arguments: scenarios)
    func theNeighbourhoodLinksAsEveryone(_ scenario: Scenario) throws {
        let around = try AppDatabase.openFile(at: directory.file("around-\(scenario.seed).sqlite"))
        let everyone = try AppDatabase.openFile(at: directory.file("everyone-\(scenario.seed).sqlite"))
        var dice = Dice(state: scenario.seed)
        var stored: Set<String> = []
        // The first cards, in one transaction: everyone is linked, and the table made whole.
        var first: [Change] = []
        for id in scenario.ids where dice.chance(60) {
            first.append(.write(Self.card(id, &dice, switchboard: scenario.switchboard)))
            stored.insert(id)
        }
        _ = try apply(first, to: around, everyone: false)
        _ = try apply(first, to: everyone, everyone: true)
        var linked = 0
        var relinkedAround = 0
        var changedLinks = 0
        var suggested = 0
        for step in 0..<160 {
            var changes: [Change] = []
            if dice.chance(8), stored.count > 1 {
                let pair = (dice.pick(stored.sorted()), dice.pick(stored.sorted()))
                if pair.0 != pair.1 { changes.append(.decide(dice.pick([.keepTogether, .keepSeparate, nil]), pair.0, pair.1)) }
            } else {
                for _ in 0...dice.below(3) {
                    let id = dice.pick(scenario.ids)
                    if stored.contains(id), dice.chance(25) {
                        changes.append(.remove(id))
                        stored.remove(id)
                    } else if stored.contains(id), dice.chance(15) {
                        changes.append(.note(id, dice.pick(["call", "cake"])))
                    } else {
                        changes.append(.write(Self.card(id, &dice, switchboard: scenario.switchboard)))
                        stored.insert(id)
                    }
                }
            }
            let before = try Self.state(around).links
            let a = try apply(changes, to: around, everyone: false)
            let b = try apply(changes, to: everyone, everyone: true)
            let (x, y) = (try Self.state(around), try Self.state(everyone))
            #expect(x.links == y.links, "step \(step)")
            #expect(x.choices == y.choices, "step \(step)")
            #expect(a.conflicts == b.conflicts, "step \(step)")
            #expect(try Self.tableHoldsEveryKey(around), "step \(step)")
            // With the table whole, the neighbourhood is relinked, and its edge never crossed by a stored link.
            if a.whole {
                guard case .neighbourhood = a.how else {
                    Issue.record("step \(step): \(a.how)")
                    break
                }
                relinkedAround += 1
            }
            for store in [around, everyone] {
                let suggestions = try Self.suggestionsAsEveryone(store)
                #expect(suggestions.stored && suggestions.same, "step \(step)")
                suggested += suggestions.count
            }
            if x.links != before { changedLinks += 1 }
            linked += x.links.count
            if x.links != y.links { break }
        }
        // The scenario links cards, changes who is whom, and mostly relinks the neighbourhood only.
        #expect(linked > 0)
        #expect(changedLinks >= 10)
        #expect(relinkedAround >= 100)
        #expect(suggested > 0)
    }

    // MARK: - Through a sync and an import

    /// A vdir source followed by two stores: the first relinks the
    /// neighbourhood of what each sync and import changed, the second
    /// everyone (its table said not whole before each).
    struct Twins {
        let folder: String
        let stores: [AppDatabase]
        let directory: TemporaryDirectory

        init(_ directory: TemporaryDirectory, _ name: String) async throws {
            self.directory = directory
            folder = directory.file(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            stores = [
                try AppDatabase.openFile(at: directory.file("\(name)-around.sqlite")),
                try AppDatabase.openFile(at: directory.file("\(name)-everyone.sqlite")),
            ]
            for store in stores {
                _ = try await store.addSource(Source(name: "Book", kind: .vdir, location: folder), now: IncrementalRelinkTests.now)
            }
        }

        /// Writes the card `uid` into the folder as vdirsyncer does (a file renamed over it).
        func card(_ uid: String, _ name: String, _ birthday: String, _ extra: [String] = []) throws {
            let text = (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "BDAY:\(birthday)"] + extra + ["END:VCARD", ""])
                .joined(separator: "\r\n")
            let temporary = folder + "/.\(uid).tmp"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            _ = rename(temporary, folder + "/\(uid).vcf")
        }

        func remove(_ uid: String) throws {
            try FileManager.default.removeItem(atPath: folder + "/\(uid).vcf")
        }

        /// Syncs both stores; the reports' conflicts.
        func sync() async throws -> [[ChoiceConflict]] {
            var conflicts: [[ChoiceConflict]] = []
            for (index, store) in stores.enumerated() {
                if index == 1 { try store.writeNow { db in try LinkKeyRecord.forget(db) } }
                let source = try #require(try await store.sources().first)
                let syncer = SourceSync(
                    database: store,
                    readers: SourceReaders { _ in LocalSourceReader() },
                    now: { IncrementalRelinkTests.now },
                    systemTimeZone: { TimeZone(identifier: "UTC")! },
                    logger: LogRecorder().logger
                )
                let report = await syncer.sync(source)
                #expect(report.error == nil)
                conflicts.append(report.conflicts)
            }
            return conflicts
        }

        /// Imports the file `name` into both stores; the reports' conflicts.
        func importing(_ name: String, _ text: String) async throws -> [[ChoiceConflict]] {
            let path = try directory.write(name, text)
            var conflicts: [[ChoiceConflict]] = []
            for (index, store) in stores.enumerated() {
                if index == 1 { try store.writeNow { db in try LinkKeyRecord.forget(db) } }
                conflicts.append(
                    try await ContactImporter(database: store, now: IncrementalRelinkTests.now, referenceYear: 2026).importPaths([path]).conflicts
                )
            }
            return conflicts
        }

        func note(_ id: String, _ text: String) throws {
            for store in stores { try store.writeNow { db in _ = try PersonRecord.setNote(text, id: id, db) } }
        }

        /// The links of the first store, once both stores agree on links, conflicts and choices.
        func agreed(_ conflicts: [[ChoiceConflict]], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
            let (x, y) = (try IncrementalRelinkTests.state(stores[0]), try IncrementalRelinkTests.state(stores[1]))
            #expect(x.links == y.links, sourceLocation: sourceLocation)
            #expect(x.choices == y.choices, sourceLocation: sourceLocation)
            #expect(conflicts[0] == conflicts[1], sourceLocation: sourceLocation)
            #expect(try IncrementalRelinkTests.tableHoldsEveryKey(stores[0]), sourceLocation: sourceLocation)
            // Asked at the start of a write, as the next sync asks it: nothing after the relink took it away.
            #expect(try stores[0].writeNow(LinkKeyRecord.isWhole), sourceLocation: sourceLocation)
            // `duplicates` suggests between the people as stored, after a relink of the neighbourhood and of everyone.
            for store in stores {
                let suggestions = try IncrementalRelinkTests.suggestionsAsEveryone(store)
                #expect(suggestions.stored && suggestions.same, sourceLocation: sourceLocation)
            }
            return x.links
        }
    }

    /// Cards that gain and lose a shared address, number or UID, a card
    /// removed, the card a person is shown as removed, a file imported
    /// beside the source, notes carried over and in conflict.
    @Test func syncsAndImportsLinkAsEveryone() async throws {
        let twins = try await Twins(directory, "book")
        // Twenty people alone, and four who will be linked: everyone is relinked, the table made whole.
        for index in 0..<20 { try twins.card("other-\(index)", "Person \(index)", "1970-01-\(10 + index)", ["EMAIL:p\(index)@example.org"]) }
        try twins.card("ada-1", "Ada Lovelace", "1815-12-10", ["EMAIL:ada@example.org"])
        try twins.card("grace-1", "Grace Hopper", "1906-12-09", ["TEL:+1 555 010 0100"])
        try twins.card("grace-2", "Grace B. Hopper", "--12-09")
        try twins.card("alan-1", "Alan Turing", "1912-06-23", ["EMAIL:alan@example.org"])
        _ = try await twins.sync()
        try twins.note("grace-1", "cake")
        try twins.note("grace-2", "call")
        try twins.card("other-0", "Person 0", "1970-01-10", ["EMAIL:p0@example.org", "TEL:+49 30 1234567"])
        #expect(try twins.agreed(try await twins.sync()) == [:])

        // A new card with Ada's address in another case; Grace's second card gains her number in another form (notes in conflict).
        try twins.card("ada-2", "Ada Lovelace", "--12-10", ["EMAIL:ADA@example.org"])
        try twins.card("grace-2", "Grace B. Hopper", "--12-09", ["TEL:(555) 010-0100"])
        let conflicts = try await twins.sync()
        #expect(conflicts[0].map(\.choice) == [.note])
        #expect(try twins.agreed(conflicts) == ["ada-2": "ada-1", "grace-2": "grace-1"])
        // Ada's second card loses the address; Alan's UID comes back in capitals on another card.
        try twins.card("ada-2", "Ada Lovelace", "--12-10")
        try twins.card("ALAN-1", "Alan Mathison Turing", "1912-06-23")
        #expect(try twins.agreed(try await twins.sync()) == ["grace-2": "grace-1", "alan-1": "ALAN-1"])
        // It gains it back, on a third card too; the card Grace is shown as goes.
        try twins.card("ada-2", "Ada Lovelace", "--12-10", ["EMAIL:ada@example.org"])
        try twins.card("ada-3", "Ada M. Lovelace", "1815-12-10", ["EMAIL:ada@example.org"])
        try twins.remove("grace-1")
        #expect(try twins.agreed(try await twins.sync()) == ["ada-2": "ada-1", "ada-3": "ada-1", "alan-1": "ALAN-1"])
        // A file imported beside the source: a fourth Ada born another year is no one's; a Grace with her number is.
        let imported =
            ImportRelinkTests.card("ada-4", "Ada Lovelace", "1816-12-10", "EMAIL:ada@example.org\r\n")
            + ImportRelinkTests.card("grace-3", "Grace Hopper", "1906-12-09", "TEL:+15550100100\r\n")
        #expect(
            try twins.agreed(try await twins.importing("extra.vcf", imported))
                == ["ada-2": "ada-1", "ada-3": "ada-1", "alan-1": "ALAN-1", "grace-3": "grace-2"]
        )
        // The card Ada is shown as goes: her undated card is one with the Ada of the same name born in 1816
        // now (a stronger link than with Ada M. of 1815, whose date contradicts it), a card of the import.
        try twins.remove("ada-1")
        #expect(try twins.agreed(try await twins.sync()) == ["ada-4": "ada-2", "alan-1": "ALAN-1", "grace-3": "grace-2"])
    }

    /// A number 33 cards hold is no evidence, so long as 33 of them may be
    /// linked at all (``PersonLinker/sharedLimit``): when one of them may
    /// not any more (the card it shared an address with lost it), the 32
    /// left are linked by it, though none of them changed.
    @Test func aCardLeavingACrowdLinksTheRest() async throws {
        let twins = try await Twins(directory, "crowd")
        let crowd = "TEL:+1 800 555 0000"
        try twins.card("dora", "Dora Dee", "1970-02-01", ["EMAIL:shared@example.org"])
        try twins.card("yves", "Yves Why", "1970-02-02", ["EMAIL:shared@example.org", crowd])
        // Each of the 32 may be linked by an address it shares with a card of another name; two of them are one person.
        for index in 0..<32 {
            let name = index < 2 ? "Sam Same" : "Person \(index)"
            let birthday = index < 2 ? "1980-03-03" : "1980-04-" + String(format: "%02d", index - 1)
            try twins.card("crowd-\(index)", name, birthday, ["EMAIL:c\(index)@example.org", crowd])
            try twins.card("partner-\(index)", "Partner \(index)", "1990-05-05", ["EMAIL:c\(index)@example.org"])
        }
        _ = try await twins.sync()
        // A change of someone else: the first small change makes the table whole.
        try twins.card("partner-5", "Partner 5", "1990-05-06", ["EMAIL:c5@example.org"])
        #expect(try twins.agreed(try await twins.sync()) == [:])
        try twins.card("dora", "Dora Dee", "1970-02-01")
        #expect(try twins.agreed(try await twins.sync()) == ["crowd-1": "crowd-0"])
        // And back: Yves may be linked again, 33 hold the number, the two are two again.
        try twins.card("dora", "Dora Dee", "1970-02-01", ["EMAIL:shared@example.org"])
        #expect(try twins.agreed(try await twins.sync()) == [:])
    }
    /// Another version of `birthdays` (one from before the table, still
    /// running beside this one) writes a card without keeping `linkKey` or
    /// its mark: it moves the data revision, as every version has, so the
    /// next small change relinks everyone rather than trust a table that
    /// does not know the card's new address.
    @Test func aCardAVersionWithoutTheTableWroteIsLinkedAtTheNextChange() async throws {
        let twins = try await Twins(directory, "older")
        try twins.card("ada", "Ada Lovelace", "1815-12-10")
        try twins.card("byron", "A. Byron", "1815-12-10", ["EMAIL:ada@example.org"])
        for index in 0..<5 { try twins.card("other-\(index)", "Person \(index)", "1970-01-1\(index)") }
        _ = try await twins.sync()
        try twins.card("other-0", "Person 0", "1970-01-20")
        #expect(try twins.agreed(try await twins.sync()) == [:])
        // The other version syncs Ada's card, which gains Byron's address: a write as this version's, but the table and its mark as they were.
        let (rows, mark) = try twins.stores[0].readNow { db in
            (try Row.fetchAll(db, sql: "SELECT value, personId FROM linkKey"), try SettingRecord.value(.linkIndex, db))
        }
        try twins.card("ada", "Ada Lovelace", "1815-12-10", ["EMAIL:ada@example.org"])
        #expect(try twins.agreed(try await twins.sync()) == [:])
        try twins.stores[0].writeNow { db in
            try db.execute(sql: "DELETE FROM linkKey")
            for row in rows {
                let values: StatementArguments = [row["value"] as Int64, row["personId"] as String]
                try db.execute(sql: "INSERT INTO linkKey (value, personId) VALUES (?, ?)", arguments: values)
            }
            try SettingRecord.set(mark, for: .linkIndex, db)
        }
        // `duplicates` does not trust the links either: it links everyone again.
        let suggestions = try IncrementalRelinkTests.suggestionsAsEveryone(twins.stores[0])
        #expect(!suggestions.stored && suggestions.same)
        // Byron's card is given Ada's name: one person with hers, by the address the table did not hold for her.
        try twins.card("byron", "Ada Lovelace", "1815-12-10", ["EMAIL:ada@example.org"])
        #expect(try twins.agreed(try await twins.sync()) == ["byron": "ada"])
    }

    /// The table is whole under the linker's rules it was kept under, at
    /// the data revision it was kept at: another write of an event since,
    /// or other rules (``PersonLinker/rulesVersion``), and it is not.
    @Test func theTableIsWholeUnderItsRulesAtItsRevision() throws {
        let store = try AppDatabase.openFile(at: directory.file("mark.sqlite"))
        try store.writeNow { db in try LinkKeyRecord.keep(db) }
        #expect(try store.writeNow(LinkKeyRecord.isWhole))
        // Within the transaction that moves the revision, it is still whole: the move is this transaction's.
        let wholeAsItMoves = try store.writeNow { db in
            try SettingRecord.set("10:00", for: "greeting-time", db)
            return try LinkKeyRecord.isWhole(db)
        }
        #expect(wholeAsItMoves)
        #expect(try !store.writeNow(LinkKeyRecord.isWhole))
        try store.writeNow { db in try LinkKeyRecord.keep(db) }
        let revision = try store.readNow { db in try RevisionRecord.current(db).value }
        #expect(try store.readNow { db in try SettingRecord.value(.linkIndex, db) } == "\(PersonLinker.rulesVersion) \(revision)")
        try store.writeNow { db in try SettingRecord.set("\(PersonLinker.rulesVersion - 1) \(revision)", for: .linkIndex, db) }
        #expect(try !store.writeNow(LinkKeyRecord.isWhole))
        #expect(try !store.readNow(LinkKeyRecord.linksAreCurrent))
    }

    /// The links follow the cards (for `duplicates`) under the rules and
    /// at the revision a relink said so, with the table whole or not; not
    /// after another write of an event, under other rules, or never said.
    @Test func theLinksAreCurrentUnderTheirRulesAtTheirRevision() throws {
        let store = try AppDatabase.openFile(at: directory.file("links.sqlite"))
        #expect(try !store.readNow(LinkKeyRecord.linksAreCurrent))
        try store.writeNow { db in try LinkKeyRecord.keepLinksOnly(db) }
        #expect(try store.readNow(LinkKeyRecord.linksAreCurrent))
        #expect(try !store.writeNow(LinkKeyRecord.isWhole))
        try store.writeNow { db in try SettingRecord.set("10:00", for: "greeting-time", db) }
        #expect(try !store.readNow(LinkKeyRecord.linksAreCurrent))
        try store.writeNow { db in try LinkKeyRecord.keep(db) }
        #expect(try store.readNow(LinkKeyRecord.linksAreCurrent))
        let revision = try store.readNow { db in try RevisionRecord.current(db).value }
        try store.writeNow { db in try SettingRecord.set("\(PersonLinker.rulesVersion + 1) \(revision) links", for: .linkIndex, db) }
        #expect(try !store.readNow(LinkKeyRecord.linksAreCurrent))
        try store.writeNow { db in try LinkKeyRecord.forget(db) }
        #expect(try !store.readNow(LinkKeyRecord.linksAreCurrent))
    }
}
