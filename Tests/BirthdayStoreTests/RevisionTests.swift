import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The data revision (what moves the feed's ETag and wakes the publisher)
/// moves with every write that changes an event, through whichever use case,
/// and with no other: the triggers of `RevisionRecord`, not a call each use
/// case must remember.
@Suite struct RevisionTests {
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    func at(_ minutes: Int) -> Date { t0.addingTimeInterval(Double(minutes) * 60) }

    func contact(_ name: String, uid: String, birthday: EventDate?, index: Int = 0) -> ParsedContact {
        ParsedContact(
            source: ContactSource(file: "a.vcf", index: index, line: index * 5 + 1),
            uid: uid,
            formattedName: name,
            birthday: birthday
        )
    }

    func importing(_ contacts: [ParsedContact], into database: AppDatabase, at instant: Date) throws {
        var report = ImportReport()
        let people = ContactMerge.people(from: contacts, report: &report)
        try database.writeNow(at: instant) { db in _ = try ContactImporter.merge(people, into: db, now: instant, report: &report, write: true) }
    }

    /// Runs `write` and says whether the revision moved, and to what instant.
    func moves(_ database: AppDatabase, _ write: () async throws -> Void) async throws -> (moved: Bool, at: Date) {
        let before = try await database.revision()
        try await write()
        let after = try await database.revision()
        #expect(after.value >= before.value)
        #expect(after.value <= before.value + 1, "once per transaction, whatever the rows")
        return (after.value != before.value, after.changedAt)
    }

    @Test func everyWriteThatChangesAnEventMovesItOnceAndNoOtherDoes() async throws {
        let database = try AppDatabase.inMemory()
        let ada = contact("Ada", uid: "ada", birthday: event(1815, 12, 10))
        let alan = contact("Alan", uid: "alan", birthday: event(1912, 6, 23), index: 1)

        // An import of new people: one move, at the import's instant.
        let first = try await moves(database) { try importing([ada, alan], into: database, at: at(1)) }
        #expect(first.moved && first.at == at(1))
        // The same export again changes nothing.
        #expect(try await !moves(database) { try importing([ada, alan], into: database, at: at(2)) }.moved)
        // An edited birthday.
        var edited = alan
        edited.birthday = event(1912, 6, 24)
        #expect(try await moves(database) { try importing([ada, edited], into: database, at: at(3)) } == (true, at(3)))

        // Every choice and setting that shapes events.
        #expect(try await moves(database) { _ = try await database.setExclusion(.exclude, personID: "ada", now: at(4)) } == (true, at(4)))
        #expect(try await moves(database) { _ = try await database.setReminderDays(ReminderDays("7,0"), personID: "ada", now: at(5)) }.moved)
        #expect(try await moves(database) { try await database.setSetting(.calendarName, to: "Family", now: at(6)) } == (true, at(6)))
        #expect(try await moves(database) { _ = try await database.resetSetting(.calendarName, now: at(7)) }.moved)
        #expect(
            try await moves(database) {
                _ = try await database.setSharedRule(.group("Work"), exclusion: .set(.exclude), days: .keep, now: at(8))
            }.moved
        )
        // A group given by a card: a new membership.
        var grouped = ada
        grouped.groups = ["Family"]
        #expect(try await moves(database) { try importing([grouped, edited], into: database, at: at(9)) }.moved)

        // Writes that change no event: the permission, the onboarding, an added channel, the feed token.
        // (Every user setting counts as one that may: the feed's alarms follow most of them.)
        #expect(try await !moves(database) { try await database.setAuthorizationStatus(.authorized) }.moved)
        #expect(try await !moves(database) { try await database.saveOnboarding(OnboardingMachine()) }.moved)
        #expect(
            try await !moves(database) { _ = try await database.addChannel(RemoteChannel(name: "mail", kind: .email, target: "a@b.c"), now: at(10)) }
                .moved
        )
        #expect(try await !moves(database) { _ = try await database.rotateFeedToken() }.moved)
    }

    /// A raw write through the one write path, as a future use case might
    /// make it, moves it too: nothing to remember.
    @Test func aWriteNoUseCaseKnowsOfMovesItToo() async throws {
        let database = try AppDatabase.inMemory()
        try importing([contact("Ada", uid: "ada", birthday: event(1815, 12, 10))], into: database, at: at(1))
        let moved = try await moves(database) {
            try database.writeNow(at: at(2)) { db in try db.execute(sql: "UPDATE person SET name = 'Ada King' WHERE id = 'ada'") }
        }
        #expect(moved == (true, at(2)))
        let bookkeeping = try await moves(database) {
            try database.writeNow(at: at(3)) { db in try db.execute(sql: "UPDATE person SET updatedAt = updatedAt + 1") }
        }
        #expect(!bookkeeping.moved, "when a row changed is not what its events are made of")
        let deleted = try await moves(database) { try database.writeNow { db in try db.execute(sql: "DELETE FROM person") } }
        #expect(deleted.moved)
        #expect(abs(deleted.at.timeIntervalSinceNow) < 60, "without an instant given, the real time")
    }
}
