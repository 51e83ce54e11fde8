import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// Dates in other calendars through the store: a real import of Apple's
/// `X-ALTBDAY` into SQLite (migration `v6-calendar-dates`), re-imports,
/// removal with the person, `upcoming`, and the reminders the scheduler
/// plans for them (ids, words, the 64 cap).
@Suite final class CalendarDateStoreTests {
    /// 2026-03-01T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_772_352_000)

    static let card = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:mei\r
        FN:Mei Chen\r
        BDAY:1985-12-12\r
        X-ALTBDAY;CALSCALE=chinese:007800021101\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        UID:dov\r
        FN:Dov Levi\r
        BDAY;CALSCALE=hebrew:57840614\r
        ANNIVERSARY;CALSCALE=hebrew:--0715\r
        END:VCARD\r

        """

    /// One folder for all the files of a test: a file imported again has the same path.
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    deinit { directory.cleanup() }

    func importing(_ text: String, into database: AppDatabase, file name: String = "apple.vcf") async throws -> ImportReport {
        let path = try directory.write(name, text)
        return try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: LocalDate(iso: "2026-03-01"))
            .importPaths([path])
    }

    @Test func anImportKeepsThemAndAReimportChangesNothing() async throws {
        let database = try AppDatabase.inMemory()
        let first = try await importing(Self.card, into: database)
        #expect((first.added, first.problems.count) == (2, 0))
        let people = try await database.people()
        let mei = try #require(people.first { $0.id == "mei" })
        #expect(mei.birthday == EventDate(year: 1985, month: 12, day: 12))
        #expect(mei.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-01"])
        let dov = try #require(try await database.person(id: "dov"))
        #expect(dov.birthday == nil)
        #expect(dov.alternateDates.map(\.description) == ["birthday hebrew 5784-06-14", "anniversary hebrew --07-15"])

        let again = try await importing(Self.card, into: database)
        #expect((again.added, again.updated, again.unchanged) == (0, 0, 2))
    }

    @Test func anEditedDateUpdatesTheRowAndADeletedOneGoes() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card, into: database)
        let edited = Self.card.replacingOccurrences(of: "chinese:007800021101", with: "chinese:007800021102")
            .replacingOccurrences(of: "ANNIVERSARY;CALSCALE=hebrew:--0715\r\n", with: "")
        let report = try await importing(edited, into: database)
        #expect((report.updated, report.unchanged) == (2, 0))
        #expect(try await database.person(id: "mei")?.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-02"])
        #expect(try await database.person(id: "dov")?.alternateDates.map(\.description) == ["birthday hebrew 5784-06-14"])
    }

    @Test func anotherFileNeverErasesThemAndARemovedPersonTakesThemAlong() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card, into: database)
        // The same person from another file, renamed, without any date in another calendar:
        // the row is replaced (which takes its calendarDate rows along) and the lunar birthday written again.
        let plain = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:mei\r\nFN:Mei C.\r\nBDAY:1985-12-12\r\nEND:VCARD\r\n"
        let other = try await importing(plain, into: database, file: "google.vcf")
        #expect(other.updated == 1)
        let renamed = try await database.person(id: "mei")
        #expect(renamed?.name == "Mei C.")
        #expect(renamed?.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-01"])
        // Back in its own file without any date at all: the person stays, undated, without their rows.
        let dateless = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dov\r\nFN:Dov Levi\r\nEND:VCARD\r\n"
        let undated = try await importing(dateless, into: database)
        #expect((undated.updated, undated.removed) == (1, 0))
        #expect(try await database.person(id: "dov")?.isUndated == true)
        let undatedRows = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM calendarDate WHERE personId = 'dov'") }
        #expect(undatedRows == 0)
        // With neither a name nor a date: the person leaves.
        let empty = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dov\r\nFN:\r\nEND:VCARD\r\n"
        let removed = try await importing(empty, into: database)
        #expect(removed.removed == 1)
        #expect(try await database.person(id: "dov") == nil)
        let rows = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM calendarDate WHERE personId = 'dov'") }
        #expect(rows == 0)
    }

    @Test func upcomingListsThemAsEventsOfTheirOwnWithTheirAges() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card, into: database)
        let today = try #require(LocalDate(iso: "2026-03-01"))
        let events = try await database.upcoming(UpcomingEvents(today: today), withinDays: 365)
        let summary = events.map {
            "\($0.date) \($0.personID) \($0.calendar?.rawValue ?? "gregorian") \($0.kind.rawValue) \($0.age.map(String.init) ?? "-")"
        }
        #expect(
            summary == [
                "2026-03-03 dov hebrew birthday 2",
                "2026-03-04 dov hebrew anniversary -",
                "2026-12-09 mei chinese birthday 41",
                "2026-12-12 mei gregorian birthday 41",
            ]
        )
        // The same from the people themselves (what `show` uses).
        let people = try await database.people()
        #expect(UpcomingEvents(today: today).list(people, withinDays: 365).map(\.date) == events.map(\.date))
        // Without anniversaries, the Hebrew one goes too.
        let birthdays = try await database.upcoming(UpcomingEvents(today: today, includeAnniversaries: false), withinDays: 365)
        #expect(birthdays.count == 3)
    }

    @Test func remindersHaveTheCalendarInTheirIdsAndWords() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card, into: database)
        try await database.setAuthorizationStatus(.authorized)
        let result = try await Fixture.scheduler(database, now: Self.now, zone: .gmt).reschedule()
        let byID = Dictionary(uniqueKeysWithValues: result.requests.map { ($0.id, $0) })
        #expect(
            result.requests.map(\.id) == [
                "dov-hebrew-birthday-daybefore", "dov-hebrew-birthday-dayof", "dov-hebrew-anniversary-daybefore", "dov-hebrew-anniversary-dayof",
                "mei-chinese-birthday-daybefore", "mei-chinese-birthday-dayof", "mei-birthday-daybefore", "mei-birthday-dayof",
            ]
        )
        let lunar = try #require(byID["mei-chinese-birthday-dayof"])
        #expect(lunar.title == "Mei Chen's lunar birthday!")
        #expect(lunar.body == "Mei Chen turns 41 today (lunar birthday)!")
        #expect(lunar.occurrenceDate == LocalDate(iso: "2026-12-09"))
        #expect(lunar.calendar == .chinese)
        #expect(lunar.deliveryKind.storedValue == #"{"reminder":{"calendar":"chinese"}}"#)
        #expect(byID["dov-hebrew-birthday-daybefore"]?.title == "Tomorrow: Hebrew birthday")
        #expect(byID["dov-hebrew-anniversary-dayof"]?.body == "Today is Dov Levi's Hebrew anniversary!")
        #expect(byID["mei-birthday-dayof"]?.body == "Mei Chen turns 41 today!")
        // Read back from SQLite, they keep their calendar.
        let pending = try await database.pendingRequests()
        #expect(pending.first { $0.id == "mei-chinese-birthday-dayof" }?.calendar == .chinese)
        #expect(pending.first { $0.id == "mei-birthday-dayof" }?.calendar == nil)
    }

    @Test func theyShareThe64PlacesWithGregorianDates() async throws {
        let database = try AppDatabase.inMemory()
        // 40 people with a lunar birthday on 3/1 (2026-04-17) and a Gregorian one on December 1:
        // 160 candidates, and the 80 lunar ones come first.
        var cards = ""
        for n in 0..<40 {
            cards += "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:p\(n)\r\nFN:P \(n)\r\nBDAY:--12-01\r\nX-ALTBDAY;CALSCALE=chinese:--0301\r\nEND:VCARD\r\n"
        }
        _ = try await importing(cards, into: database)
        try await database.setAuthorizationStatus(.authorized)
        let result = try await Fixture.scheduler(database, now: Self.now, zone: .gmt).reschedule()
        #expect(result.scheduled == NotificationRequest.pendingLimit)
        #expect(result.requests.allSatisfy { $0.calendar == .chinese && $0.id.contains("-chinese-birthday-") })
        #expect(Set(result.requests.map(\.occurrenceDate)) == [LocalDate(iso: "2026-04-17")!])
        // The 64 kept are the soonest: every day-before (April 16) and the day-of of the first 24 people by id.
        #expect(result.requests.filter { $0.timing == .dayBefore }.count == 40)
    }

    @Test func theTableCascadesWithThePerson() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await importing(Self.card, into: database)
        try database.writeNow { db in _ = try PersonRecord.deleteOne(db, key: "mei") }
        let rows = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM calendarDate") }
        #expect(rows == 2)
    }
}
