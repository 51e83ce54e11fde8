import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// Labelled dates (issue 34) in the feed, and the feed read by python3-icalendar
/// and khal: each is an event of its person under its label, with the age
/// or years in this year's titles, its own UID, and alarms in its own words.
@Suite struct LabelledDatesFeedTests {
    static let today = LocalDate(year: 2026, month: 11, day: 28)!
    static let lastChange = Date(timeIntervalSince1970: 1_795_839_000)

    static var johnny: Person {
        var person = Person(
            id: "johnny",
            name: "Johnny Appleseed",
            source: ContactSource(file: "iphone.vcf", index: 0, line: 1),
            anniversary: EventDate(year: 2008, month: 6, day: 21)
        )
        person.labelledDates = [
            LabelledDate(label: "Child's birthday", date: EventDate(year: 2015, month: 12, day: 1)!),
            LabelledDate(label: "Child's birthday", date: EventDate(year: 2018, month: 4, day: 2)!),
            LabelledDate(label: "Started work", date: EventDate(year: 2019, month: 3, day: 3)!),
        ]
        return person
    }

    static func plan(_ settings: Settings = Settings()) throws -> [CalendarEventPlan.Event] {
        try CalendarEventPlan(settings: settings, today: today).events(for: [johnny], lastChange: lastChange)
    }

    @Test func eachLabelledDateIsASeriesOfItsOwnWithAges() throws {
        let work = "johnny-" + LabelledDate.idPart(key: "started work", ordinal: 1)
        let child = "johnny-" + LabelledDate.idPart(key: "child's birthday", ordinal: 1)
        let second = "johnny-" + LabelledDate.idPart(key: "child's birthday", ordinal: 2)
        let uids = try Self.plan().map(\.uid)
        for stem in [work, child, second] {
            #expect(uids.contains(stem + "@birthdays"), "\(uids)")
            #expect(uids.contains(stem + "-y2027@birthdays"), "\(uids)")
        }
        let text = try CalendarExporter(settings: Settings(), today: Self.today).export([Self.johnny], lastChange: Self.lastChange)
        #expect(text.contains("SUMMARY:📅 Johnny Appleseed: Started work (8)\r\n"))
        #expect(text.contains("SUMMARY:📅 Johnny Appleseed: Child's birthday (11)\r\n"))
        #expect(text.contains("X-BIRTHDAYS-LABEL:Started work\r\n"))
        #expect(text.contains("DESCRIPTION:Started work (tomorrow)\r\n"))
    }

    @Test func theLabelRulesAndTheSettingChooseWhatTheFeedHolds() throws {
        var settings = Settings()
        settings.labelRules.choose("STARTED WORK", included: false)
        #expect(!(try Self.plan(settings)).contains { $0.labelled?.label == "Started work" })
        #expect(try Self.plan(settings).contains { $0.labelled?.label == "Child's birthday" })
        settings.labelRules.on = false
        #expect(try Self.plan(settings).allSatisfy { $0.labelled == nil })
        settings.labelRules.choose("child's   birthday", included: true)
        #expect(try Self.plan(settings).filter { $0.labelled != nil }.allSatisfy { $0.labelled?.label == "Child's birthday" })
        #expect(try Self.plan(settings).contains { $0.labelled != nil })
    }

    // MARK: - Readers

    private static let pythonReader = #"""
        import json, sys, datetime
        import icalendar
        from dateutil.rrule import rrulestr
        with open(sys.argv[1], 'rb') as f:
            cal = icalendar.Calendar.from_ical(f.read())
        out = []
        for ev in cal.walk('VEVENT'):
            start = ev.decoded('DTSTART')
            days = [start.isoformat()]
            if 'RRULE' in ev:
                dtstart = datetime.datetime(start.year, start.month, start.day)
                days = [d.date().isoformat() for d in rrulestr(ev['RRULE'].to_ical().decode(), dtstart=dtstart).between(
                    datetime.datetime(2029, 1, 1), datetime.datetime(2029, 12, 31), inc=True)]
            out.append({'uid': str(ev['UID']), 'summary': str(ev['SUMMARY']), 'label': str(ev.get('X-BIRTHDAYS-LABEL', '')),
                        'days': days, 'alarms': [str(a['DESCRIPTION']) for a in ev.walk('VALARM')]})
        json.dump(out, sys.stdout)
        """#

    private struct Read: Decodable {
        var uid, summary, label: String
        var days, alarms: [String]
    }

    @Test(
        .enabled(
            if: ExternalTool.hasPythonICalendar,
            "needs /usr/bin/python3 with icalendar and dateutil (apt-get install python3-icalendar python3-dateutil)"
        )
    )
    func pythonICalendarReadsTheLabelledEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path + "/feed.ics"
        try CalendarExporter(settings: Settings(), today: Self.today).write([Self.johnny], lastChange: Self.lastChange, to: path)
        let output = try await ExternalTool.run(ExternalTool.python, ["-c", Self.pythonReader, path])
        try #require(output.status == 0, "python3 failed: \(output.stderr)")
        let events = try JSONDecoder().decode([Read].self, from: Data(output.stdout.utf8))
        let work = try #require(events.first { $0.label == "Started work" && $0.uid.hasSuffix("-y2027@birthdays") })
        #expect(work.summary == "📅 Johnny Appleseed: Started work (8)")
        #expect(work.days == ["2027-03-03"])
        #expect(work.alarms == ["Started work (today)", "Started work (tomorrow)"])
        // The recurring series after the aged years lands on the day in 2029, without an age.
        let series = try #require(events.first { $0.label == "Started work" && !$0.uid.contains("-y") })
        #expect(series.summary == "📅 Johnny Appleseed: Started work")
        #expect(series.days == ["2029-03-03"])
        #expect(
            events.filter { $0.label == "Child's birthday" && !$0.uid.contains("-y") }.map(\.days).sorted { $0[0] < $1[0] } == [
                ["2029-04-02"], ["2029-12-01"],
            ]
        )
    }

    @Test(.enabled(if: ExternalTool.hasKhal, "needs khal (apt-get install khal)"))
    func khalListsTheLabelledEventsOnTheirDays() async throws {
        let khal = try KhalSandbox(in: TemporaryDirectory())
        defer { khal.directory.cleanup() }
        let feed = khal.directory.path + "/birthdays.ics"
        try CalendarExporter(settings: Settings(), today: Self.today).write([Self.johnny], lastChange: Self.lastChange, to: feed)
        try await khal.importFeed(feed)
        await #expect(try khal.titles(on: "2026-12-01") == ["📅 Johnny Appleseed: Child's birthday (11)"])
        await #expect(try khal.titles(on: "2027-03-03") == ["📅 Johnny Appleseed: Started work (8)"])
        await #expect(try khal.titles(on: "2029-03-03") == ["📅 Johnny Appleseed: Started work"])
        await #expect(try khal.titles(on: "2027-06-21") == ["💍 Johnny Appleseed (19)"])
    }
}
