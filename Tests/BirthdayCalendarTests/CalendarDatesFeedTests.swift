import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// Dates in other calendars in the feed: expanded (one event per calendar
/// year, the default) read by libical, python3-icalendar and khal; and RFC
/// 7529 rules (`calendar-rules rscale`) written and expanded by libical.
@Suite struct CalendarDatesFeedTests {
    static let today = LocalDate(year: 2026, month: 3, day: 1)!
    static let lastChange = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    static func calendarDate(_ text: String, _ calscale: String) -> CalendarDate {
        guard case .date(let date) = CalendarDateValue.read(text, calscale: calscale) else { preconditionFailure("bad test date \(text)") }
        return date
    }

    /// Mei: a Gregorian and a lunar birthday; Dov: a Hebrew birthday in Adar I and a Hebrew anniversary;
    /// Leap: a lunar birthday in a leap month; Yue: a lunar birthday on a 30th, no year.
    static let people: [Person] = [
        Person(
            id: "mei",
            name: "Mei Chen",
            source: ContactSource(file: "a.vcf", index: 0, line: 1),
            birthday: EventDate(year: 1985, month: 12, day: 12),
            alternateDates: [AlternateDate(kind: .birthday, date: calendarDate("007800021101", "chinese"))]
        ),
        Person(
            id: "dov",
            name: "Dov Levi",
            source: ContactSource(file: "a.vcf", index: 1, line: 8),
            alternateDates: [
                AlternateDate(kind: .birthday, date: calendarDate("000057840614", "hebrew")),
                AlternateDate(kind: .anniversary, date: calendarDate("--0715", "hebrew")),
            ]
        ),
        Person(
            id: "leap",
            name: "Leap Baby",
            source: ContactSource(file: "a.vcf", index: 2, line: 15),
            alternateDates: [AlternateDate(kind: .birthday, date: calendarDate("0078003704L10", "chinese"))]
        ),
        Person(
            id: "yue",
            name: "Yue",
            source: ContactSource(file: "a.vcf", index: 3, line: 20),
            alternateDates: [AlternateDate(kind: .birthday, date: calendarDate("--0130", "chinese"))]
        ),
    ]

    static func export(_ rules: CalendarRules, today: LocalDate = today, alarms: Bool = true) throws -> String {
        var settings = Settings.withoutAges
        settings.calendarRules = rules
        return try CalendarExporter(settings: settings, includeAlarms: alarms, today: today).export(people, lastChange: lastChange)
    }

    /// What the expanded feed must hold for one date: its ten occurrences from January 1.
    static func expected(_ date: CalendarDate, from year: Int = 2026) -> [LocalDate] {
        date.occurrences(from: LocalDate(year: year, month: 1, day: 1)!, count: CalendarExporter.expandedYears).map(\.date)
    }

    // MARK: - Expanded

    @Test func expandedEventsAreOnePerCalendarYearAndLibicalReadsThemWithoutErrors() throws {
        let text = try Self.export(.expanded)
        let calendar = try ICalComponent(parsing: text)
        #expect(calendar.errorCount == 0, "\(calendar.errorMessages)")
        #expect(calendar.passesRestrictionCheck())
        let events = calendar.events
        // Mei's Gregorian birthday, and ten events for each of the five other dates.
        #expect(events.count == 1 + 5 * CalendarExporter.expandedYears)
        for person in Self.people {
            for alternate in person.alternateDates {
                let stem = "\(person.id)-\(alternate.date.calendar.rawValue)-\(alternate.kind.rawValue)-"
                let mine = events.filter { $0.uid.hasPrefix(stem) }
                #expect(mine.map(\.start) == Self.expected(alternate.date), "\(stem)")
                #expect(mine.allSatisfy { $0.rule == nil && $0.startIsDate && $0.startIsFloating && $0.end == $0.start.adding(days: 1) })
                #expect(mine.allSatisfy { $0.extensions["X-BIRTHDAYS-CALENDAR"] == alternate.date.calendar.rawValue })
                // The UID names the calendar's year, one after the other.
                let years = mine.compactMap { Int($0.uid.dropFirst(stem.count).prefix { $0.isNumber }) }
                #expect(years.count == CalendarExporter.expandedYears && zip(years, years.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(stem)")
            }
        }
        let lunar = try #require(events.first { $0.uid == "mei-chinese-birthday-4663@birthdays" })
        #expect(lunar.start == LocalDate(year: 2026, month: 12, day: 9))
        #expect(lunar.summary == "🎂 Mei Chen (lunar)")
        #expect(lunar.description == "born 1985")
        #expect(lunar.extensions["X-BIRTHDAYS-YEAR"] == "1985")
        #expect(lunar.alarms.map(\.description) == ["Today is Mei Chen's lunar birthday!", "Mei Chen's lunar birthday is tomorrow!"])
        let anniversary = try #require(events.first { $0.uid.hasPrefix("dov-hebrew-anniversary-") })
        #expect(anniversary.summary == "💍 Dov Levi (Hebrew)")
        #expect(anniversary.extensions["X-BIRTHDAYS-UNKNOWN-YEAR"] == "1")
    }

    @Test func eachYearKeepsItsUIDFromOneYearToTheNext() throws {
        let thisYear = try ICalComponent(parsing: try Self.export(.expanded)).events
        let nextYear = try ICalComponent(parsing: try Self.export(.expanded, today: LocalDate(year: 2027, month: 5, day: 1)!)).events
        let before = Dictionary(uniqueKeysWithValues: thisYear.map { ($0.uid, $0.start) })
        let after = Dictionary(uniqueKeysWithValues: nextYear.map { ($0.uid, $0.start) })
        let shared = Set(before.keys).intersection(after.keys)
        // Every date but the Gregorian one loses its 2026 event and gains one ten years on; the other nine stay, on the same days.
        #expect(shared.count == 1 + 5 * (CalendarExporter.expandedYears - 1))
        #expect(shared.allSatisfy { before[$0] == after[$0] })
    }

    @Test func expandedEventsFollowTheRules() throws {
        let events = try ICalComponent(parsing: try Self.export(.expanded)).events
        func days(_ prefix: String) -> [String] { events.filter { $0.uid.hasPrefix(prefix) }.map(\.start.description) }
        // The leap 4th month's 10th falls on the 4th month's 10th in years without that leap month.
        #expect(days("leap-chinese-birthday-").prefix(2) == ["2026-05-26", "2027-05-15"])
        // The 1st month's 30th: 2030's 1st month has 29 days.
        #expect(days("yue-chinese-birthday-").contains("2030-03-03"))
        // 14 Adar I: 14 Adar in common years (2026), 14 Adar I in 2027.
        #expect(days("dov-hebrew-birthday-").prefix(2) == ["2026-03-03", "2027-02-21"])
    }

    @Test func withoutAnniversariesTheCalendarAnniversaryIsLeftOutAndTheDependenceOnTheYearIsKnown() throws {
        var settings = Settings.withoutAges
        settings.anniversaries = false
        let exporter = CalendarExporter(settings: settings, today: Self.today)
        let events = try ICalComponent(parsing: try exporter.export(Self.people, lastChange: Self.lastChange)).events
        #expect(!events.contains { $0.uid.contains("-anniversary") })
        #expect(exporter.dependsOnYear(Self.people))
        #expect(exporter.lastChange(of: Self.people, changedAt: Date(timeIntervalSince1970: 0)) == Self.lastChange)
        settings.calendarRules = .rscale
        #expect(!CalendarExporter(settings: settings, today: Self.today).dependsOnYear(Self.people))
        #expect(
            !CalendarExporter(settings: .withoutAges, today: Self.today).dependsOnYear(
                [Self.people[0]].map { person in
                    var gregorianOnly = person
                    gregorianOnly.alternateDates = []
                    return gregorianOnly
                }
            )
        )
    }

    // MARK: - RFC 7529

    @Test func rscaleRulesAreWrittenByLibical() throws {
        let events = try ICalComponent(parsing: try Self.export(.rscale)).events
        let rules = Dictionary(uniqueKeysWithValues: events.map { ($0.uid, $0.rule ?? "") })
        #expect(rules["mei-birthday@birthdays"] == "FREQ=YEARLY")
        #expect(rules["mei-chinese-birthday@birthdays"] == "RSCALE=CHINESE;FREQ=YEARLY;BYMONTHDAY=1;BYMONTH=11;SKIP=BACKWARD")
        #expect(rules["leap-chinese-birthday@birthdays"] == "RSCALE=CHINESE;FREQ=YEARLY;BYMONTHDAY=10;BYMONTH=4L;SKIP=BACKWARD")
        // Foundation's Hebrew 6 (Adar I) is RFC 7529's 5L, its 7 (Adar) is 6.
        #expect(rules["dov-hebrew-birthday@birthdays"] == "RSCALE=HEBREW;FREQ=YEARLY;BYMONTHDAY=14;BYMONTH=5L;SKIP=FORWARD")
        #expect(rules["dov-hebrew-anniversary@birthdays"] == "RSCALE=HEBREW;FREQ=YEARLY;BYMONTHDAY=15;BYMONTH=6;SKIP=BACKWARD")
        let starts = Dictionary(uniqueKeysWithValues: events.map { ($0.uid, $0.start.description) })
        #expect(starts["mei-chinese-birthday@birthdays"] == "1985-12-12")
        #expect(starts["leap-chinese-birthday@birthdays"] == "2020-06-01")
        // A date without a year starts on its first occurrence from 1972 (the Gregorian series' base).
        #expect(starts["yue-chinese-birthday@birthdays"]?.hasPrefix("1972-") == true)
        #expect(events.count == 6)
    }

    /// libical (built with ICU 72 on Debian 12) expands the rules to the days
    /// Foundation (ICU 76) computes, except where libical is known to be
    /// wrong: its `SKIP=BACKWARD` counts months by position in a year whose
    /// own leap month comes earlier (2023, leap 2nd month: the leap 4th
    /// month's 10th becomes the 3rd month's 10th).
    @Test func libicalExpandsTheRulesToTheSameDays() throws {
        let events = try ICalComponent(parsing: try Self.export(.rscale)).events
        let from = LocalDate(year: 2021, month: 1, day: 1)!
        for person in Self.people {
            for alternate in person.alternateDates {
                let uid = "\(person.id)-\(alternate.date.calendar.rawValue)-\(alternate.kind.rawValue)@birthdays"
                let event = try #require(events.first { $0.uid == uid })
                let libical = event.occurrences(onOrAfter: from, count: 10)
                let ours = alternate.date.occurrences(from: from, count: 10).map(\.date)
                #expect(libical.count == 10, "\(uid)")
                let differing = zip(libical, ours).filter { $0 != $1 }.map { "\($0.1.year)" }
                switch uid {
                case "leap-chinese-birthday@birthdays": #expect(differing == ["2023"], "\(uid): \(libical) / \(ours)")
                case "yue-chinese-birthday@birthdays":
                    // ICU 72 ends the 1st months of 2027 and 2030 a day off (ICU 76 and lunardate agree with each other).
                    #expect(Set(differing).isSubset(of: ["2027", "2030"]), "\(uid): \(libical) / \(ours)")
                default: #expect(differing.isEmpty, "\(uid): \(libical) / \(ours)")
                }
            }
        }
    }

    // MARK: - Other readers

    @Test(.enabled(if: ExternalTool.hasPythonICalendar, "needs /usr/bin/python3 with icalendar (apt-get install python3-icalendar)"))
    func pythonICalendarReadsTheExpandedEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("feed.ics", try Self.export(.expanded))
        let script = """
            import json, sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            errors = [[c.name, [str(e) for e in c.errors]] for c in cal.walk() if getattr(c, 'errors', None)]
            events = [[str(e['UID']), e.decoded('DTSTART').isoformat(), str(e['SUMMARY']), 'RRULE' in e] for e in cal.walk('VEVENT')]
            json.dump({'errors': errors, 'events': events}, sys.stdout)
            """
        let output = try await ExternalTool.run(ExternalTool.python, ["-c", script, path])
        try #require(output.status == 0, "python3 failed: \(output.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect((object["errors"] as? [Any])?.isEmpty == true)
        let events = try #require(object["events"] as? [[Any]])
        let lunar = events.filter { ($0[0] as? String)?.hasPrefix("mei-chinese-birthday-") == true }
        #expect(lunar.compactMap { $0[1] as? String } == Self.expected(Self.people[0].alternateDates[0].date).map(\.description))
        #expect(lunar.allSatisfy { $0[2] as? String == "🎂 Mei Chen (lunar)" && $0[3] as? Bool == false })
        #expect(events.count == 1 + 5 * CalendarExporter.expandedYears)
    }

    @Test(.enabled(if: ExternalTool.hasKhal, "needs khal (apt-get install khal)"))
    func khalListsTheExpandedEventsOnTheirDays() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let khal = try KhalSandbox(in: directory)
        let feed = try directory.write("feed.ics", try Self.export(.expanded, alarms: false))
        try await khal.importFeed(feed)
        let lines = try await khal.list(from: "2026-01-01", days: 3660)
        for person in Self.people {
            for alternate in person.alternateDates where alternate.kind == .birthday {
                let title = "🎂 \(person.name) (\(alternate.date.calendar == .hebrew ? "Hebrew" : "lunar"))"
                let days = lines.filter { $0.hasSuffix("|" + title) }.map { String($0.prefix(10)) }
                #expect(days == Self.expected(alternate.date).map(\.description), "\(title)")
            }
        }
    }
}
