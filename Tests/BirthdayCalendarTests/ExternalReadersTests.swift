import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// The feed read by independent implementations: python3-icalendar with
/// dateutil's RRULE expansion, and khal (which imports through
/// python3-icalendar and stores in a vdir). Each test skips when its tool is
/// missing; `make test` installs `python3-icalendar python3-dateutil khal`.
@Suite struct ExternalReadersTests {
    // MARK: - python3-icalendar and dateutil

    /// Parses the feed with `icalendar.Calendar.from_ical`, checks what every
    /// event and alarm must carry, and expands each RRULE from DTSTART with
    /// dateutil between the two given dates. Prints JSON.
    private static let pythonReader = #"""
        import json, sys, datetime
        import icalendar
        from dateutil.rrule import rrulestr

        path, first, last = sys.argv[1], sys.argv[2], sys.argv[3]
        with open(path, 'rb') as f:
            cal = icalendar.Calendar.from_ical(f.read())
        begin = datetime.datetime.strptime(first, '%Y-%m-%d')
        end = datetime.datetime.strptime(last, '%Y-%m-%d')
        out = {'calname': str(cal.get('X-WR-CALNAME')), 'name': str(cal.get('NAME')),
               'refresh': cal.get('REFRESH-INTERVAL').to_ical().decode(), 'errors': [], 'events': []}
        for c in cal.walk():
            if getattr(c, 'errors', None):
                out['errors'].append([c.name, [str(e) for e in c.errors]])
        for ev in cal.walk('VEVENT'):
            start = ev.decoded('DTSTART')
            if isinstance(start, datetime.datetime):
                out['errors'].append(['DTSTART is not a DATE', str(ev['UID'])])
                continue
            rule = ev['RRULE'].to_ical().decode()
            dtstart = datetime.datetime(start.year, start.month, start.day)
            days = [d.date().isoformat() for d in rrulestr(rule, dtstart=dtstart).between(begin, end, inc=True)]
            alarms = []
            for a in ev.walk('VALARM'):
                trigger = a.decoded('TRIGGER')
                alarms.append({'action': str(a['ACTION']), 'seconds': int(trigger.total_seconds()),
                               'related': a['TRIGGER'].params.get('RELATED', 'START'), 'description': str(a['DESCRIPTION'])})
            out['events'].append({
                'uid': str(ev['UID']), 'summary': str(ev['SUMMARY']), 'start': start.isoformat(),
                'end': ev.decoded('DTEND').isoformat(), 'stampUTC': ev.decoded('DTSTAMP').utcoffset() == datetime.timedelta(0),
                'transp': str(ev['TRANSP']), 'class': str(ev['CLASS']),
                'categories': [str(x) for x in ev['CATEGORIES'].cats], 'occurrences': days, 'alarms': alarms})
        json.dump(out, sys.stdout)
        """#

    private struct PythonReading: Decodable {
        struct Event: Decodable {
            struct Alarm: Decodable, Equatable {
                var action: String
                var seconds: Int
                var related: String
                var description: String
            }
            var uid, summary, start, end, transp, `class`: String
            var stampUTC: Bool
            var categories, occurrences: [String]
            var alarms: [Alarm]
        }
        var calname, name, refresh: String
        var errors: [[String]]?
        var events: [Event]
    }

    private func readWithPython(_ text: String, from first: LocalDate, to last: LocalDate) async throws -> PythonReading {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path + "/feed.ics"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let output = try await ExternalTool.run(ExternalTool.python, ["-c", Self.pythonReader, path, first.description, last.description])
        try #require(output.status == 0, "python3 failed: \(output.stderr)")
        return try JSONDecoder().decode(PythonReading.self, from: Data(output.stdout.utf8))
    }

    @Test(
        .enabled(
            if: ExternalTool.hasPythonICalendar,
            "needs /usr/bin/python3 with icalendar and dateutil (apt-get install python3-icalendar python3-dateutil)"
        ),
        arguments: LeapDayPolicy.allCases
    )
    func pythonICalendarReadsEveryEventAndDateutilExpandsItToTheRightDays(policy: LeapDayPolicy) async throws {
        var settings = Settings.withoutAges
        settings.leapDay = policy
        settings.calendarName = "Family, friends"
        let text = try CalendarExporter(settings: settings).export(AddressBook.people, lastChange: AddressBook.lastChange)
        let last = LocalDate(year: AddressBook.today.year + 10, month: 12, day: 31)!
        let reading = try await readWithPython(text, from: AddressBook.today, to: last)

        #expect(reading.errors ?? [] == [])
        #expect(reading.calname == "Family, friends")
        #expect(reading.name == "Family, friends")
        #expect(reading.refresh == "P1D")
        // Eight dates; under mar1 each of the two Feb 29 birthdays is four series.
        #expect(reading.events.count == (policy == .feb28 ? 8 : 14))
        for person in AddressBook.people {
            for kind in EventKind.allCases {
                guard let date = person.date(of: kind) else { continue }
                let stem = "\(person.id)-\(kind.rawValue)"
                let days = reading.events.filter { $0.uid == stem + "@birthdays" || $0.uid.hasPrefix(stem + "-mar1-") }.flatMap(\.occurrences)
                    .sorted()
                let expected = (AddressBook.today.year...last.year)
                    .map { date.occurrence(in: $0, leapDay: policy) }
                    .filter { $0 >= AddressBook.today }
                    .map(\.description)
                #expect(days == expected, "\(stem)")
            }
        }
        for event in reading.events {
            let person = try #require(AddressBook.people.first { event.uid.hasPrefix($0.id + "-") })
            let kind: EventKind = event.uid.contains("-anniversary") ? .anniversary : .birthday
            #expect(event.summary == (kind == .birthday ? "🎂 " : "💍 ") + person.name)
            #expect(event.stampUTC)
            #expect(event.transp == "TRANSPARENT" && event.class == "PRIVATE")
            #expect(event.categories == [kind == .birthday ? "Birthday" : "Anniversary"])
            let what = kind == .birthday ? "birthday" : "anniversary"
            #expect(
                event.alarms == [
                    .init(action: "DISPLAY", seconds: 9 * 3600, related: "START", description: "Today is \(person.name)'s \(what)!"),
                    .init(action: "DISPLAY", seconds: -15 * 3600, related: "START", description: "\(person.name)'s \(what) is tomorrow!"),
                ]
            )
        }
    }

    // MARK: - khal

    @Test(
        .enabled(if: ExternalTool.hasKhal, "needs khal (apt-get install khal)"),
        arguments: [
            (LeapDayPolicy.feb28, "2027-02-28", "2027-03-01"),
            (.mar1, "2027-03-01", "2027-02-28"),
        ]
    )
    func khalImportsTheFeedAndListsBirthdaysOnTheRightDay(policy: LeapDayPolicy, leapDayInCommonYear: String, otherDay: String) async throws {
        let khal = try KhalSandbox(in: TemporaryDirectory())
        defer { khal.directory.cleanup() }
        var settings = Settings.withoutAges
        settings.leapDay = policy
        let feed = khal.directory.path + "/birthdays.ics"
        try CalendarExporter(settings: settings).write(AddressBook.people, lastChange: AddressBook.lastChange, to: feed)

        try await khal.importFeed(feed)

        await #expect(try khal.titles(on: "2027-12-10") == ["🎂 Ada Lovelace"])
        await #expect(try khal.titles(on: "2027-05-14") == ["🎂 Doe, John; \"JJ\" \\o/"])
        await #expect(try khal.titles(on: "2027-06-20") == ["💍 Doe, John; \"JJ\" \\o/"])
        await #expect(try khal.titles(on: "2027-11-27") == ["🎂 李小龍"])
        await #expect(try khal.titles(on: "2027-12-31") == ["🎂 Silvester Eve"])
        await #expect(try khal.titles(on: "2028-01-01") == [])
        // Feb 29 people: on Feb 29 in a leap year, on the policy's day otherwise.
        await #expect(try khal.titles(on: "2028-02-29").sorted() == ["🎂 Björn Ångström", "🎂 Léa Müller 🎈"])
        await #expect(try khal.titles(on: leapDayInCommonYear).sorted() == ["🎂 Björn Ångström", "🎂 Léa Müller 🎈"])
        await #expect(try khal.titles(on: otherDay) == [])
    }

    // MARK: - Per-person control (issue 12)

    /// Ada with 7,1,0, Cy included despite his card, Ned with a nickname;
    /// Bob excluded by his card, Zoe by the user, Eve deceased.
    private static var controlled: [Person] { PersonControlFeedTests.people }

    @Test(
        .enabled(
            if: ExternalTool.hasPythonICalendar,
            "needs /usr/bin/python3 with icalendar and dateutil (apt-get install python3-icalendar python3-dateutil)"
        )
    )
    func pythonICalendarReadsEveryReminderDayAndNoOneLeftOut() async throws {
        var settings = Settings.withoutAges
        settings.reminders = PersonControlFeedTests.week
        settings.names = .nickname
        let text = try CalendarExporter(settings: settings).export(Self.controlled, lastChange: AddressBook.lastChange)
        let reading = try await readWithPython(text, from: AddressBook.today, to: LocalDate(year: AddressBook.today.year + 1, month: 12, day: 31)!)
        #expect(reading.errors ?? [] == [])
        #expect(reading.events.map(\.uid) == ["ada-birthday@birthdays", "cy-birthday@birthdays", "ned-birthday@birthdays"])
        #expect(reading.events.map(\.summary) == ["🎂 Ada Lovelace", "🎂 Cy", "🎂 Blackbeard"])
        let day = 24 * 3600
        for event in reading.events {
            #expect(event.alarms.map(\.seconds) == [9 * 3600, -15 * 3600, -(6 * day + 15 * 3600)], "\(event.uid)")
            #expect(event.alarms.allSatisfy { $0.action == "DISPLAY" && $0.related == "START" })
        }
        #expect(reading.events.last?.alarms.last?.description == "Blackbeard's birthday is in a week!")
        // A memorial under remember: Eve's birthday with one alarm on the day.
        settings.deceased = .remember
        let remembered = try await readWithPython(
            try CalendarExporter(settings: settings).export(Self.controlled, lastChange: AddressBook.lastChange),
            from: AddressBook.today,
            to: LocalDate(year: AddressBook.today.year + 1, month: 12, day: 31)!
        )
        let eve = try #require(remembered.events.first { $0.uid == "eve-birthday@birthdays" })
        #expect(eve.summary == "🕯️ Eve")
        #expect(eve.occurrences == ["2027-03-20"])
        #expect(eve.alarms == [.init(action: "DISPLAY", seconds: 9 * 3600, related: "START", description: "Today would have been Eve's birthday.")])
        #expect(!remembered.events.contains { $0.uid.hasPrefix("eve-anniversary") })
    }

    @Test(.enabled(if: ExternalTool.hasKhal, "needs khal (apt-get install khal)"))
    func khalImportsTheAlarmsOfEveryReminderDayAndListsNoOneLeftOut() async throws {
        let khal = try KhalSandbox(in: TemporaryDirectory())
        defer { khal.directory.cleanup() }
        var settings = Settings.withoutAges
        settings.reminders = PersonControlFeedTests.week
        let feed = khal.directory.path + "/birthdays.ics"
        try CalendarExporter(settings: settings).write(Self.controlled, lastChange: AddressBook.lastChange, to: feed)
        try await khal.importFeed(feed)

        await #expect(try khal.titles(on: "2027-12-10") == ["🎂 Ada Lovelace"])
        await #expect(try khal.titles(on: "2027-01-03") == ["🎂 Cy"])
        await #expect(try khal.titles(on: "2027-04-05") == ["🎂 Edward Teach"])
        // Excluded by the card (Bob), by the user (Zoe), deceased (Eve, and her anniversary).
        await #expect(try khal.titles(on: "2027-01-02") == [])
        await #expect(try khal.titles(on: "2027-05-06") == [])
        await #expect(try khal.titles(on: "2027-03-20") == [])
        await #expect(try khal.titles(on: "2027-06-01") == [])
        // khal keeps the three alarms (it lists the event as alarming, and writes them back as it read them).
        let listed = try await khal.run(["list", "--format", "{title}|{alarm-symbol}", "--day-format", "", "2027-12-10", "1d"])
        #expect(listed.status == 0)
        #expect(listed.stdout.split(whereSeparator: \.isNewline).contains { $0.hasPrefix("🎂 Ada Lovelace| ") && $0.count > "🎂 Ada Lovelace| ".count })
        let stored = try FileManager.default.contentsOfDirectory(atPath: khal.directory.path + "/calendars/birthdays")
        let ada = try #require(stored.first { $0.hasPrefix("ada-birthday") })
        let text = try String(contentsOfFile: khal.directory.path + "/calendars/birthdays/" + ada, encoding: .utf8)
        // Lines end in CRLF, one Character in Swift: split on any line break.
        let triggers = text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("TRIGGER") }.map(String.init)
        #expect(triggers.sorted() == ["TRIGGER;RELATED=START:-P6DT15H", "TRIGGER;RELATED=START:-PT15H", "TRIGGER;RELATED=START:PT9H"].sorted())
    }
}
