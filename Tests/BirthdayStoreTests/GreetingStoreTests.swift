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

    /// Whom a reschedule greets, read from the columns greeting needs
    /// (issue 44): of two greeted groups the first by name decides (A-team
    /// by e-mail without `--to`: nobody without an address of their own;
    /// B-team through Apprise); a choice of their own wins over a group's;
    /// an excluded or deceased member is not greeted; a card shown as
    /// another person greets that person, once, on the birthday chosen among
    /// their cards (the card with a year), as reminders have it.
    @Test func theGreetedAreThoseTheRulesChoose() async throws {
        let bed = try TemporaryDatabase()
        func person(_ id: String, _ birthday: String, groups: [String], email: Bool = false, excluded: Bool = false) throws -> Person {
            var person = try Fixture.person(id, id.capitalized, birthday: birthday, excluded: excluded)
            person.groups = groups
            if email { person.contactPoints = [ContactPoint(kind: .email, value: id + "@example.org")] }
            return person
        }
        var gus = try person("gus", "1960-08-01", groups: ["B-team"])
        gus.deathDate = "2020-01-01"
        let people = [
            try person("cyd", "1990-05-01", groups: ["A-team", "B-team"]),  // A-team decides: no address
            try person("dee", "1991-06-02", groups: ["A-team"], email: true),
            try person("eve", "1992-07-03", groups: ["A-team", "B-team"]),  // her own choice
            try person("fay", "1993-08-04", groups: ["A-team"], email: true, excluded: true),
            gus,
            try person("hal", "1994-09-05", groups: ["B-team"]),
            try person("ivy", "--10-06", groups: []),
            try person("ivy-card", "1980-11-20", groups: ["B-team"]),  // shown as ivy, and its birthday (with a year) chosen
        ]
        try bed.database.writeNow { db in
            for person in people { try PersonRecord.write(person, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db) }
            try PersonLinkRecord.replace(with: ["ivy-card": "ivy"], db)
            _ = try GreetingRecord.add(Greeting(target: .group("B-team"), way: .apprise), now: Self.now, db)
            _ = try GreetingRecord.add(Greeting(target: .group("A-team")), now: Self.now, db)
            _ = try GreetingRecord.add(Greeting(target: .person("eve"), way: .apprise), now: Self.now, db)
        }
        let plans = try await bed.database.read { db in
            try AppDatabase.greetingPlans(db, settings: Settings(), timeZone: TimeZone(identifier: "UTC")!, now: Self.now)
        }
        #expect(plans.map(\.personID) == ["dee", "eve", "hal", "ivy"])
        #expect(plans.map { $0.next.day.description } == ["2026-06-02", "2026-07-03", "2026-09-05", "2026-11-20"])
        #expect(plans.map(\.name) == ["Dee", "Eve", "Hal", "Ivy"])
        #expect(plans.last?.next.age == 46)
    }

    /// A person whose shown card (the smallest id) has no birthday and whose
    /// linked card has one is greeted on that card's day, as they are
    /// reminded: by the scheduler's plans, in the roster (`greet list`) and
    /// by the delivery engine's check of whom a greeting still reaches.
    @Test func aPersonIsGreetedOnTheBirthdayOfTheirLinkedCard() async throws {
        let bed = try TemporaryDatabase()
        let people = [try Fixture.person("jo", "Jo"), try Fixture.person("jo-card", "Jo", birthday: "1985-04-15")]
        try bed.database.writeNow { db in
            for person in people { try PersonRecord.write(person, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db) }
            try PersonLinkRecord.replace(with: ["jo-card": "jo"], db)
            _ = try GreetingRecord.add(Greeting(target: .person("jo"), way: .apprise), now: Self.now, db)
        }
        let plans = try await bed.database.read { db in
            try AppDatabase.greetingPlans(db, settings: Settings(), timeZone: TimeZone(identifier: "UTC")!, now: Self.now)
        }
        #expect(plans.map(\.personID) == ["jo"])
        #expect(plans.map { $0.next.day.description } == ["2026-04-15"])
        let roster = try await bed.database.greetingRoster(now: Self.now, systemTimeZone: try Fixture.zone("UTC"))
        let listed = roster.choices.flatMap(\.people)
        #expect(listed.map(\.person.id) == ["jo"])
        #expect(listed.first?.next?.day == LocalDate(year: 2026, month: 4, day: 15))
        let due = try await bed.database.read { db in try GreetingDue.read(personIDs: ["jo"], db) }
        #expect(due["jo"]?.person.birthday == EventDate(year: 1985, month: 4, day: 15))
        #expect(due["jo"]?.greeting != nil)
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

    /// A reschedule plans the greetings again only when their plan may have
    /// changed (``GreetingPlan/Stamp``, issue 44). An hour later with nothing
    /// changed the greeting pending stays as it is (a title written over it
    /// survives), is counted as before, and the day-before reminder still
    /// says when it goes; another `greeting-time`, the greeted person renamed
    /// (``GreetingPlanTriggers``), the greeting's instant come and a skip each plan it again.
    @Test func aRescheduleKeepsTheGreetingsWhosePlanHolds() async throws {
        let bed = try TemporaryDatabase()
        let database = bed.database
        let people = [try Fixture.person("ana", "Ana Lima", birthday: "1990-01-02"), try Fixture.person("bob", "Bob", birthday: "--01-20")]
        try database.insertPeople(people, now: Self.now)
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .person("ana"), way: .email(address: "ana@example.org")), now: Self.now)
        let utc = try Fixture.zone("UTC")
        func reschedule(hours: Double) async throws -> RescheduleResult {
            try await Fixture.scheduler(database, now: Self.now.addingTimeInterval(hours * 3600), zone: utc).reschedule()
        }
        func greeting() async throws -> (title: String, day: String, fireAt: Double)? {
            try await database.read { db in
                try Row.fetchOne(db, sql: "SELECT title, occurrenceDate, fireAt FROM pendingNotification WHERE id = 'greet:ana'")
                    .map { ($0[0], $0[1], $0[2]) }
            }
        }
        func overwrite() throws {
            try database.writeNow { db in try db.execute(sql: "UPDATE pendingNotification SET title = 'as planned' WHERE id = 'greet:ana'") }
        }
        let planned = try await reschedule(hours: 0)
        #expect(try await greeting()?.title == "Ana Lima")
        #expect(try await greeting()?.day == "2026-01-02")
        try overwrite()
        let kept = try await reschedule(hours: 1)
        #expect(try await greeting()?.title == "as planned", "kept as it was")
        #expect(kept.scheduled == planned.scheduled)
        #expect(kept.people == planned.people)
        #expect(kept.first == planned.first)
        #expect(kept.last == planned.last)
        let dayBefore = try #require(kept.requests.first { $0.personID == "ana" && $0.timing == .dayBefore })
        #expect(dayBefore.body.contains("birthdays greet skip"), "the day-before line from the kept plan: \(dayBefore.body)")

        // Another `greeting-time`, written with the revision held (the transaction's mark says it moved
        // already): the time itself, not the revision a setting moves, makes the plan again.
        let revision = try await database.revision().value
        try database.writeNow { db in
            try db.execute(sql: "INSERT INTO temp.revisionMark (instant, moved) VALUES (NULL, 1)")
            try SettingRecord.set("10:00", for: SettingKey.greetingTime.rawValue, db)
        }
        #expect(try await database.revision().value == revision, "the revision held")
        _ = try await reschedule(hours: 2)
        #expect(try await greeting()?.title == "Ana Lima", "planned again at another time")
        #expect(try await greeting()?.fireAt == Self.now.addingTimeInterval((24 + 10) * 3600).timeIntervalSince1970)

        try overwrite()
        try database.writeNow { db in try db.execute(sql: "UPDATE person SET name = 'Ana L.' WHERE id = 'ana'") }
        _ = try await reschedule(hours: 3)
        #expect(try await greeting()?.title == "Ana L.", "a change of the person")

        // Planned again at 09:00 on her birthday (the plan of 03:00 is a day old: past its horizon), an hour
        // before her greeting; the next reschedule, just after 10:00, is within the day: only the greeting due
        // since makes the plan again.
        _ = try await reschedule(hours: 24 + 9)
        let stamp = try #require(try await database.read { db in try SettingRecord.value(.greetingPlan, db) }.flatMap(GreetingPlan.Stamp.init(text:)))
        #expect(stamp.plannedAt == Self.now.addingTimeInterval((24 + 9) * 3600))
        #expect(stamp.validUntil == Self.now.addingTimeInterval((24 + 10) * 3600), "until her greeting's instant")
        try overwrite()
        _ = try await reschedule(hours: 24 + 10 + 1 / 60)
        #expect(try await greeting()?.day == "2027-01-02", "today's went into the ledger: next year's")
        let ledger = try await database.read { db in try DeliveryRecord.latestGreetings(db) }
        #expect(ledger["ana"]?.day == LocalDate(year: 2026, month: 1, day: 2))

        try overwrite()
        #expect(try await database.skipGreeting(personID: "ana", year: 2027))
        _ = try await reschedule(hours: 24 + 11)
        #expect(try await greeting()?.day == "2028-01-02", "skipped")
        #expect(try await greeting()?.title == "Ana L.")
    }

    /// A change no greeting is made from keeps the plan (issue 44: an
    /// import or a sync that touched no greeted friend made ten thousand
    /// greetings be planned again): someone not greeted renamed, given an
    /// address, put in a group no one greets, though the data revision moved.
    @Test func aChangeOfSomeoneNotGreetedKeepsThePlan() async throws {
        let bed = try TemporaryDatabase()
        let database = bed.database
        var cyd = try Fixture.person("cyd", "Cyd", birthday: "1970-05-06")
        cyd.groups = ["Friends"]
        try database.writeNow { db in
            for person in [try Fixture.person("ana", "Ana Lima", birthday: "1990-01-02"), try Fixture.person("bob", "Bob", birthday: "--01-20"), cyd]
            {
                try PersonRecord.write(person, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db)
            }
        }
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .person("ana"), way: .apprise), now: Self.now)
        _ = try await database.addGreeting(Greeting(target: .group("Friends"), way: .apprise), now: Self.now)
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("UTC"))
        func titles() async throws -> [String] {
            try await database.read { db in try String.fetchAll(db, sql: "SELECT title FROM pendingNotification WHERE id LIKE 'greet:%' ORDER BY id")
            }
        }
        _ = try await scheduler.reschedule()
        #expect(try await titles() == ["Ana Lima", "Cyd"])
        try database.writeNow { db in try db.execute(sql: "UPDATE pendingNotification SET title = 'as planned' WHERE id LIKE 'greet:%'") }
        let revision = try await database.revision().value
        try database.writeNow { db in
            try db.execute(sql: "UPDATE person SET name = 'Bob B.', birthdayDay = 21 WHERE id = 'bob'")
            try ContactPointRecord.replace(personID: "bob", with: [ContactPoint(kind: .email, value: "bob@example.org")], db)
            try PersonGroupRecord.replace(personID: "bob", with: ["Golf"], db)
        }
        #expect(try await database.revision().value > revision, "the data revision moved")
        let kept = try await scheduler.reschedule()
        #expect(try await titles() == ["as planned", "as planned"], "the plan kept")
        #expect(kept.kept.count == 2)
    }

    /// A greeted friend's contact points and a greeted group's members
    /// decide who is planned, even written alone: a friend greeted by e-mail
    /// whose only address is removed is no longer planned, one given an
    /// address is, and so is one who joins the group; one who leaves it is not.
    @Test func aGreetedFriendsAddressAndGroupPlanAgain() async throws {
        let bed = try TemporaryDatabase()
        let database = bed.database
        func person(_ id: String, _ birthday: String, groups: [String], email: Bool) throws -> Person {
            var person = try Fixture.person(id, id.capitalized, birthday: birthday)
            person.groups = groups
            if email { person.contactPoints = [ContactPoint(kind: .email, value: id + "@example.org")] }
            return person
        }
        let people = [
            try person("ana", "1990-03-10", groups: ["Friends"], email: true),
            try person("bob", "1991-04-11", groups: ["Friends"], email: false),
            try person("cyd", "1992-05-12", groups: [], email: true),
            try person("dee", "1993-06-13", groups: ["Friends"], email: true),
        ]
        try database.writeNow { db in
            for person in people { try PersonRecord.write(person, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db) }
        }
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .group("Friends")), now: Self.now)
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("UTC"))
        func planned() async throws -> [String] {
            try await database.read { db in
                try String.fetchAll(db, sql: "SELECT personId FROM pendingNotification WHERE id LIKE 'greet:%' ORDER BY id")
            }
        }
        _ = try await scheduler.reschedule()
        #expect(try await planned() == ["ana", "dee"])
        try database.writeNow { db in
            try ContactPointRecord.replace(personID: "ana", with: [], db)
            try ContactPointRecord.replace(personID: "bob", with: [ContactPoint(kind: .email, value: "bob@example.org")], db)
        }
        _ = try await scheduler.reschedule()
        #expect(try await planned() == ["bob", "dee"], "the address removed and the address given")
        try database.writeNow { db in
            try PersonGroupRecord.replace(personID: "cyd", with: ["Friends"], db)
            try PersonGroupRecord.replace(personID: "dee", with: [], db)
        }
        _ = try await scheduler.reschedule()
        #expect(try await planned() == ["bob", "cyd"], "one joined the group, one left it")
    }

    /// A connection opened before there was a plan (the daemon's, say) takes
    /// it away too when it writes what a greeting is made from: its triggers
    /// are made at the start of its first write transaction that finds a plan.
    @Test func aConnectionOpenedBeforeThePlanTakesItAway() async throws {
        let bed = try TemporaryDatabase(file: true)
        let database = bed.database
        let other = try AppDatabase.openFile(at: try #require(bed.directory).appendingPathComponent("test.sqlite").path)
        let scheduler = try await Self.anaGreetedByEmail(in: database)
        _ = try await scheduler.reschedule()
        #expect(try await Self.plannedGreetings(database) == ["ana"])
        try other.writeNow { db in try ContactPointRecord.replace(personID: "ana", with: [], db) }
        _ = try await scheduler.reschedule()
        #expect(try await Self.plannedGreetings(database) == [], "her only address removed through the other connection")
    }

    /// Ana (born 1990-03-10) with one e-mail address, greeted, notifications
    /// allowed: the scheduler that plans her greeting in `database`.
    static func anaGreetedByEmail(in database: AppDatabase) async throws -> NotificationScheduler {
        var ana = try Fixture.person("ana", "Ana Lima", birthday: "1990-03-10")
        ana.contactPoints = [ContactPoint(kind: .email, value: "ana@example.org")]
        try database.writeNow { db in try PersonRecord.write(ana, createdAt: 0, updatedAt: 0, imported: true, isNew: true, db) }
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .person("ana")), now: now)
        return try Fixture.scheduler(database, now: now, zone: Fixture.zone("UTC"))
    }

    /// Whose greetings are pending in `database`.
    static func plannedGreetings(_ database: AppDatabase) async throws -> [String] {
        try await database.read { db in try String.fetchAll(db, sql: "SELECT personId FROM pendingNotification WHERE id LIKE 'greet:%'") }
    }

    /// A migration applied since the plan was made (one that rewrites the
    /// pending requests, say) makes it again: the stamp's inputs hold the
    /// migrations applied.
    @Test func aMigrationAppliedSinceMakesThePlanAgain() async throws {
        let bed = try TemporaryDatabase()
        let database = bed.database
        try database.insertPeople([try Fixture.person("ana", "Ana Lima", birthday: "1990-01-02")], now: Self.now)
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addGreeting(Greeting(target: .person("ana"), way: .apprise), now: Self.now)
        let scheduler = try Fixture.scheduler(database, now: Self.now, zone: Fixture.zone("UTC"))
        func title() async throws -> String? {
            try await database.read { db in try String.fetchOne(db, sql: "SELECT title FROM pendingNotification WHERE id = 'greet:ana'") }
        }
        _ = try await scheduler.reschedule()
        #expect(try await title() == "Ana Lima")
        try database.writeNow { db in try db.execute(sql: "UPDATE pendingNotification SET title = 'as planned' WHERE id = 'greet:ana'") }
        _ = try await scheduler.reschedule()
        #expect(try await title() == "as planned", "the plan holds")

        // A later version's migration, as the migrator records it, rewrites the pending requests.
        try database.writeNow { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
            try db.execute(sql: "UPDATE pendingNotification SET title = 'rewritten' WHERE id = 'greet:ana'")
        }
        _ = try await scheduler.reschedule()
        #expect(try await title() == "Ana Lima", "planned again")
    }
}
