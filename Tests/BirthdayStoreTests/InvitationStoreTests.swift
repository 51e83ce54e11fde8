import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore
@testable import BirthdayText

/// Invitations in a real SQLite file (issue 35, `v27-invitations`): the use
/// count enforced in the transaction that stores an answer, even when
/// answers race; a used nonce refused; the owner's message in the ledger
/// with the answer and never without it.
@Suite struct InvitationStoreTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z

    private static func open() throws -> (AppDatabase, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        return (try AppDatabase.openFile(at: dir.file("people.sqlite")), dir)
    }

    private static func answer(_ database: AppDatabase, _ token: String, name: String, key: [UInt8], id: Int64) async throws -> InviteOutcome {
        let nonce = InviteNonce.issue(invitationID: id, key: key, now: now)
        let entry = InviteForm.Entry(name: name, day: "1", month: "5", nonce: nonce)
        return try await database.answerInvitation(
            token: token,
            entry: entry,
            now: now,
            systemTimeZone: TimeZone(identifier: "Europe/Berlin")!,
            systemLocale: nil
        ).outcome
    }

    private static func key(_ database: AppDatabase) async throws -> [UInt8] {
        try await database.read { db in try AppDatabase.inviteKey(db) }
    }

    @Test func answersRacingForATwoUseLinkStoreTwoAndTheRestAreGone() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let (link, token) = try #require(
            try await database.addInvitation(Invitation(id: 0, name: "Pair", usesAllowed: 2, createdAt: Self.now))
        )
        let key = try await Self.key(database)
        let outcomes = try await withThrowingTaskGroup(of: InviteOutcome.self) { group in
            for index in 0..<12 {
                group.addTask { try await Self.answer(database, token, name: "Racer \(index)", key: key, id: link.id) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .stored = $0 { true } else { false } }.count == 2)
        #expect(outcomes.filter { $0 == .gone }.count == 10)
        #expect(try await database.invitationAnswers(all: true).count == 2)
        #expect(try await database.invitations().first?.invitation.used == 2)
        let notices = try await database.read { db in
            try String.fetchAll(db, sql: "SELECT notificationId FROM delivery WHERE notificationId LIKE 'invite-%' ORDER BY notificationId")
        }
        #expect(
            notices == [InvitationNotice.notificationID(invitationID: link.id), InvitationNotice.usedUpID(invitationID: link.id)],
            "one message for the link's first answer of the day, none for the second or the refused ones, and one that it is used up"
        )
    }

    @Test func aUsedNonceAndAnInvalidAnswerWriteNothing() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let (link, token) = try #require(try await database.addInvitation(Invitation(id: 0, name: "Friends", createdAt: Self.now)))
        let key = try await Self.key(database)
        let nonce = InviteNonce.issue(invitationID: link.id, key: key, now: Self.now)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        func send(_ entry: InviteForm.Entry) async throws -> InviteOutcome {
            try await database.answerInvitation(token: token, entry: entry, now: Self.now, systemTimeZone: zone, systemLocale: nil).outcome
        }
        let revision = try await database.revision().value
        let invalid = try await send(InviteForm.Entry(name: "Bo", day: "30", month: "2", nonce: nonce))
        #expect(invalid == .form(InviteForm.Entry(name: "Bo", day: "30", month: "2"), .date))
        #expect(try await database.revision().value == revision)
        #expect(try await send(InviteForm.Entry(name: "Bo", day: "28", month: "2", nonce: nonce)) == .stored(id: 1, accepted: false))
        #expect(try await send(InviteForm.Entry(name: "Bo", day: "28", month: "2", nonce: nonce)) == .repeated, "sent twice: its answer is stored")
        #expect(try await database.invitationAnswers(all: true).count == 1)
        #expect(try await database.invitations().first?.invitation.used == 1)
        let unknown = try await database.answerInvitation(
            token: FeedToken.generate(),
            entry: InviteForm.Entry(name: "X", day: "1", month: "1", nonce: nonce),
            now: Self.now,
            systemTimeZone: zone,
            systemLocale: nil
        )
        #expect(unknown.outcome == .unknown)
        #expect(unknown.settings == nil)
    }

    @Test func acceptingGivesTheDateToSomeoneWhoseCardLacksItAndAnImportKeepsIt() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let card = try dir.write("cards.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Builder\r\nEND:VCARD\r\n")
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("Europe/Berlin"))
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, scheduler: scheduler).importPaths([card])
        let (link, token) = try #require(try await database.addInvitation(Invitation(id: 0, name: "Team", group: "Team", createdAt: Self.now)))
        let key = try await Self.key(database)
        #expect(try await Self.answer(database, token, name: "Bob", key: key, id: link.id) == .stored(id: 1, accepted: false))
        let accepted = try await database.acceptInvitationAnswer(id: 1, personID: "bob", now: Self.now, rescheduling: scheduler)
        #expect(accepted == .accepted(personID: "bob", isNew: false, group: "Team", date: try Fixture.date("--05-01")))
        #expect(try await database.person(id: "bob")?.birthday == EventDate(year: nil, month: 5, day: 1))
        // The card still has no birthday: importing it again keeps the accepted one.
        let later = Self.now.addingTimeInterval(60)
        _ = try await ContactImporter(database: database, now: later, referenceYear: 2026, scheduler: scheduler).importPaths([card])
        #expect(try await database.person(id: "bob")?.birthday == EventDate(year: nil, month: 5, day: 1))
        #expect(try await database.person(id: "bob")?.groups == ["Team"])
        // The card edited (still without a birthday or groups): its groups are written again, and the link's is kept.
        let edited = try dir.write("cards.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Builder\r\nEMAIL:bob@example.org\r\nEND:VCARD\r\n")
        _ = try await ContactImporter(database: database, now: later.addingTimeInterval(60), referenceYear: 2026, scheduler: scheduler).importPaths([
            edited
        ])
        let bob = try #require(try await database.person(id: "bob"))
        #expect(bob.birthday == EventDate(year: nil, month: 5, day: 1))
        #expect(bob.groups == ["Team"], "the invitation's group outlives the card's next write")
        #expect(bob.contactPoints.map(\.value) == ["bob@example.org"], "the edit was written")
        #expect(try await database.acceptInvitationAnswer(id: 1, personID: nil, now: Self.now, rescheduling: scheduler) == .decided(.accepted))
    }

    /// Issue 43: an `--auto-accept` answer's reply names the person already there it gave the date to, whose card
    /// the server then writes; not a person it added (no card), nor one who had the date, nor an answer that waits.
    @Test func anAutoAcceptedAnswersReplyNamesThePersonItGaveTheDateTo() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let cards = try dir.write(
            "cards.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Builder\r\nEND:VCARD\r\n"
                + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dot\r\nFN:Dot Dated\r\nBDAY:--05-01\r\nEND:VCARD\r\n"
        )
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("Europe/Berlin"))
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, scheduler: scheduler).importPaths([cards])
        let (auto, autoToken) = try #require(
            try await database.addInvitation(Invitation(id: 0, name: "Club", autoAccept: true, createdAt: Self.now))
        )
        let (byHand, byHandToken) = try #require(try await database.addInvitation(Invitation(id: 0, name: "Team", createdAt: Self.now)))
        let key = try await Self.key(database)
        func reply(_ token: String, _ id: Int64, _ name: String) async throws -> InvitationReply {
            let entry = InviteForm.Entry(name: name, day: "1", month: "5", nonce: InviteNonce.issue(invitationID: id, key: key, now: Self.now))
            return try await database.answerInvitation(
                token: token,
                entry: entry,
                now: Self.now,
                systemTimeZone: TimeZone(identifier: "Europe/Berlin")!,
                systemLocale: nil
            )
        }
        let bob = try await reply(autoToken, auto.id, "builder bob")
        #expect(bob.outcome == .stored(id: 1, accepted: true))
        #expect(bob.dateGiven == InvitationDateGiven(personID: "bob", date: try Fixture.date("--05-01")))
        let stranger = try await reply(autoToken, auto.id, "Grace Hopper")
        #expect(stranger.outcome == .stored(id: 2, accepted: true))
        #expect(stranger.dateGiven == nil, "a person the answer added has no card")
        let dot = try await reply(autoToken, auto.id, "Dot Dated")
        #expect(dot.outcome == .stored(id: 3, accepted: true))
        #expect(dot.dateGiven == nil, "she has the date already")
        let waits = try await reply(byHandToken, byHand.id, "Bob Builder")
        #expect(waits.outcome == .stored(id: 4, accepted: false))
        #expect(waits.dateGiven == nil)
        #expect(try await database.person(id: "bob")?.birthday == EventDate(year: nil, month: 5, day: 1))
    }

    /// The day's undelivered messages of the link (`invite-<id>` rows).
    private static func notices(_ database: AppDatabase, _ id: String) async throws -> [DeliveryRecord] {
        try await database.read { db in try DeliveryRecord.filter(DeliveryRecord.Columns.notificationId == id).fetchAll(db) }
    }

    /// Issue 41: the owner's message never points at an answer that no
    /// longer waits: accepted or rejected before the message went out, it
    /// names the next waiting one, or goes when none waits.
    @Test func theOwnersMessagePointsAtAnAnswerThatWaits() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("Europe/Berlin"))
        let (link, token) = try #require(try await database.addInvitation(Invitation(id: 0, name: "Friends", createdAt: Self.now)))
        let key = try await Self.key(database)
        let id = InvitationNotice.notificationID(invitationID: link.id)
        #expect(try await Self.answer(database, token, name: "One", key: key, id: link.id) == .stored(id: 1, accepted: false))
        #expect(
            try await Self.notices(database, id).map(\.body) == [
                "A birthday arrived through the invitation Friends: accept with birthdays invites accept 1"
            ]
        )
        // Answer 1 accepted before the message went out; answer 2 arrives: the message names 2.
        _ = try await database.acceptInvitationAnswer(id: 1, personID: nil, now: Self.now, rescheduling: scheduler)
        #expect(try await Self.notices(database, id).isEmpty, "nothing waits: no message to send")
        #expect(try await Self.answer(database, token, name: "Two", key: key, id: link.id) == .stored(id: 2, accepted: false))
        #expect(try await Self.answer(database, token, name: "Three", key: key, id: link.id) == .stored(id: 3, accepted: false))
        #expect(
            try await Self.notices(database, id).map(\.body) == [
                "A birthday arrived through the invitation Friends: accept with birthdays invites accept 2"
            ]
        )
        #expect(try await database.rejectInvitationAnswer(id: 2, now: Self.now) == .waiting)
        let notices = try await Self.notices(database, id)
        #expect(notices.map(\.body) == ["A birthday arrived through the invitation Friends: accept with birthdays invites accept 3"])
        #expect(notices.first?.deliveryKind == #"{"invite":3}"#)
    }

    /// Issue 41: the answer that uses a link up queues one more message, of its own.
    @Test func theAnswerThatUsesALinkUpTellsTheOwner() async throws {
        let (database, dir) = try Self.open()
        defer { dir.cleanup() }
        let (link, token) = try #require(
            try await database.addInvitation(Invitation(id: 0, name: "Team", usesAllowed: 2, autoAccept: true, createdAt: Self.now))
        )
        let key = try await Self.key(database)
        let usedUp = InvitationNotice.usedUpID(invitationID: link.id)
        #expect(try await Self.answer(database, token, name: "One", key: key, id: link.id) == .stored(id: 1, accepted: true))
        #expect(try await Self.notices(database, usedUp).isEmpty)
        #expect(try await Self.answer(database, token, name: "Two", key: key, id: link.id) == .stored(id: 2, accepted: true))
        #expect(
            try await Self.notices(database, usedUp).map(\.body) == [
                "The invitation Team has taken its 2 answers and takes no more; make another with birthdays invite"
            ]
        )
        #expect(try await Self.answer(database, token, name: "Three", key: key, id: link.id) == .gone)
    }
}
