import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// What each reader of the machine makes of a feed with `calendar-rules
/// rscale` (issue 41): docs/feed.md says it reader by reader, and these tests
/// keep it true. Ada's and Mei's Gregorian birthdays stand for every other event; Mei's
/// lunar birthday is an RFC 7529 rule without a leap month. sabre/vobject is
/// given no rule with a leap month: its expansion of one never ends (measured
/// by hand and written in the docs), and a test does not wait for that.
@Suite struct RScaleReadersTests {
    static let people: [Person] =
        [
            Person(
                id: "ada",
                name: "Ada Lovelace",
                source: ContactSource(file: "a.vcf", index: 0, line: 1),
                birthday: EventDate(year: 1990, month: 3, day: 11)
            )
        ] + CalendarDatesFeedTests.people.filter { $0.id == "mei" || $0.id == "leap" }

    /// The feed under `rscale`, written into `directory`; `leapMonth` keeps Leap Baby's rule (a leap month).
    static func feed(in directory: TemporaryDirectory, leapMonth: Bool = true) throws -> String {
        var settings = Settings.withoutAges
        settings.calendarRules = .rscale
        let path = directory.file("rscale.ics")
        let people = leapMonth ? people : people.filter { $0.id != "leap" }
        try CalendarExporter(settings: settings, today: CalendarDatesFeedTests.today).write(
            people,
            lastChange: CalendarDatesFeedTests.lastChange,
            to: path
        )
        return path
    }

    /// python3-icalendar parses every event, but writing an `RSCALE` rule back
    /// (what dateutil's expansion and khal need) raises `KeyError: 'RSCALE'`,
    /// and recurring-ical-events loses the whole feed to it.
    @Test(.enabled(if: SystemTools.pythonHas("icalendar", "recurring_ical_events"), "needs python3-icalendar and python3-recurring-ical-events"))
    func pythonICalendarReadsTheEventsButRecurringICalEventsLosesTheWholeFeed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = try Self.feed(in: directory)
        let script = """
            import sys, icalendar, recurring_ical_events
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            events = cal.walk('VEVENT')
            failed = 0
            for event in events:
                try:
                    event['RRULE'].to_ical()
                except (KeyError, AttributeError):
                    # KeyError: 'RSCALE'; a leap month's rule (4L) is not parsed at all (None).
                    failed += 1
            print(len(events), failed)
            try:
                print(len(list(recurring_ical_events.of(cal).between((2027, 1, 1), (2028, 1, 1)))))
            except KeyError as error:
                print('KeyError', error)
            """
        let output = try await TestProcess.run([SystemTools.python, "-c", script, feed])
        try #require(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "4 2\nKeyError 'RSCALE'\n", "events read, rules that fail; then recurring-ical-events")
    }

    /// khal imports nothing of the feed: no event at all, Ada's neither.
    @Test(.enabled(if: ExternalTool.hasKhal, "needs khal (apt-get install khal)"))
    func khalImportsNothingOfTheFeed() async throws {
        let khal = try KhalSandbox(in: TemporaryDirectory())
        defer { khal.directory.cleanup() }
        let feed = try Self.feed(in: khal.directory)
        let imported = try await khal.run(["import", "--batch", "-a", "birthdays", feed])
        #expect(imported.status != 0)
        #expect(imported.stderr.contains("KeyError: 'RSCALE'"), "\(imported.stderr.suffix(500))")
        #expect(try await khal.list(from: "2027-01-01", days: 365) == [], "not even Ada")
    }

    /// calcurse leaves out the events with an `RSCALE` rule ("rrule does not
    /// match start day"), says some items could not be imported, and keeps the rest.
    @Test(.enabled(if: LeapDayReadersTests.calcurse.available(), "needs calcurse (apt-get install calcurse)"))
    func calcurseLosesOnlyTheRScaleEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let data = directory.file("calcurse")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let imported = try await TestProcess.run(
            ["/usr/bin/calcurse", "-D", data, "-C", data, "-q", "-i", try Self.feed(in: directory)],
            environment: ["HOME": directory.path]
        )
        #expect(imported.status != 0 && (imported.stdout + imported.stderr).contains("Some items could not be imported"))
        let stored = try String(contentsOfFile: data + "/apts", encoding: .utf8)
        // "03/11/2027 [1] {1Y} >note-hash 🎂 Ada Lovelace": the title after the rule and the note's hash.
        let titles = stored.split(separator: "\n").map { line in
            let rest = line.split(separator: "} ", maxSplits: 1).last ?? ""
            return String(rest.hasPrefix(">") ? rest.drop { $0 != " " }.dropFirst() : rest)
        }
        #expect(titles.sorted() == ["🎂 Ada Lovelace", "🎂 Mei Chen"], "\(stored)")
    }

    /// sabre/vobject ignores `RSCALE` and expands the rule's month and day as
    /// Gregorian ones: Mei's lunar birthday (11th month, 1st day) on 1 November.
    @Test(.enabled(if: LeapDayReadersTests.sabreVObject.available(), "needs sabre/vobject (apt-get install php-cli php-sabre-vobject)"))
    func sabreVObjectPutsALunarBirthdayOnTheGregorianDayOfItsRule() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = try await LeapDayReadersTests.sabreVObject.run(try Self.feed(in: directory, leapMonth: false), directory)
        try #require(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("2027-03-11|🎂 Ada Lovelace"))
        #expect(lines.contains("2027-11-01|🎂 Mei Chen (lunar)"), "\(lines)")
    }
}
