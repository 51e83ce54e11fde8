import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// The greetings' plan planned again for the few people a change names
/// (issue 44: one greeted friend changed made ten thousand greetings be
/// planned again): after each change, written through another connection
/// as another process would, the triggers note whom it names (or take the
/// plan away, or note nothing), and the pending requests a reschedule
/// leaves (the greetings, the reminders and their day-before lines) are
/// those a plan of everyone from scratch at the same instant leaves, row for row.
@Suite struct GreetingReplanTests {
    static let planned = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let later = planned.addingTimeInterval(3600)

    /// What a change should leave for the next reschedule.
    enum Noted: Equatable {
        /// These cards noted, the plan kept: their people planned again (none: the plan kept whole).
        case cards(Set<String>)
        /// The plan taken away: everyone planned again.
        case dropped
    }

    struct Scenario: CustomTestStringConvertible, Sendable {
        let name: String
        let noted: Noted
        /// The friends with a greeting pending afterwards.
        let greeted: [String]
        /// Whether a greeting pending moves (not only who has one).
        var moves = false
        let change: @Sendable (Database) throws -> Void
        var testDescription: String { name }
    }

    /// Everyone greeted before any change: Ana by her own choice, Bob in
    /// Friends by his categories, Cyd in Club by the book's group card, Hal
    /// by his linked card Hal 2's categories (Friends); not Eve (in Friends,
    /// but Quiet excludes), Dee or Ivy (Golf: a rule of reminder days only).
    static let everyone = ["ana", "bob", "cyd", "hal"]

    static let scenarios: [Scenario] = [
        Scenario(name: "a greeted friend's date", noted: .cards(["bob"]), greeted: everyone, moves: true) { db in
            try db.execute(sql: "UPDATE person SET birthdayMonth = 1, birthdayDay = 5 WHERE id = 'bob'")
        },
        Scenario(name: "a greeted friend's zone", noted: .cards(["ana"]), greeted: everyone, moves: true) { db in
            try db.execute(sql: "UPDATE person SET zoneChoice = 'America/New_York' WHERE id = 'ana'")
        },
        Scenario(name: "a greeted friend's only e-mail address", noted: .cards(["bob"]), greeted: ["ana", "cyd", "hal"]) { db in
            try ContactPointRecord.replace(personID: "bob", with: [], db)
        },
        Scenario(name: "a greeted friend's phone number", noted: .cards([]), greeted: everyone) { db in
            try db.execute(sql: "INSERT INTO contactPoint (personId, position, kind, value) VALUES ('bob', 1, 'phone', '+4930123456')")
        },
        Scenario(name: "a greeted friend's card written twice", noted: .cards(["bob"]), greeted: everyone, moves: true) { db in
            // As an import and then a sync in one transaction: each an upsert (ON CONFLICT DO UPDATE) that notes Bob.
            for name in ["Bob B.", "Bob C."] {
                var bob = try Fixture.person("bob", name, birthday: "1985-02-11")
                bob.groups = ["Friends"]
                bob.contactPoints = [ContactPoint(kind: .email, value: "bob@example.org")]
                try PersonRecord.write(bob, createdAt: 0, updatedAt: 0, imported: true, isNew: false, db)
            }
        },
        Scenario(name: "an excluded member of a greeted group renamed", noted: .cards(["eve"]), greeted: everyone) { db in
            try db.execute(sql: "UPDATE person SET name = 'Eve E.' WHERE id = 'eve'")
        },
        Scenario(name: "someone not greeted", noted: .cards([]), greeted: everyone) { db in
            try db.execute(sql: "UPDATE person SET name = 'Dee D.', birthdayDay = 21, note = 'tea' WHERE id = 'dee'")
            try ContactPointRecord.replace(personID: "dee", with: [ContactPoint(kind: .email, value: "dd@example.org")], db)
        },
        Scenario(name: "a greeted group's member added", noted: .cards(["dee"]), greeted: ["ana", "bob", "cyd", "dee", "hal"]) { db in
            try PersonGroupRecord.replace(personID: "dee", with: ["Friends", "Golf"], db)
        },
        Scenario(name: "a greeted group's member removed", noted: .cards(["bob"]), greeted: ["ana", "cyd", "hal"]) { db in
            try PersonGroupRecord.replace(personID: "bob", with: [], db)
        },
        Scenario(name: "a greeted group card's member added", noted: .cards(["ivy"]), greeted: ["ana", "bob", "cyd", "hal", "ivy"]) { db in
            try db.execute(sql: "INSERT INTO sourceGroupMember (sourceId, href, name, personId) VALUES (1, 'club.vcf', 'Club', 'ivy')")
        },
        Scenario(name: "a greeted group card gains a member in a sync", noted: .cards(["ivy"]), greeted: ["ana", "bob", "cyd", "hal", "ivy"]) { db in
            // As a sync writes the card it fetched again: only the member it gained is a row written, so only Ivy is noted.
            try SourceGroupMemberRecord.replace(sourceId: 1, href: "club.vcf", with: [GroupCard(name: "Club", members: ["cyd", "ivy"])], db)
        },
        Scenario(name: "a greeted group card's member removed", noted: .cards(["cyd"]), greeted: ["ana", "bob", "hal"]) { db in
            try db.execute(sql: "DELETE FROM sourceGroupMember WHERE personId = 'cyd'")
        },
        Scenario(name: "the book no longer has a group card's member", noted: .cards(["cyd"]), greeted: ["ana", "bob", "hal"]) { db in
            // As a sync does: who a source has has no trigger.
            try db.execute(sql: "DELETE FROM sourcePerson WHERE personId = 'cyd'")
            try RevisionRecord.move(db)
            try GreetingPlanTriggers.changedHolding(of: ["cyd"], db)
        },
        Scenario(name: "a greeted person's linked card leaves the group", noted: .cards(["hal", "hal2"]), greeted: ["ana", "bob", "cyd"]) { db in
            try PersonGroupRecord.replace(personID: "hal2", with: [], db)
        },
        Scenario(name: "a greeted person's linked card renamed", noted: .cards(["hal", "hal2"]), greeted: everyone) { db in
            try db.execute(sql: "UPDATE person SET name = 'Hal Second' WHERE id = 'hal2'")
        },
        Scenario(name: "a greeted person's linked card deleted", noted: .cards(["hal", "hal2"]), greeted: ["ana", "bob", "cyd"]) { db in
            // Its groups, link and contact points go with it (ON DELETE CASCADE), in SQLite's order.
            try db.execute(sql: "DELETE FROM person WHERE id = 'hal2'")
        },
        Scenario(name: "a card linked to a greeted person", noted: .cards(["bob", "bob2"]), greeted: everyone) { db in
            try PersonRecord.write(
                try Fixture.person("bob2", "Bob", birthday: "1985-02-11"),
                createdAt: 0,
                updatedAt: 0,
                imported: true,
                isNew: true,
                db
            )
            try PersonLinkRecord.replace(with: ["hal2": "hal", "ivy2": "ivy", "bob2": "bob"], db)
        },
        Scenario(name: "a greeted card linked to someone not greeted", noted: .cards(["dee", "dee2"]), greeted: ["ana", "bob", "cyd", "dee", "hal"]) {
            db in
            var card = try Fixture.person("dee2", "Dee", birthday: "1991-01-20")
            card.groups = ["Friends"]
            try PersonRecord.write(card, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db)
            try PersonLinkRecord.replace(with: ["hal2": "hal", "ivy2": "ivy", "dee2": "dee"], db)
        },
        Scenario(name: "a linked card of someone not greeted", noted: .cards([]), greeted: everyone) { db in
            try db.execute(sql: "UPDATE person SET name = 'Ivy Second' WHERE id = 'ivy2'")
        },
        Scenario(name: "an excluded member leaves the excluding group", noted: .cards(["eve"]), greeted: ["ana", "bob", "cyd", "eve", "hal"]) { db in
            try PersonGroupRecord.replace(personID: "eve", with: ["Friends"], db)
        },
        Scenario(name: "a member leaves a group whose rule sets days only", noted: .cards([]), greeted: everyone) { db in
            try PersonGroupRecord.replace(personID: "ivy", with: [], db)
        },
        Scenario(name: "a rule of days only changed", noted: .cards([]), greeted: everyone) { db in
            try SharedRuleRecord.save(SharedRule(scope: .group("Golf"), reminderDays: ReminderDays([3])), db)
        },
        Scenario(name: "an excluding rule turned to including", noted: .dropped, greeted: ["ana", "bob", "cyd", "eve", "hal"]) { db in
            try SharedRuleRecord.save(SharedRule(scope: .group("Quiet"), exclusion: .include), db)
        },
        Scenario(name: "an excluding rule that keeps its days taken away", noted: .dropped, greeted: ["ana", "bob", "cyd", "eve", "hal"]) { db in
            try SharedRuleRecord.save(SharedRule(scope: .group("Quiet"), reminderDays: ReminderDays([1])), db)
        },
        Scenario(name: "settings written with the values they have", noted: .cards([]), greeted: everyone) { db in
            try SettingRecord.set("09:00", for: SettingKey.greetingTime.rawValue, db)
            try SettingRecord.set("08:00", for: SettingKey.deliveryTime.rawValue, db)
        },
        Scenario(name: "a setting changed", noted: .dropped, greeted: everyone) { db in
            try SettingRecord.set("08:30", for: SettingKey.deliveryTime.rawValue, db)
        },
    ]

    /// The fixture, in a real SQLite file, planned at ``planned``; and a second connection to it.
    static func bed() async throws -> (TemporaryDatabase, other: AppDatabase) {
        let bed = try TemporaryDatabase(file: true)
        let database = bed.database
        func person(_ id: String, _ name: String, _ birthday: String, groups: [String] = [], zone: String? = nil) throws -> Person {
            var person = try Fixture.person(id, name, birthday: birthday)
            person.groups = groups
            person.contactPoints = [ContactPoint(kind: .email, value: id + "@example.org")]
            person.zoneChoice = zone.flatMap(ZoneChoice.init(storedValue:))
            return person
        }
        let people = [
            try person("ana", "Ana Lima", "1990-01-10", zone: "Asia/Tokyo"),
            try person("bob", "Bob", "1985-02-11", groups: ["Friends"]),
            try person("cyd", "Cyd", "1970-03-12"),
            try person("dee", "Dee", "1991-01-20", groups: ["Golf"]),
            try person("eve", "Eve", "1992-02-02", groups: ["Friends", "Quiet"]),
            try person("hal", "Hal", "1980-01-25"),
            try person("hal2", "Hal", "1980-01-25", groups: ["Friends"]),
            try person("ivy", "Ivy", "1993-01-03", groups: ["Golf"]),
            try person("ivy2", "Ivy", "1993-01-03"),
        ]
        let book = try await database.addSource(
            Source(name: "book", kind: .vdir, location: try #require(bed.directory).appendingPathComponent("book").path),
            now: planned
        )
        #expect(book.id == 1)
        try database.writeNow { db in
            for person in people { try PersonRecord.write(person, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db) }
            for person in people {
                try db.execute(
                    sql: "INSERT INTO sourcePerson (sourceId, href, personId, fingerprint) VALUES (1, ?, ?, '')",
                    arguments: [person.id + ".vcf", person.id]
                )
            }
            try db.execute(sql: "INSERT INTO sourceGroupMember (sourceId, href, name, personId) VALUES (1, 'club.vcf', 'Club', 'cyd')")
            try PersonLinkRecord.replace(with: ["hal2": "hal", "ivy2": "ivy"], db)
            try SharedRuleRecord.save(SharedRule(scope: .group("Quiet"), exclusion: .exclude, reminderDays: ReminderDays([1])), db)
            try SharedRuleRecord.save(SharedRule(scope: .group("Golf"), reminderDays: ReminderDays([7])), db)
            try SettingRecord.set("09:00", for: SettingKey.greetingTime.rawValue, db)
            try SettingRecord.set("08:00", for: SettingKey.deliveryTime.rawValue, db)
        }
        // Opened before the plan, as the daemon's beside a command.
        let other = try AppDatabase.openFile(at: try #require(bed.directory).appendingPathComponent("test.sqlite").path)
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .person("ana")), now: planned)
        _ = try await database.addGreeting(Greeting(target: .group("Friends")), now: planned)
        _ = try await database.addGreeting(Greeting(target: .group("Club")), now: planned)
        _ = try await scheduler(database, at: planned).reschedule()
        return (bed, other)
    }

    static func scheduler(_ database: AppDatabase, at instant: Date) throws -> NotificationScheduler {
        Fixture.scheduler(database, now: instant, zone: try Fixture.zone("Europe/Berlin"))
    }

    /// Every pending row, every column, in id order.
    static func pending(_ database: AppDatabase) async throws -> [[String]] {
        try await database.read { db in
            let columns = PendingNotificationRecord.storedColumns.joined(separator: ", ")
            return try Row.fetchAll(db, sql: "SELECT \(columns) FROM pendingNotification ORDER BY id").map { row in
                row.databaseValues.map(\.description)
            }
        }
    }

    /// The greetings among `rows` (``pending(_:)``).
    static func greetings(_ rows: [[String]]) -> [[String]] {
        rows.filter { $0[0].hasPrefix("\"greet:") }
    }

    static func stamp(_ database: AppDatabase) async throws -> GreetingPlan.Stamp? {
        try await database.read { db in try SettingRecord.value(.greetingPlan, db) }.flatMap(GreetingPlan.Stamp.init(text:))
    }

    @Test(arguments: scenarios)
    func aChangePlansAgainWhatAPlanOfEveryoneWould(_ scenario: Scenario) async throws {
        let (bed, other) = try await Self.bed()
        let database = bed.database
        let before = try await Self.pending(database)
        let first = try #require(try await Self.stamp(database))
        #expect(first.plannedAt == Self.planned)
        try other.writeNow { db in try scenario.change(db) }

        // What the change left: the cards noted, or no plan.
        let noted = try await database.read { db in try GreetingPlanTriggers.changedCards(db) }
        let stamped = try await Self.stamp(database) != nil
        #expect((stamped ? Noted.cards(noted) : .dropped) == scenario.noted)

        let replanned = try await Self.scheduler(database, at: Self.later).reschedule()
        let rows = try await Self.pending(database)
        let stamp = try #require(try await Self.stamp(database))
        #expect(try await database.read { db in try GreetingPlanTriggers.changedCards(db) }.isEmpty, "the cards noted are forgotten")
        if scenario.noted == .dropped {
            #expect(stamp.plannedAt == Self.later, "planned again whole")
        } else {
            #expect(stamp.plannedAt == Self.planned, "the plan kept, but for the cards noted")
        }
        let greeted = Self.greetings(rows).map { $0[1].replacingOccurrences(of: "\"", with: "") }
        #expect(greeted == scenario.greeted)
        if scenario.moves { #expect(Self.greetings(rows) != Self.greetings(before), "a greeting moved") }
        if scenario.noted == .cards([]) { #expect(Self.greetings(rows) == Self.greetings(before), "nothing planned again") }

        // A plan of everyone from scratch at the same instant.
        try database.writeNow { db in try GreetingPlanTriggers.drop(db) }
        let whole = try await Self.scheduler(database, at: Self.later).reschedule()
        let wholeRows = try await Self.pending(database)
        let wholeStamp = try #require(try await Self.stamp(database))
        #expect(wholeStamp.plannedAt == Self.later)
        #expect(rows == wholeRows, "the same pending rows")
        #expect(replanned.scheduled == whole.scheduled)
        #expect(replanned.people == whole.people)
        #expect(replanned.first == whole.first)
        #expect(replanned.last == whole.last)
        #expect(stamp.saved == wholeStamp.saved && stamp.first == wholeStamp.first && stamp.last == wholeStamp.last)
        #expect(stamp.validUntil <= wholeStamp.validUntil, "ends no later than a plan of everyone")
    }

    /// Past ``GreetingPlan/Stamp/replanLimit`` cards noted, the plan goes
    /// (a group renamed on every card): nothing more is noted, and the next
    /// reschedule plans everyone.
    @Test func aChangeOfManyTakesThePlanAway() async throws {
        let (bed, other) = try await Self.bed()
        let database = bed.database
        try other.writeNow { db in
            for index in 0..<GreetingPlan.Stamp.replanLimit {
                try db.execute(
                    sql: "INSERT INTO sourceGroupMember (sourceId, href, name, personId) VALUES (1, 'club.vcf', 'Club', ?)",
                    arguments: ["member\(index)"]
                )
            }
        }
        #expect(try await Self.stamp(database) != nil, "as many as the limit: noted")
        #expect(try await database.read { db in try GreetingPlanTriggers.changedCards(db) }.count == GreetingPlan.Stamp.replanLimit)
        try other.writeNow { db in try PersonGroupRecord.replace(personID: "dee", with: ["Friends"], db) }
        #expect(try await Self.stamp(database) == nil, "one more: the plan goes")
        _ = try await Self.scheduler(database, at: Self.later).reschedule()
        #expect(try await Self.stamp(database)?.plannedAt == Self.later)
        #expect(try await database.read { db in try GreetingPlanTriggers.changedCards(db) }.isEmpty)
        #expect(try await Self.pending(database).contains { $0[0] == "\"greet:dee\"" })
    }
}
