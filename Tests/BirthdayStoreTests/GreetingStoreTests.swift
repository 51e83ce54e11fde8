import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The greeting choices and skips (migration `v32-greetings`, issue 44): one
/// choice per person or group, gone with their person, no URL in any
/// column, and the roster read with no note.
@Suite struct GreetingStoreTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    private static func bed() throws -> TemporaryDatabase {
        let bed = try TemporaryDatabase()
        var ana = try Fixture.person("ana", "Ana Lima", birthday: "1990-03-10")
        ana.groups = ["Family"]
        ana.note = "likes orchids"
        try bed.database.insertPeople([ana, try Fixture.person("bob", "Bob", birthday: "--07-01")], now: now)
        try bed.database.writeNow { db in
            try PersonGroupRecord.replace(personID: "ana", with: ["Family"], db)
            try db.execute(sql: "UPDATE person SET note = 'likes orchids' WHERE id = 'ana'")
        }
        return bed
    }

    @Test func aChoiceIsStoredOncePerPersonOrGroupAndReadBack() async throws {
        let bed = try Self.bed()
        let template = try GreetingTemplate("Happy {age}th, {first}!")
        let stored = try #require(
            try await bed.database.addGreeting(
                Greeting(target: .person("ana"), way: .email(address: "ana@example.org"), message: template, language: "pt"),
                now: Self.now
            )
        )
        #expect(stored.id != nil)
        #expect(try await bed.database.addGreeting(Greeting(target: .person("ana"), way: .apprise), now: Self.now) == nil, "one per person")
        let group = try #require(try await bed.database.addGreeting(Greeting(target: .group("Family")), now: Self.now))
        #expect(try await bed.database.addGreeting(Greeting(target: .group("Family")), now: Self.now) == nil, "one per group")
        #expect(try await bed.database.greetings() == [stored, group])
        #expect(try await bed.database.greeting(for: .person("ana"))?.message?.text == "Happy {age}th, {first}!")
        #expect(try await bed.database.greeting(for: .group("Family"))?.way == .email(address: nil))
        #expect(try await bed.database.removeGreeting(id: try #require(group.id)))
        #expect(try await bed.database.removeGreeting(id: try #require(group.id)) == false)
        #expect(try await bed.database.greetings() == [stored])
    }

    /// A choice names a person or a group, never both nor neither; and
    /// nobody who is not in the store.
    @Test func theTableRefusesAChoiceOfNobody() async throws {
        let bed = try Self.bed()
        #expect(throws: (any Error).self) {
            try bed.database.writeNow { db in
                try db.execute(sql: "INSERT INTO greeting (personId, groupName, way, createdAt) VALUES ('ana', 'Family', 'email', 0)")
            }
        }
        #expect(throws: (any Error).self) {
            try bed.database.writeNow { db in try db.execute(sql: "INSERT INTO greeting (way, createdAt) VALUES ('email', 0)") }
        }
        #expect(throws: (any Error).self) {
            try bed.database.writeNow { db in
                try db.execute(sql: "INSERT INTO greeting (personId, way, createdAt) VALUES ('nobody', 'email', 0)")
            }
        }
    }

    /// Ana's choice and skips go with her; Bob's and the group's stay.
    @Test func aPersonsChoiceAndSkipsGoWithThem() async throws {
        let bed = try Self.bed()
        _ = try await bed.database.addGreeting(Greeting(target: .person("ana"), way: .apprise), now: Self.now)
        _ = try await bed.database.addGreeting(Greeting(target: .person("bob"), way: .email(address: "bob@example.org")), now: Self.now)
        _ = try await bed.database.addGreeting(Greeting(target: .group("Family")), now: Self.now)
        #expect(try await bed.database.skipGreeting(personID: "ana", year: 2026))
        #expect(try await bed.database.skipGreeting(personID: "ana", year: 2026) == false, "skipped already")
        #expect(try await bed.database.skipGreeting(personID: "bob", year: 2026))
        try bed.database.writeNow { db in try db.execute(sql: "DELETE FROM person WHERE id = 'ana'") }
        #expect(try await bed.database.greetings().map(\.target) == [.person("bob"), .group("Family")])
        #expect(try await bed.database.greetingSkips() == ["bob": [2026]])
    }

    /// No column holds a URL: an Apprise greeting is its way alone.
    @Test func noColumnHoldsTheURL() async throws {
        let bed = try Self.bed()
        _ = try await bed.database.addGreeting(Greeting(target: .person("ana"), way: .apprise), now: Self.now)
        let values = try await bed.database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM greeting")?.databaseValues.map(\.description) ?? []
        }
        #expect(values.count == 8)
        #expect(!values.contains { $0.contains("://") }, "\(values)")
        #expect(try await bed.database.greeting(for: .person("ana"))?.way == .apprise)
    }

    /// A database of the version before opens with empty tables of greetings,
    /// and its people take a greeting and a skip.
    @Test func theMigrationAddsTheTablesToAnOldDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("old.sqlite")
        try AppDatabase.writeOld(
            at: path,
            upTo: "v30-name-day-tables",
            sql: """
                INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayMonth, birthdayDay, fingerprint, createdAt, updatedAt)
                VALUES ('ann', 'Anna', '/book/ann.vcf', 0, 1, 4, 12, 'old', 0, 0);
                """
        )
        let database = try AppDatabase.openFile(at: path)
        #expect(try await database.greetings().isEmpty)
        #expect(try await database.addGreeting(Greeting(target: .person("ann"), way: .email(address: "ann@example.org")), now: Self.now) != nil)
        #expect(try await database.skipGreeting(personID: "ann", year: 2026))
        #expect(try await database.greetingSkips() == ["ann": [2026]])
    }

    /// The roster is read with no note: nothing that greets sees one.
    @Test func theRosterCarriesNoNote() async throws {
        let bed = try Self.bed()
        #expect(try await bed.database.person(id: "ana")?.note == "likes orchids")
        _ = try await bed.database.addGreeting(Greeting(target: .group("Family")), now: Self.now)
        let roster = try await bed.database.greetingRoster(now: Self.now, systemTimeZone: try Fixture.zone("UTC"))
        let people = roster.choices.flatMap(\.people)
        #expect(people.map(\.person.id) == ["ana"])
        #expect(people.allSatisfy { $0.person.note == nil })
        #expect(people.first?.state == .noAddress)
        #expect(people.first?.next?.day == LocalDate(year: 2026, month: 3, day: 10))
    }
}
