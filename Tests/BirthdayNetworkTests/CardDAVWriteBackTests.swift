import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

@testable import BirthdayNetwork

/// A birthday written back to a card on a real Radicale server: the card
/// keeps every line the server had and gains `BDAY`; a card changed on the
/// server between the GET and the PUT is answered 412 by Radicale itself
/// and read once more; the next sync keeps one person with the date.
@Suite(.serialized) struct CardDAVWriteBackTests {
    typealias Fixture = RadicaleSyncTests.Fixture

    static let date = EventDate(year: 1990, month: 5, day: 17)!

    /// Ann's card as a phone would have it: no birthday, other lines around.
    static let card =
        [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Test//Phone//EN", "UID:ann", "FN:Ann Example", "N:Example;Ann;;;",
            "TEL;TYPE=CELL:+49 30 0000000", "NOTE:first note", "X-PHONE-ONLY;TYPE=x:kept", "END:VCARD",
        ].joined(separator: "\r\n") + "\r\n"

    /// The card as the server serves it now.
    static func served(_ fixture: Fixture, _ file: String = "ann.vcf") async throws -> String {
        let (status, body) = try await fixture.server.curl("GET", fixture.server.bookURL("friends") + file)
        try #require(status == 200)
        return body
    }

    /// The lines of a card, without their line breaks.
    static func lines(_ card: String) -> [String] {
        card.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
    }

    func writer(_ fixture: Fixture, beforePut: @escaping @Sendable () async -> Void = {}) -> CardDAVWriter {
        CardDAVWriter(username: fixture.server.user, password: fixture.password, beforePut: beforePut)
    }

    /// Counts the calls of a hook.
    actor Calls {
        var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    @Test func theCardGetsTheBirthdayAndKeepsItsLinesAndTheNextSyncKeepsOnePerson() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", file: "ann.vcf", card: Self.card)
        #expect(try await fixture.sync().counts == [1, 0, 0, 0])
        #expect(try await fixture.people() == ["ann Ann Example -"])
        let before = try await Self.served(fixture)

        let result = try await writer(fixture).writeBirthday(
            Self.date,
            personID: "ann",
            href: "/alice/friends/ann.vcf",
            book: fixture.server.bookURL("friends")
        )
        #expect(result == .written)
        let after = try await Self.served(fixture)
        // Every line the server had, and BDAY (Radicale serves a card in its
        // own property order, whatever order it was written in).
        #expect(Self.lines(after).filter { $0 != "BDAY:1990-05-17" } == Self.lines(before))
        #expect(Self.lines(after).filter { $0.hasPrefix("BDAY") } == ["BDAY:1990-05-17"])

        // The next sync reads the card as an edit: the same person, with the date.
        let sync = try await fixture.sync()
        #expect(sync.error == nil, "\(String(describing: sync.error))")
        #expect(sync.added == 0)
        #expect(try await fixture.people() == ["ann Ann Example 1990-05-17"])

        // Written again, the card has a birthday of its own now: nothing is written.
        let again = try await writer(fixture).writeBirthday(
            EventDate(year: nil, month: 1, day: 2)!,
            personID: "ann",
            href: "/alice/friends/ann.vcf",
            book: fixture.server.bookURL("friends")
        )
        #expect(again == .cardHasBirthday)
        #expect(try await Self.served(fixture) == after)
    }

    @Test func aCardChangedOnTheServerBetweenGetAndPutIsReadOnceMore() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", file: "ann.vcf", card: Self.card)
        _ = try await fixture.sync()
        let server = fixture.server
        let calls = Calls()
        // The phone edits the note after our GET, once: Radicale answers our PUT 412.
        let changed = Self.card.replacingOccurrences(of: "NOTE:first note", with: "NOTE:edited on the phone")
        let writer = writer(fixture) {
            if await calls.next() == 1 { try? await server.put("friends", file: "ann.vcf", card: changed) }
        }
        let result = try await writer.writeBirthday(Self.date, personID: "ann", href: "/alice/friends/ann.vcf", book: server.bookURL("friends"))
        #expect(result == .written)
        #expect(await calls.count == 2)
        // The phone's edit is kept, and the birthday added to it.
        let after = try await Self.served(fixture)
        #expect(after.contains("NOTE:edited on the phone"))
        #expect(after.contains("BDAY:1990-05-17"))
        #expect(server.log.contains("412") || server.log.lowercased().contains("precondition"))

        let sync = try await fixture.sync()
        #expect(sync.error == nil)
        #expect(try await fixture.people() == ["ann Ann Example 1990-05-17"])
    }

    @Test func aCardThatChangesEveryTimeIsLeftAloneWithAClearError() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", file: "ann.vcf", card: Self.card)
        let server = fixture.server
        let calls = Calls()
        let writer = writer(fixture) {
            let call = await calls.next()
            try? await server.put("friends", file: "ann.vcf", card: Self.card.replacingOccurrences(of: "first note", with: "edit \(call)"))
        }
        let error = await #expect(throws: WriteBackError.self) {
            try await writer.writeBirthday(Self.date, personID: "ann", href: "/alice/friends/ann.vcf", book: server.bookURL("friends"))
        }
        let url = server.bookURL("friends") + "ann.vcf"
        #expect(error == .changedMeanwhile(location: url))
        #expect(error?.description.contains("changed twice") == true)
        #expect(await calls.count == 2)
        let after = try await Self.served(fixture)
        #expect(after.contains("NOTE:edit 2"))
        #expect(!after.contains("BDAY"))

        // A card that is gone.
        await #expect(throws: WriteBackError.gone(location: server.bookURL("friends") + "gone.vcf")) {
            try await writer.writeBirthday(Self.date, personID: "ann", href: "/alice/friends/gone.vcf", book: server.bookURL("friends"))
        }
    }
}
