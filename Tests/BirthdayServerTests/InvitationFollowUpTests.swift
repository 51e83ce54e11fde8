import BirthdayCore
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import TestSupport
import Testing

@testable import BirthdayServer
@testable import BirthdayStore

/// Issue 43: a date an `--auto-accept` answer gave to someone already there
/// goes to the owner's hook (the CLI's write-back to their card) after the
/// answer is stored, without the reply waiting for it, and a graceful
/// shutdown still hands over the dates that wait. A real database file,
/// the real source, the hook held until the test lets it go.
@Suite struct InvitationFollowUpTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z

    /// A hook that waits until the test opens it.
    private actor Gate {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func theReplyDoesNotWaitForTheHookAndAShutdownStillHandsOverWhatWaits() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let database = try AppDatabase.openFile(at: dir.file("people.sqlite"))
        let cards = try dir.write(
            "cards.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Builder\r\nEND:VCARD\r\n"
                + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ann\r\nFN:Ann Lee\r\nEND:VCARD\r\n"
        )
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026).importPaths([cards])
        let (link, token) = try #require(
            try await database.addInvitation(Invitation(id: 0, name: "Club", autoAccept: true, createdAt: Self.now))
        )
        let key = try await database.read { db in try AppDatabase.inviteKey(db) }

        let gate = Gate()
        let started = Mutex<[String]>([])
        let finished = Mutex<[String]>([])
        let followUp = InvitationFollowUp(logger: Logger(label: "test")) { personID, date in
            started.withLock { $0.append("\(personID) \(date)") }
            await gate.wait()
            finished.withLock { $0.append("\(personID) \(date)") }
        }
        let source = DatabaseFeedSource(
            database: database,
            now: { Self.now },
            systemTimeZone: { TimeZone(secondsFromGMT: 0)! },
            dateGiven: { followUp.post($0) }
        )
        func answer(_ fields: String) async throws -> Int? {
            let nonce = InviteNonce.issue(invitationID: link.id, key: key, now: Self.now)
            return try await source.inviteAnswer(token: token, body: Array("nonce=\(nonce)&\(fields)".utf8))?.status
        }

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await followUp.run() }
                // Bob's answer is thanked while the hook still holds his date.
                #expect(try await answer("name=Bob+Builder&day=1&month=5&year=1990") == 200)
                try await eventually("the hook") { started.withLock { $0 } == ["bob 1990-05-01"] }
                #expect(finished.withLock { $0 }.isEmpty)
                // A stranger is added: no date for the hook. Ann's waits behind Bob's.
                #expect(try await answer("name=Grace+Hopper&day=9&month=12&year=") == 200)
                #expect(try await answer("name=Ann+Lee&day=2&month=6&year=") == 200)
                #expect(started.withLock { $0 } == ["bob 1990-05-01"], "one at a time")
                #expect(try await database.person(id: "ann")?.birthday == EventDate(year: nil, month: 6, day: 2), "stored before the hook")
                trigger.triggerGracefulShutdown()
                await gate.open()
                try await group.waitForAll()
            }
        }
        #expect(finished.withLock { $0 } == ["bob 1990-05-01", "ann --06-02"], "what waited at the shutdown was handed over")
        // After the end nothing is handed over, and posting does not fail.
        followUp.post(InvitationDateGiven(personID: "bob", date: try #require(EventDate(year: nil, month: 1, day: 1))))
        #expect(started.withLock { $0 }.count == 2)
    }
}
