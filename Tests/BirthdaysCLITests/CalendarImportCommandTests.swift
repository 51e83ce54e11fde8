import Foundation
import TestSupport
import Testing

/// `birthdays import FILE.ics` through the real binary and real libical
/// (issue 34): birthday calendars as Google Calendar, a Facebook birthdays
/// export, Outlook and Thunderbird write them, and our own feed's round trip.
@Suite struct CalendarImportCommandTests {
    /// `name birthday anniversary` of everyone, as `people --json` has them.
    func people(_ cli: CLIProcess) async throws -> [String] {
        func date(_ value: Any?) -> String {
            guard let date = value as? [String: Any], let month = date["month"] as? Int, let day = date["day"] as? Int else { return "-" }
            let year = (date["year"] as? Int).map { String(format: "%04d", $0) } ?? "-"
            return year + String(format: "-%02d-%02d", month, day)
        }
        return try CLIProcess.array(try await cli.run("people", "--json").stdout).map {
            "\($0["name"] as? String ?? "?") \(date($0["birthday"])) \(date($0["anniversary"]))"
        }
    }

    /// `name: label date, …` of everyone with labelled dates, as `people --json` has them.
    func labelled(_ cli: CLIProcess) async throws -> [String] {
        try CLIProcess.array(try await cli.run("people", "--json").stdout).compactMap { person in
            let dates = (person["labelled_dates"] as? [[String: Any]] ?? []).map { labelled in
                let date = labelled["date"] as? [String: Any] ?? [:]
                let year = (date["year"] as? Int).map { String(format: "%04d", $0) } ?? "-"
                return "\(labelled["label"] as? String ?? "?") " + year
                    + String(format: "-%02d-%02d", date["month"] as? Int ?? 0, date["day"] as? Int ?? 0)
            }
            return dates.isEmpty ? nil : "\(person["name"] as? String ?? "?"): " + dates.joined(separator: ", ")
        }
    }

    /// CRLF lines, as every one of these tools writes them.
    static func calendar(_ lines: [String]) -> String { lines.joined(separator: "\r\n") + "\r\n" }

    /// Google Calendar's export of the Birthdays calendar (Takeout's
    /// `Birthdays.ics`): a yearly all-day event per contact, the title in
    /// the account's language, the year of birth in DTSTART when the contact has one.
    static let google = calendar([
        "BEGIN:VCALENDAR",
        "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
        "VERSION:2.0",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "X-WR-CALNAME:Birthdays",
        "X-WR-TIMEZONE:Europe/Berlin",
        "BEGIN:VEVENT",
        "DTSTART;VALUE=DATE:19901210",
        "DTEND;VALUE=DATE:19901211",
        "RRULE:FREQ=YEARLY",
        "DTSTAMP:20261127T080000Z",
        "UID:2_anfgbmtl6d1rc9efg8l9oeh6kg@google.com",
        "CLASS:PUBLIC",
        "CREATED:20200101T000000Z",
        "DESCRIPTION:",
        "LAST-MODIFIED:20200101T000000Z",
        "SEQUENCE:0",
        "STATUS:CONFIRMED",
        "SUMMARY:Ada Lovelace's birthday",
        "TRANSP:TRANSPARENT",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTSTART;VALUE=DATE:20270304",
        "DTEND;VALUE=DATE:20270305",
        "RRULE:FREQ=YEARLY",
        "DTSTAMP:20261127T080000Z",
        "UID:2_bnfgbmtl6d1rc9efg8l9oeh6kh@google.com",
        "CLASS:PUBLIC",
        "SUMMARY:Alan Turing's birthday",
        "TRANSP:TRANSPARENT",
        "END:VEVENT",
        "END:VCALENDAR",
    ])

    /// A Facebook birthdays export as browser extensions (fb2cal and its
    /// kin) write it: no year (the series starts this year), a day's DURATION.
    static let facebook = calendar([
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:ics.py - http://git.io/lLljaA",
        "X-WR-CALNAME:Facebook Birthdays",
        "BEGIN:VEVENT",
        "DTSTART;VALUE=DATE:20260417",
        "DURATION:P1D",
        "RRULE:FREQ=YEARLY",
        "SUMMARY:Grace Hopper's Birthday",
        "UID:1000123456789@facebook.com",
        "END:VEVENT",
        "END:VCALENDAR",
    ])

    /// Outlook 16's export of a contact's birthday and anniversary events,
    /// and a yearly all-day event that is neither.
    static let outlook = calendar([
        "BEGIN:VCALENDAR",
        "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN",
        "VERSION:2.0",
        "METHOD:PUBLISH",
        "X-MS-OLK-FORCEINSPECTOROPEN:TRUE",
        "BEGIN:VEVENT",
        "CLASS:PUBLIC",
        "CREATED:20200312T101010Z",
        "DTEND;VALUE=DATE:19501114",
        "DTSTAMP:20261127T080000Z",
        "DTSTART;VALUE=DATE:19501113",
        "LAST-MODIFIED:20200312T101010Z",
        "PRIORITY:5",
        "RRULE:FREQ=YEARLY;BYMONTHDAY=13;BYMONTH=11",
        "SEQUENCE:0",
        "SUMMARY;LANGUAGE=en-us:Margaret Hamilton's Birthday",
        "TRANSP:TRANSPARENT",
        "UID:040000008200E00074C5B7101A82E00800000000B0A1F2E3D4C5D601000000000000000010000000",
        "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTEND;VALUE=DATE:19800602",
        "DTSTART;VALUE=DATE:19800601",
        "RRULE:FREQ=YEARLY;BYMONTHDAY=1;BYMONTH=6",
        "SUMMARY;LANGUAGE=en-us:Margaret Hamilton's Anniversary",
        "UID:040000008200E00074C5B7101A82E00800000000B0A1F2E3D4C5D601000000000000000010000001",
        "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTEND;VALUE=DATE:20200107",
        "DTSTART;VALUE=DATE:20200106",
        "RRULE:FREQ=YEARLY;BYMONTHDAY=6;BYMONTH=1",
        "SUMMARY;LANGUAGE=en-us:Renew the car insurance",
        "UID:040000008200E00074C5B7101A82E00800000000B0A1F2E3D4C5D601000000000000000010000002",
        "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE",
        "END:VEVENT",
        "END:VCALENDAR",
    ])

    /// Thunderbird (Lightning) with a German user's yearly events, and a meeting at a time.
    static let thunderbird = calendar([
        "BEGIN:VCALENDAR",
        "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
        "VERSION:2.0",
        "BEGIN:VEVENT",
        "CREATED:20230101T120000Z",
        "LAST-MODIFIED:20230101T120000Z",
        "DTSTAMP:20230101T120000Z",
        "UID:0b7e1a7c-6f0e-4b8e-9a57-3d2f5e1c9a01",
        "SUMMARY:Geburtstag von Käthe Müller",
        "RRULE:FREQ=YEARLY",
        "DTSTART;VALUE=DATE:19600229",
        "DTEND;VALUE=DATE:19600301",
        "TRANSP:TRANSPARENT",
        "X-MOZ-GENERATION:1",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:0b7e1a7c-6f0e-4b8e-9a57-3d2f5e1c9a02",
        "SUMMARY:Geburtstag von Team",
        "RRULE:FREQ=YEARLY",
        "DTSTART;TZID=Europe/Berlin:20230512T100000",
        "DTEND;TZID=Europe/Berlin:20230512T110000",
        "END:VEVENT",
        "END:VCALENDAR",
    ])

    @Test func birthdayCalendarsOfEachKindBecomePeople() async throws {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let files = try [
            cli.write("Birthdays.ics", Self.google), cli.write("facebook.ics", Self.facebook),
            cli.write("outlook.ics", Self.outlook), cli.write("thunderbird.ics", Self.thunderbird),
        ]
        let imported = try await cli.run(["import"] + files)
        #expect(imported.status == 0, "\(imported.stderr)")
        let problem =
            "outlook.ics:29: a yearly event whose title names no birthday or anniversary; not imported (--as birthday takes it as a birthday)\n"
        #expect(imported.stderr.hasSuffix(problem) && imported.stderr.components(separatedBy: "\n").count == 2, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("imported 4 files: 5 added, 0 updated, 0 unchanged"), "\(imported.stdout)")
        #expect(
            try await people(cli) == [
                "Ada Lovelace 1990-12-10 -", "Alan Turing --03-04 -", "Grace Hopper --04-17 -",
                "Käthe Müller 1960-02-29 -", "Margaret Hamilton 1950-11-13 1980-06-01",
            ]
        )
        // The same files again change nothing.
        let again = try await cli.json(["import"] + files)
        #expect((again as? [String: Any])?["unchanged"] as? Int == 5)
        #expect((again as? [String: Any])?["added"] as? Int == 0)
    }

    /// Ada's card (with a UID, in a group, without a birthday) is already
    /// there: Google's calendar names her, so she gets its birthday, and
    /// keeps her id and group; nobody is added twice.
    @Test func aPersonAlreadyThereIsFoundByNameAndOnlyGetsTheDatesSheLacks() async throws {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nN:Lovelace;Ada;;;\r\nCATEGORIES:Family\r\nEND:VCARD\r\n"
        #expect(try await cli.run("import", try cli.write("phone.vcf", card)).status == 0)
        let report = try await cli.json(["import", try cli.write("Birthdays.ics", Self.google)])
        #expect((report as? [String: Any])?["updated"] as? Int == 1 && (report as? [String: Any])?["added"] as? Int == 1, "\(report)")
        let ada = try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)
        #expect((ada["birthday"] as? [String: Any])?["year"] as? Int == 1990)
        #expect(ada["groups"] as? [String] == ["Family"] && ada["undated"] as? Bool == false)
        #expect(try await people(cli) == ["Ada Lovelace 1990-12-10 -", "Alan Turing --03-04 -"])
        let again = try await cli.json(["import", cli.path("Birthdays.ics")])
        #expect((again as? [String: Any])?["unchanged"] as? Int == 2)

        // The card's file imported again still lacks the birthday: the calendar's stays.
        let card2 = try await cli.json(["import", cli.path("phone.vcf")])
        #expect((card2 as? [String: Any])?["unchanged"] as? Int == 1, "\(card2)")
        #expect(try await people(cli) == ["Ada Lovelace 1990-12-10 -", "Alan Turing --03-04 -"])
        // Once the card has a birthday of its own, it is the card's; when the card drops it, it is gone.
        let dated = card.replacingOccurrences(of: "CATEGORIES:Family\r\n", with: "CATEGORIES:Family\r\nBDAY:1990-12-11\r\n")
        #expect(try await cli.run("import", try cli.write("phone.vcf", dated)).status == 0)
        #expect(try await people(cli) == ["Ada Lovelace 1990-12-11 -", "Alan Turing --03-04 -"])
        #expect(try await cli.run("import", try cli.write("phone.vcf", card)).status == 0)
        let ada2 = try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)
        #expect(ada2["birthday"] is NSNull && ada2["undated"] as? Bool == true, "\(ada2)")
    }

    @Test func asBirthdayTakesEveryYearlyAllDayEvent() async throws {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let imported = try await cli.run("import", "--as", "birthday", try cli.write("outlook.ics", Self.outlook))
        #expect(imported.status == 0 && imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(try await people(cli) == ["Margaret Hamilton 1950-11-13 -", "Renew the car insurance 2020-01-06 -"])
    }

    /// Our own `export`, imported into an empty store, gives back the same
    /// people, dates, labelled dates and known years: with the ages in the
    /// titles (the default), emoji or words, in English and in Japanese. Name
    /// days are on: their events are left out silently (they come from the name).
    @Test(arguments: [[("emoji", "on")], [("emoji", "off")], [("emoji", "off"), ("language", "ja")], [("calendar-ages", "off")]])
    func ourOwnFeedComesBackTheSame(settings: [(String, String)]) async throws {
        let source = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { source.cleanUp() }
        let cards = [
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-12-10\r\nANNIVERSARY:2015-06-01\r\n"
                + "item1.X-ABDATE:2019-03-03\r\nitem1.X-ABLabel:Started work\r\nitem2.X-ABDATE:2015-12-01\r\nitem2.X-ABLabel:Child's birthday\r\n"
                + "END:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Alan Turing\r\nBDAY:--0304\r\nEND:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:urn:uuid:kathe\r\nFN:Käthe Müller\r\nBDAY:19600229\r\nEND:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:janis\r\nN:Bērziņš;Jānis;;;\r\nFN:Jānis Bērziņš\r\nBDAY:1980-04-12\r\nEND:VCARD\r\n",
        ].joined()
        let imported = try await source.run("import", try source.write("contacts.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        try await source.set("name-days", "lv")
        for (key, value) in settings { try await source.set(key, value) }
        let feed = try await source.run("export")
        try #require(feed.status == 0, "\(feed.stderr)")
        try #require(feed.stdout.contains("UID:janis-nameday-lv@birthdays\r\n") && feed.stdout.contains("X-BIRTHDAYS-LABEL:Started work\r\n"))

        let target = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { target.cleanUp() }
        let back = try await target.run("import", try target.write("feed.ics", feed.stdout))
        #expect(back.status == 0 && back.stderr.isEmpty, "\(back.stderr)")
        #expect(try await people(target) == people(source))
        #expect(
            try await people(target) == [
                "Ada Lovelace 1990-12-10 2015-06-01", "Alan Turing --03-04 -", "Jānis Bērziņš 1980-04-12 -", "Käthe Müller 1960-02-29 -",
            ]
        )
        #expect(try await labelled(target) == ["Ada Lovelace: Child's birthday 2015-12-01, Started work 2019-03-03"])
        // No name day came in as a date of the person's.
        try await target.set("name-days", "lv")
        #expect(try await labelled(target) == labelled(source))
        // Imported again, the feed changes nothing.
        let again = try await target.json(["import", target.path("feed.ics")])
        #expect((again as? [String: Any])?["unchanged"] as? Int == 4)
    }

    /// A yearly all-day event of a German birthday calendar, as Thunderbird writes one.
    static func event(_ summary: String, _ start: String, uid: String) -> [String] {
        [
            "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261127T080000Z", "DTSTART;VALUE=DATE:\(start)", "RRULE:FREQ=YEARLY",
            "SUMMARY:\(summary)", "END:VEVENT",
        ]
    }

    /// A German birthday calendar (issue 41): a final `s` is a genitive only
    /// when the name without it is known (someone in the store, a first name
    /// of the name-day lists: Anna is on Latvia's) and the name with it is
    /// not. Andreas, Thomas and Klaus keep their names, and Andrea, who is in
    /// the store, does not get Andreas's birthday.
    @Test func aFinalSIsAGenitiveOnlyOnANameKnownWithoutIt() async throws {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let cards = [("andrea", "Andrea"), ("andreas", "Andreas"), ("karl", "Karl Müller")].map {
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\($0.0)\r\nFN:\($0.1)\r\nEND:VCARD\r\n"
        }
        #expect(try await cli.run("import", try cli.write("phone.vcf", cards.joined())).status == 0)
        let events = [
            ("Andreas Geburtstag", "19801130"), ("Thomas Geburtstag", "19751221"), ("Klaus Geburtstag", "19601206"),
            ("Annas Geburtstag", "19900726"), ("Karl Müllers Geburtstag", "19500128"),
        ]
        let file = Self.calendar(
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN"]
                + events.enumerated().flatMap { Self.event($0.element.0, $0.element.1, uid: "geburtstag-\($0.offset)") } + ["END:VCALENDAR"]
        )
        let imported = try await cli.run("import", try cli.write("Geburtstage.ics", file))
        #expect(imported.status == 0 && imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(
            try await people(cli).sorted() == [
                "Andrea - -", "Andreas 1980-11-30 -", "Anna 1990-07-26 -", "Karl Müller 1950-01-28 -", "Klaus 1960-12-06 -",
                "Thomas 1975-12-21 -",
            ]
        )
    }

    /// Our own export of someone remembered (issue 41: `deceased remember`,
    /// "🕯️ Ada Lovelace") comes back as someone who has died, with the death
    /// date: no reminder and no name day, where a living Ada would get both.
    /// An export made before it carried the date still says that she died.
    @Test func aMemorialComesBackAsSomeoneWhoHasDied() async throws {
        let source = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { source.cleanUp() }
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nDEATHDATE:1852-11-27\r\nEND:VCARD\r\n"
        #expect(try await source.run("import", try source.write("ada.vcf", card)).status == 0)
        try await source.set("deceased", "remember")
        let feed = try await source.run("export")
        try #require(feed.status == 0, "\(feed.stderr)")
        try #require(feed.stdout.contains("SUMMARY:🕯️ Ada Lovelace\r\n"), "\(feed.stdout)")
        #expect(feed.stdout.contains("X-BIRTHDAYS-DEATHDATE:1852-11-27\r\n"), "\(feed.stdout)")
        let withoutDate = feed.stdout.replacingOccurrences(of: "X-BIRTHDAYS-DEATHDATE:1852-11-27\r\n", with: "")

        for (text, died) in [(feed.stdout, "1852-11-27"), (withoutDate, "unknown")] {
            let target = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
            defer { target.cleanUp() }
            // Latvia's list gives Ada a name day (July 8) when she is alive.
            try await target.set("name-days", "lv")
            let back = try await target.run("import", try target.write("feed.ics", text))
            #expect(back.status == 0 && back.stderr.isEmpty, "\(back.stderr)")
            let ada = try CLIProcess.object(try await target.run("show", "ada", "--json").stdout)
            #expect(ada["deceased"] as? Bool == true && ada["death_date"] as? String == died, "\(ada)")
            #expect(try await target.run("pending", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
            #expect(try CLIProcess.array(try await target.run("upcoming", "--days", "366", "--json").stdout).isEmpty)
        }
    }
}
