import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore
@testable import BirthdayText

/// The one walk over everyone's events (`PersonRecord.forEachEvent`) over a
/// real SQLite file: each kind of date once, with its treatment, and the
/// page for the year folding it twice in one walk.
@Suite final class EventWalkTests {
    static let now = Date(timeIntervalSince1970: 1_772_352_000)
    static let today = LocalDate(iso: "2026-03-15")!

    static let cards = [
        [
            "UID:jan", "FN:Jānis Bērziņš", "N:Bērziņš;Jānis;;;", "BDAY:1990-03-10", "ANNIVERSARY:2015-08-01",
            "X-ALTBDAY;CALSCALE=chinese:--0301", "item1.X-ABDATE:2015-06-01", "item1.X-ABLabel:Child's birthday",
            "item2.X-ABDATE:2018-02-03", "item2.X-ABLabel:Child's birthday",
        ],
        ["UID:eve", "FN:Eve", "BDAY:1946-03-20", "X-ALTBDAY;CALSCALE=chinese:--0401", "DEATHDATE:2024-02-01"],
        ["UID:ada", "FN:Ada", "BDAY:1990-03-11", "X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR:true"],
    ]

    let directory: TemporaryDirectory
    let database: AppDatabase

    init() async throws {
        directory = try TemporaryDirectory()
        database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"))
        let text = Self.cards.map { "BEGIN:VCARD\r\nVERSION:4.0\r\n" + $0.map { $0 + "\r\n" }.joined() + "END:VCARD\r\n" }.joined()
        let path = try directory.write("cards.vcf", text)
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: Self.today).importPaths([path])
        _ = try await database.setSetting(.nameDays, to: "lv", now: Self.now)
    }
    deinit { directory.cleanup() }

    /// One line per event: the person, which date, and whether it is a memorial.
    static func line(_ event: PersonEvent, _ id: String) -> String {
        let memorial = event.treatment.memorial ? " memorial" : ""
        switch event.date {
        case .gregorian(let date, let kind): return "\(id) \(kind.rawValue) \(date)\(memorial)"
        case .otherCalendar(let alternate): return "\(id) \(alternate)\(memorial)"
        case .labelled(let labelled, let ordinal): return "\(id) \(labelled.label) \(ordinal) \(labelled.date)\(memorial)"
        case .nameDay(let date, let list): return "\(id) name day \(list) \(date)\(memorial)"
        }
    }

    @Test func theWalkYieldsEachKindOfDateOnceWithItsTreatment() async throws {
        let lines = try await database.read { db in
            let settings = try SettingRecord.settings(db)
            let nameDays = try NameDayListRecord.setup(for: settings, db)
            var lines: [String] = []
            try PersonRecord.forEachEvent(db, rules: TreatmentRules(deceased: .remember), nameDays: nameDays) { event, _, identity in
                lines.append(Self.line(event, identity().id))
            }
            return lines
        }
        // The Gregorian run, the other calendars, the name days, the labelled dates (in their order: by month and day).
        // Ada is excluded; Eve has died, so only her Gregorian birthday is kept, as a memorial; the name day carries
        // no label of the store's.
        #expect(
            lines == [
                "jan birthday 1990-03-10", "jan anniversary 2015-08-01", "eve birthday 1946-03-20 memorial",
                "jan birthday chinese --03-01",
                "jan name day lv --06-24",
                "jan Child's birthday 1 2018-02-03", "jan Child's birthday 2 2015-06-01",
            ]
        )
    }

    /// The page reads the year once per render: its twelve months and its
    /// next 366 days are two folds over one walk, and each is what
    /// `upcoming` lists from its own first day.
    @Test func thePageWalksEveryonesEventsOnce() async throws {
        let (page, walks, year, next) = try await database.read { db in
            final class Walks: @unchecked Sendable { var count = 0 }
            let walks = Walks()
            db.trace { event in
                guard case .statement(let statement) = event else { return }
                let sql = statement.sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                if sql.contains("FROM person WHERE excluded = 0 AND (birthdayMonth IS NOT NULL OR anniversaryMonth IS NOT NULL)") {
                    walks.count += 1
                }
            }
            let page = try AppDatabase.pageContents(db, today: Self.today, withPeople: true)
            db.trace(options: [], nil)
            let settings = try SettingRecord.settings(db)
            let nameDays = try NameDayListRecord.setup(for: settings, db)
            let first = YearPage.firstDay(today: Self.today)
            let year = try AppDatabase.upcoming(
                db,
                UpcomingEvents(today: first, settings: settings, nameDays: nameDays),
                withinDays: YearPage.days(from: first) - 1
            )
            let next = try AppDatabase.upcoming(db, UpcomingEvents(today: Self.today, settings: settings, nameDays: nameDays), withinDays: 365)
            return (page, walks.count, year, next)
        }
        #expect(walks == 1)
        #expect(page.year == year && page.next == next)
        #expect(page.year.contains { $0.labelled?.nameDayList == "lv" } && page.next.contains { $0.kind == .anniversary })
    }

    /// Who has which date, as the feed (`export`, `publish`) holds it and as
    /// `upcoming` lists the next 366 days: the same, both being the one walk.
    /// With a memorial, an excluded card, a second card of Jānis linked to
    /// him (hidden: its dates are not his twice), a date in another
    /// calendar, labelled dates and a name day.
    @Test func theFeedAndUpcomingHoldTheSameDates() async throws {
        let second = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:jan-work\r\nFN:Jānis Bērziņš\r\nANNIVERSARY:2016-01-01\r\nEND:VCARD\r\n"
        let path = try directory.write("work.vcf", second)
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: Self.today).importPaths([path])
        guard case .changed = try await database.link(["jan", "jan-work"], now: Self.now) else {
            Issue.record("the two cards were not linked")
            return
        }
        _ = try await database.setSetting(.deceased, to: "remember", now: Self.now)

        func line(_ id: String, _ what: String, _ date: String, memorial: Bool) -> String {
            "\(id) \(what) \(date)" + (memorial ? " memorial" : "")
        }
        let feed = try await database.feedContents().events.map { item in
            let memorial = item.event.treatment.memorial
            switch item.event.date {
            case .gregorian(let date, let kind): return line(item.person.id, kind.rawValue, "\(date)", memorial: memorial)
            case .otherCalendar(let alternate):
                return line(item.person.id, alternate.kind.rawValue + " " + alternate.date.calendar.rawValue, "\(alternate.date)", memorial: memorial)
            case .labelled(let labelled, let ordinal):
                return line(item.person.id, "\(labelled.key) \(ordinal)", "\(labelled.date)", memorial: memorial)
            case .nameDay(let date, let list): return line(item.person.id, "name day " + list, "\(date)", memorial: memorial)
            }
        }
        let upcoming = try await database.listContents(today: Self.today, withinDays: 365).events.map { event in
            if let labelled = event.labelled {
                return line(event.personID, "\(labelled.key) \(event.labelOrdinal)", "\(labelled.date)", memorial: event.memorial)
            }
            if let date = event.calendarDate {
                return line(event.personID, event.kind.rawValue + " " + date.calendar.rawValue, "\(date)", memorial: event.memorial)
            }
            return line(event.personID, event.kind.rawValue, event.eventDate.map { "\($0)" } ?? "-", memorial: event.memorial)
        }
        #expect(feed.sorted() == upcoming.sorted())
        #expect(feed.count == 7)
        #expect(feed.contains("eve birthday 1946-03-20 memorial") && feed.contains("jan name day 1 --06-24"))
        #expect(!feed.contains { $0.hasPrefix("jan-work ") || $0.hasPrefix("ada ") })
    }
    /// A person of two cards whose shown card (the smaller id) has no date:
    /// the walk, which meets the cards in row order and reads no link by id,
    /// gives the person the other card's birthday, once, and skips that card;
    /// the hidden card's row comes before the shown one's.
    @Test func aPersonShownByACardWithoutADateHasTheOtherCardsBirthday() async throws {
        let cards = """
            BEGIN:VCARD\r\nVERSION:4.0\r\nUID:amy-phone\r\nFN:Amy Pond\r\nEMAIL:amy@example.org\r\nBDAY:1989-03-20\r\nEND:VCARD\r\n\
            BEGIN:VCARD\r\nVERSION:4.0\r\nUID:amy\r\nFN:Amy Pond\r\nEMAIL:amy@example.org\r\nNOTE:no date here\r\nEND:VCARD\r\n
            """
        let path = try directory.write("amy.vcf", cards)
        _ = try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: Self.today).importPaths([path])
        let (lines, shownAs) = try await database.read { db in
            var lines: [String] = []
            try PersonRecord.forEachEvent(db, rules: TreatmentRules()) { event, _, identity in
                if identity().id.hasPrefix("amy") { lines.append(Self.line(event, identity().id)) }
            }
            return (lines, try PersonLinkRecord.all(db))
        }
        #expect(shownAs == ["amy-phone": "amy"], "the two cards are one person, shown as the smaller id")
        #expect(lines == ["amy birthday 1989-03-20"])
    }
}
