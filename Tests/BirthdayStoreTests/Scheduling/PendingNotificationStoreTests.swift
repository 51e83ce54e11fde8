import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore
@testable import BirthdayText

@Suite struct PendingNotificationStoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func request(
        _ person: String,
        hoursFromNow: Double,
        title: String = "t",
        timing: NotificationRequest.Timing = .dayOf
    ) -> NotificationRequest {
        NotificationRequest(
            personID: person,
            kind: .birthday,
            timing: timing,
            fireAt: now.addingTimeInterval(hoursFromNow * 3600),
            occurrenceDate: LocalDate(dayNumber: 20_833 + Int(hoursFromNow / 24)),
            title: title,
            body: "b"
        )
    }

    /// A store, authorized, holding 64 requests firing 1…64 hours from now (p01 … p64).
    static func fullStore() throws -> (TemporaryDatabase, PendingNotificationStore) {
        let temporary = try TemporaryDatabase()
        let center = PendingNotificationStore(database: temporary.database)
        try center.setAuthorizationStatus(.authorized)
        for i in 1...64 {
            #expect(try center.add(request(String(format: "p%02d", i), hoursFromNow: Double(i)), now: now) == .added)
        }
        return (temporary, center)
    }

    @Test func sameIdentifierReplaces() async throws {
        let temporary = try TemporaryDatabase()
        let center = PendingNotificationStore(database: temporary.database)
        try center.setAuthorizationStatus(.authorized)
        #expect(try center.add(Self.request("ada", hoursFromNow: 5, title: "old"), now: Self.now) == .added)
        #expect(try center.add(Self.request("ada", hoursFromNow: 7, title: "new"), now: Self.now) == .replaced)
        let pending = try center.pending()
        #expect(pending.map(\.title) == ["new"])
        #expect(pending.first?.fireAt == Self.now.addingTimeInterval(7 * 3600))
    }

    @Test func aLater65thIsRejected() async throws {
        let (temporary, center) = try Self.fullStore()
        _ = temporary
        #expect(try center.add(Self.request("late", hoursFromNow: 100), now: Self.now) == .rejectedFull)
        #expect(try center.add(Self.request("tie", hoursFromNow: 64), now: Self.now) == .rejectedFull)  // "tie" > "p64" at the same instant
        #expect(try center.count() == 64)
        #expect(try !center.pending().contains { $0.personID == "late" })
    }

    @Test func anEarlier65thEvictsTheLatest() async throws {
        let (temporary, center) = try Self.fullStore()
        _ = temporary
        #expect(try center.add(Self.request("early", hoursFromNow: 0.5), now: Self.now) == .evicted(id: "p64-birthday-dayof"))
        let pending = try center.pending()
        #expect(pending.count == 64)
        #expect(pending.first?.personID == "early")
        #expect(pending.last?.personID == "p63")
    }

    @Test func replacingAtTheCapNeedsNoRoom() async throws {
        let (temporary, center) = try Self.fullStore()
        _ = temporary
        #expect(try center.add(Self.request("p64", hoursFromNow: 200, title: "moved"), now: Self.now) == .replaced)
        #expect(try center.count() == 64)
        #expect(try center.pending().last?.title == "moved")
    }

    @Test func pastAndUnauthorizedAreDropped() async throws {
        let temporary = try TemporaryDatabase()
        let center = PendingNotificationStore(database: temporary.database)
        #expect(try center.add(Self.request("ada", hoursFromNow: 5), now: Self.now) == .droppedNotAuthorized)
        try center.setAuthorizationStatus(.authorized)
        #expect(try center.add(Self.request("ada", hoursFromNow: 0), now: Self.now) == .droppedPast)
        #expect(try center.add(Self.request("ada", hoursFromNow: -1), now: Self.now) == .droppedPast)
        #expect(try center.count() == 0)
    }

    @Test func removeAndStatusPersist() async throws {
        let temporary = try TemporaryDatabase(file: true)
        let center = PendingNotificationStore(database: temporary.database)
        #expect(try center.authorizationStatus() == .notDetermined)
        try center.setAuthorizationStatus(.provisional)
        try center.add(Self.request("ada", hoursFromNow: 5), now: Self.now)
        try center.add(Self.request("bob", hoursFromNow: 6), now: Self.now)
        try center.remove(ids: ["ada-birthday-dayof", "unknown"])
        // A second handle on the same file sees the same state.
        let reopened = PendingNotificationStore(database: try AppDatabase.openFile(at: temporary.database.path))
        #expect(try reopened.authorizationStatus() == .provisional)
        #expect(try reopened.pending().map(\.id) == ["bob-birthday-dayof"])
        try reopened.removeAll()
        #expect(try center.count() == 0)
    }

    /// A greeting's pending request at `hoursFromNow` (``GreetingPlan``'s form: id `greet:PERSON`).
    static func greeting(_ person: String, hoursFromNow: Double) -> NotificationRequest {
        var request = NotificationRequest(
            personID: person,
            kind: .birthday,
            timing: .dayOf,
            fireAt: now.addingTimeInterval(hoursFromNow * 3600),
            occurrenceDate: LocalDate(dayNumber: 20_833),
            title: person,
            body: "",
            deliveryKind: .greeting(personID: person)
        )
        request.id = Greeting.notificationID(personID: person)
        return request
    }

    /// `takeDue` reads the reminders and the greetings due by now, never the
    /// thousands of later greetings (issue 44): a later greeting's row that
    /// would not even decode stays as it is, while the due ones are taken.
    @Test func takeDueLeavesLaterGreetingsUnread() async throws {
        let temporary = try TemporaryDatabase()
        let later = Self.greeting("ana", hoursFromNow: 5)
        let requests = [Self.request("bob", hoursFromNow: -1), Self.request("cyd", hoursFromNow: 3), Self.greeting("dee", hoursFromNow: -2), later]
        let due = try await temporary.database.write { db in
            try PendingNotificationRecord.replaceAll(with: requests, db)
            try db.execute(sql: "UPDATE pendingNotification SET userInfo = 'not JSON' WHERE id = ?", arguments: [later.id])
            return try PendingNotificationRecord.takeDue(now: Self.now, db) { $0.fireAt <= Self.now || $0.personID == "cyd" }
        }
        #expect(due.map(\.personID).sorted() == ["bob", "cyd", "dee"])
        let left = try await temporary.database.write { db in try PendingNotificationRecord.ids(db) }
        #expect(left == [later.id])
    }

    /// The rows that are no greeting are read along their own index (a
    /// reschedule that keeps 10,000 greetings, and `takeDue`), never by
    /// reading every greeting's row.
    @Test func theRowsThatAreNoGreetingAreReadAlongTheirIndex() async throws {
        let temporary = try TemporaryDatabase()
        let plans = try await temporary.database.write { db in
            try [PendingNotificationRecord.othersSQL, PendingNotificationRecord.dueSQL].map { sql in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: sql.contains("?") ? [0] : []).map { $0["detail"] as String }
            }
        }
        #expect(plans[0] == ["SCAN pendingNotification USING INDEX pendingNotification_others"])
        #expect(plans[1].contains("SCAN pendingNotification USING INDEX pendingNotification_others"), "\(plans[1])")
        #expect(!plans[1].contains("SCAN pendingNotification"), "\(plans[1])")
    }

    /// `replaceAll` compares the rows as stored, without decoding them: an
    /// unchanged plan writes nothing, and a row that would not decode is
    /// rewritten rather than failing the reschedule.
    @Test func replaceAllComparesStoredColumns() async throws {
        let temporary = try TemporaryDatabase()
        let requests = [Self.request("bob", hoursFromNow: 1), Self.greeting("ana", hoursFromNow: 5)]
        let (unchanged, rewritten) = try await temporary.database.write { db in
            try PendingNotificationRecord.replaceAll(with: requests, db)
            let before = db.totalChangesCount
            try PendingNotificationRecord.replaceAll(with: requests, db)
            let unchanged = db.totalChangesCount - before
            try db.execute(sql: "UPDATE pendingNotification SET userInfo = 'not JSON' WHERE id = ?", arguments: [requests[1].id])
            let broken = db.totalChangesCount
            try PendingNotificationRecord.replaceAll(with: requests, db)
            return (unchanged, db.totalChangesCount - broken)
        }
        #expect(unchanged == 0)
        #expect(rewritten == 1)
        let pending = try await temporary.database.write { db in try PendingNotificationRecord.requests(db) }
        #expect(pending == requests)
    }

    /// A text of the same length as the stored one is compared byte for
    /// byte: a body with one character changed, at the same `fireAt`, is the
    /// one row written; the others, equal, are not.
    @Test func replaceAllRewritesATextOfTheSameLengthThatDiffers() async throws {
        var bob = Self.request("bob", hoursFromNow: 1)
        bob.body = "Bob turns 36 today"
        var cyd = Self.request("cyd", hoursFromNow: 2)
        cyd.body = "Cyd turns 41 today"
        var changed = bob
        changed.body = "Bob turns 37 today"
        let (requests, replanned) = ([bob, cyd], [changed, cyd])
        let temporary = try TemporaryDatabase()
        let written = try await temporary.database.write { db in
            try PendingNotificationRecord.replaceAll(with: requests, db)
            let before = db.totalChangesCount
            try PendingNotificationRecord.replaceAll(with: replanned, db)
            return db.totalChangesCount - before
        }
        #expect(written == 1)
        let pending = try await temporary.database.write { db in try PendingNotificationRecord.requests(db) }
        #expect(pending == replanned)
    }

    /// The columns `replaceAll` compares and writes without Codable are
    /// those the Codable encoding writes, value for value (so a row stored
    /// by an earlier version is not rewritten): a reminder, a greeting, a
    /// digest, with words an encoder escapes.
    @Test func theStoredColumnsAreTheCodableOnes() throws {
        var reminder = Self.request("ana", hoursFromNow: 3, title: #"Ünï "quoted"/slashed\ 美咲"#, timing: .dayBefore)
        reminder.body = "line\nnext\ttab"
        reminder.userInfo["note"] = #"a/b "c" \d é"#
        var digest = Self.request("", hoursFromNow: 30)
        digest.deliveryKind = .digest(.weekly)
        digest.userInfo = [:]
        for request in [reminder, Self.greeting("bob", hoursFromNow: 5), digest] {
            let record = PendingNotificationRecord(request)
            let codable = try record.databaseDictionary
            let values = record.storedValues(userInfo: try PendingNotificationRecord.userInfoJSON(record.userInfo))
            #expect(Set(codable.keys) == Set(PendingNotificationRecord.storedColumns))
            #expect(PendingNotificationRecord.storedColumns.map { codable[$0] } == values.map { $0 })
        }
    }

    /// Of ten thousand pending greetings, the one whose plan changed is the
    /// one row a reschedule writes; an unchanged plan writes none.
    @Test func replaceAllWritesOnlyTheRowsThatChanged() async throws {
        let temporary = try TemporaryDatabase()
        let requests = (0..<10_000).map { Self.greeting(String(format: "f%05d", $0), hoursFromNow: Double($0 % 500)) }
        var moved = requests
        moved[4_321].fireAt += 3600
        let replanned = moved
        let (unchanged, changed) = try await temporary.database.write { db in
            try PendingNotificationRecord.replaceAll(with: requests, db)
            let before = db.totalChangesCount
            try PendingNotificationRecord.replaceAll(with: requests, db)
            let unchanged = db.totalChangesCount - before
            let again = db.totalChangesCount
            try PendingNotificationRecord.replaceAll(with: replanned, db)
            return (unchanged, db.totalChangesCount - again)
        }
        #expect(unchanged == 0)
        #expect(changed == 1)
        let pending = try await temporary.database.write { db in try PendingNotificationRecord.requests(db) }
        #expect(pending.count == 10_000)
        #expect(pending.first { $0.id == replanned[4_321].id } == replanned[4_321])
    }
}

@Suite struct NotificationContentTests {
    struct Case: Sendable {
        var name: String
        var kind: EventKind
        var timing: NotificationRequest.Timing
        var age: Int?
        var title: String
        var body: String
    }

    static let cases: [Case] = [
        Case(name: "Ada", kind: .birthday, timing: .dayOf, age: nil, title: "Ada's Birthday!", body: "Today is Ada's birthday!"),
        Case(name: "Ada", kind: .birthday, timing: .dayOf, age: 36, title: "Ada's Birthday!", body: "Ada turns 36 today!"),
        Case(name: "Ada", kind: .birthday, timing: .dayBefore, age: nil, title: "Birthday Tomorrow", body: "Ada's birthday is tomorrow!"),
        Case(name: "Ada", kind: .birthday, timing: .dayBefore, age: 36, title: "Birthday Tomorrow", body: "Ada turns 36 tomorrow!"),
        Case(name: "Ada", kind: .anniversary, timing: .dayOf, age: nil, title: "Ada's Anniversary!", body: "Today is Ada's anniversary!"),
        Case(name: "Ada", kind: .anniversary, timing: .dayOf, age: 11, title: "Ada's Anniversary!", body: "Today is Ada's 11th anniversary!"),
        Case(
            name: "Ada",
            kind: .anniversary,
            timing: .dayBefore,
            age: 22,
            title: "Anniversary Tomorrow",
            body: "Ada's 22nd anniversary is tomorrow!"
        ),
        Case(name: " ", kind: .birthday, timing: .dayOf, age: nil, title: "Someone's Birthday!", body: "Today is someone's birthday!"),
        Case(name: "", kind: .birthday, timing: .dayBefore, age: 40, title: "Birthday Tomorrow", body: "Someone turns 40 tomorrow!"),
    ]

    @Test(arguments: cases)
    func wording(_ c: Case) {
        let content = NotificationContent.make(name: c.name, kind: c.kind, timing: c.timing, age: c.age)
        #expect(content.title == c.title)
        #expect(content.body == c.body)
    }

    @Test(arguments: [
        (1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st"), (102, "102nd"), (111, "111th"),
    ])
    func ordinals(_ n: Int, _ text: String) {
        #expect(Localizer.english.ordinal(n) == text)
    }

    @Test func placeholderYearGivesNoAge() async throws {
        let date = try #require(EventDate(year: 1604, month: 5, day: 12))
        #expect(date.age(in: 2026) == nil)
    }
}

@Suite struct FireTimeTests {
    @Test(arguments: [
        ("Europe/Berlin", "2026-03-29", "02:30", "2026-03-29T03:30:00+02:00"),
        ("Europe/Berlin", "2026-03-29", "02:00", "2026-03-29T03:00:00+02:00"),
        ("Europe/Berlin", "2026-03-29", "03:00", "2026-03-29T03:00:00+02:00"),
        ("Europe/Berlin", "2026-10-25", "02:30", "2026-10-25T02:30:00+02:00"),
        ("America/New_York", "2026-03-08", "02:59", "2026-03-08T03:59:00-04:00"),
        ("America/New_York", "2026-11-01", "01:00", "2026-11-01T01:00:00-04:00"),
        ("Pacific/Kiritimati", "2026-01-01", "00:00", "2026-01-01T00:00:00+14:00"),
        ("Pacific/Pago_Pago", "2026-12-31", "23:59", "2026-12-31T23:59:00-11:00"),
    ])
    func wallClockToInstant(_ zone: String, _ day: String, _ time: String, _ expected: String) throws {
        let timeZone = try Fixture.zone(zone)
        let date = try #require(LocalDate(iso: day))
        let delivery = try #require(TimeOfDay(time))
        let instant = try #require(FireTime.instant(on: date, at: delivery, in: timeZone))
        #expect(ISOInstant.format(instant, in: timeZone) == expected)
    }
}
