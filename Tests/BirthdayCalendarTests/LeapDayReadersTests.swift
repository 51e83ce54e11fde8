import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// Every reader expands the feed to the same days as BirthdayKit's own rule,
/// for both leap-day policies, over ten years: Feb 29 people on Feb 29 in
/// leap years and on Feb 28 or Mar 1 (per the policy) otherwise, nobody twice.
/// The readers are those the issue names: recurring-ical-events (on
/// python3-icalendar), calcurse and sabre/vobject (Nextcloud's library), each
/// from Debian; libical, dateutil and khal are checked in their own suites.
@Suite struct LeapDayReadersTests {
    static let first = LocalDate(year: 2027, month: 1, day: 1)!
    static let last = LocalDate(year: 2036, month: 12, day: 31)!

    /// A reader: a program that prints `YYYY-MM-DD|SUMMARY` per instance
    /// between two dates, given the feed's path.
    struct Reader: Sendable, CustomTestStringConvertible {
        var name: String
        var missing: String
        var available: @Sendable () -> Bool
        var run: @Sendable (_ feed: String, _ directory: TemporaryDirectory) async throws -> TestProcess.Result
        var testDescription: String { name }
    }

    static let recurringICalEvents = Reader(
        name: "recurring-ical-events",
        missing: "apt-get install python3-recurring-ical-events",
        available: { SystemTools.pythonHas("icalendar", "recurring_ical_events") },
        run: { feed, _ in
            try await TestProcess.run([
                SystemTools.python, "-c",
                """
                import sys, icalendar, recurring_ical_events
                cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
                for e in recurring_ical_events.of(cal).between((2027, 1, 1), (2037, 1, 1)):
                    print(e['DTSTART'].dt.strftime('%Y-%m-%d') + '|' + str(e['SUMMARY']))
                """,
                feed,
            ])
        }
    )

    static let calcurse = Reader(
        name: "calcurse",
        missing: "apt-get install calcurse",
        available: { SystemTools.path("calcurse") != nil },
        run: { feed, directory in
            let data = directory.file("calcurse")
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let imported = try await TestProcess.run(
                ["/usr/bin/calcurse", "-D", data, "-C", data, "-q", "-i", feed],
                environment: ["HOME": directory.path]
            )
            guard imported.status == 0 else { return imported }
            let listed = try await TestProcess.run(
                [
                    "/usr/bin/calcurse", "-D", data, "-C", data, "--read-only", "--input-datefmt", "4", "--output-datefmt", "%Y-%m-%d",
                    "-Q", "--from", "2027-01-01", "--to", "2036-12-31", "--format-event", "=%m\\n", "--format-recur-event", "=%m\\n",
                ],
                environment: ["HOME": directory.path, "LC_ALL": "C.UTF-8"]
            )
            // A "YYYY-MM-DD:" line, then "=SUMMARY" lines for that day.
            var day = ""
            var lines: [String] = []
            for line in listed.stdout.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.count == 11, text.hasSuffix(":") {
                    day = String(text.dropLast())
                } else if text.hasPrefix("=") {
                    lines.append(day + "|" + text.dropFirst())
                }
            }
            return TestProcess.Result(status: listed.status, stdout: lines.map { $0 + "\n" }.joined(), stderr: listed.stderr)
        }
    )

    static let sabreVObject = Reader(
        name: "sabre/vobject",
        missing: "apt-get install php-cli php-sabre-vobject",
        available: { SystemTools.path("php") != nil && FileManager.default.fileExists(atPath: "/usr/share/php/Sabre/VObject/includes.php") },
        run: { feed, _ in
            try await TestProcess.run([
                "/usr/bin/php", "-r",
                """
                require '/usr/share/php/Sabre/VObject/includes.php';
                $cal = Sabre\\VObject\\Reader::read(file_get_contents($argv[1]));
                $utc = new DateTimeZone('UTC');
                $cal->expand(new DateTime('2027-01-01', $utc), new DateTime('2037-01-01', $utc));
                // sabre/vobject 2.x keeps TEXT values escaped (RFC 5545 §3.3.11).
                $b = chr(92);
                $text = fn($v) => strtr((string)$v, [$b . $b => $b, $b . ',' => ',', $b . ';' => ';', $b . 'n' => ' ']);
                foreach ($cal->VEVENT as $e) echo $e->DTSTART->getDateTime()->format('Y-m-d'), '|', $text($e->SUMMARY), "\\n";
                """,
                feed,
            ])
        }
    )

    /// `YYYY-MM-DD|SUMMARY` of every instance BirthdayKit expects in the window.
    static func expected(_ policy: LeapDayPolicy) -> [String] {
        AddressBook.people.flatMap { person in
            EventKind.allCases.flatMap { kind -> [String] in
                guard let date = person.date(of: kind) else { return [] }
                let title = (kind == .birthday ? "🎂 " : "💍 ") + person.name
                return (first.year...last.year).map { date.occurrence(in: $0, leapDay: policy).description + "|" + title }
            }
        }.sorted()
    }

    @Test(
        .enabled(if: recurringICalEvents.available(), Comment(rawValue: "needs python3-recurring-ical-events (\(recurringICalEvents.missing))")),
        arguments: LeapDayPolicy.allCases
    )
    func recurringICalEventsExpandsTheFeedToTheSameDays(policy: LeapDayPolicy) async throws {
        try await check(Self.recurringICalEvents, policy: policy)
    }

    @Test(.enabled(if: calcurse.available(), Comment(rawValue: "needs calcurse (\(calcurse.missing))")), arguments: LeapDayPolicy.allCases)
    func calcurseExpandsTheFeedToTheSameDays(policy: LeapDayPolicy) async throws {
        try await check(Self.calcurse, policy: policy)
    }

    @Test(
        .enabled(if: sabreVObject.available(), Comment(rawValue: "needs sabre/vobject (\(sabreVObject.missing))")),
        arguments: LeapDayPolicy.allCases
    )
    func sabreVObjectExpandsTheFeedToTheSameDays(policy: LeapDayPolicy) async throws {
        try await check(Self.sabreVObject, policy: policy)
    }

    func check(_ reader: Reader, policy: LeapDayPolicy) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var settings = Settings.withoutAges
        settings.leapDay = policy
        let feed = directory.file("birthdays.ics")
        try CalendarExporter(settings: settings).write(AddressBook.people, lastChange: AddressBook.lastChange, to: feed)
        let output = try await reader.run(feed, directory)
        try #require(output.status == 0, "\(reader.name) failed: \(output.stderr)")
        let instances = output.stdout.split(separator: "\n").map(String.init).filter {
            guard let day = LocalDate(iso: $0.prefix(10)) else { return false }
            return day >= Self.first && day <= Self.last
        }.sorted()
        let expected = Self.expected(policy)
        let leapDayPeople = ["Léa Müller 🎈", "Björn Ångström"]
        #expect(
            instances.filter { line in leapDayPeople.contains { line.hasSuffix($0) } }
                == expected.filter { line in leapDayPeople.contains { line.hasSuffix($0) } },
            "Feb 29 people in \(reader.name)"
        )
        #expect(instances == expected, "every event in \(reader.name)")
    }
}
