import CLibical
import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore
@testable import BirthdayText

@Suite struct CalendarExporterTests {
    private func export(
        _ people: [Person] = AddressBook.people,
        _ configure: (inout Settings) -> Void = { _ in },
        alarms: Bool = true
    ) throws -> String {
        var settings = Settings.withoutAges
        configure(&settings)
        return try CalendarExporter(settings: settings, includeAlarms: alarms).export(people, lastChange: AddressBook.lastChange)
    }

    private func events(_ text: String) throws -> [ICalEventReading] {
        try ICalComponent(parsing: text).events
    }

    // MARK: - Calendar

    @Test func calendarPropertiesNameTheFeedAndAskForDailyRefresh() throws {
        let text = try export { $0.calendarName = "Family, friends; \\ more" }
        let calendar = try ICalComponent(parsing: text)
        #expect(calendar.propertyValue(ICAL_VERSION_PROPERTY) == "2.0")
        #expect(calendar.propertyValue(ICAL_PRODID_PROPERTY) == CalendarExporter.productID)
        #expect(calendar.propertyValue(ICAL_CALSCALE_PROPERTY) == "GREGORIAN")
        #expect(calendar.propertyValue(ICAL_METHOD_PROPERTY) == nil)
        #expect(calendar.extensionValue("X-WR-CALNAME") == "Family, friends; \\ more")
        #expect(calendar.extensionValue("X-PUBLISHED-TTL") == "P1D")
        #expect(text.contains("\r\nREFRESH-INTERVAL;VALUE=DURATION:P1D\r\n"))
        // RFC 7986 NAME is TEXT, so libical escapes it.
        #expect(text.contains("\r\nNAME:Family\\, friends\\; \\\\ more\r\n"))
    }

    @Test func linesEndInCRLFAndAreFoldedAt75Octets() throws {
        let name = Array(repeating: "Ünïcödé", count: 30).joined(separator: " ")
        let unbroken = String(repeating: "Ü", count: 60)
        let text = try export([
            AddressBook.person("long", name, birthday: AddressBook.date(1980, 1, 2)),
            AddressBook.person("unbroken", unbroken, birthday: AddressBook.date(1980, 1, 3)),
        ])
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        for line in lines {
            #expect(line.last == UInt8(ascii: "\r"))
            #expect(line.count - 1 <= 75)
            #expect(String(validating: line, as: UTF8.self) != nil, "a fold split a UTF-8 sequence")
        }
        // libical folds at a space and never inside a UTF-8 sequence; unfolding gives the name back.
        #expect(try events(text).map(\.summary) == ["🎂 " + name, "🎂 " + unbroken])
    }

    // MARK: - Events

    @Test func onePerBirthdayAndAnniversarySortedByUIDLeavingOutPeopleWithoutDates() throws {
        let uids = try events(export()).map(\.uid)
        #expect(
            uids == [
                "ada-birthday@birthdays", "bjorn-birthday@birthdays", "john-doe-anniversary@birthdays", "john-doe-birthday@birthdays",
                "lea-birthday@birthdays", "li-anniversary@birthdays", "li-birthday@birthdays", "silvester-birthday@birthdays",
            ]
        )
    }

    @Test func anniversariesOnlyWhenTheSettingIsOn() throws {
        let uids = try events(export { $0.anniversaries = false }).map(\.uid)
        #expect(uids.count == 6)
        #expect(!uids.contains { $0.hasSuffix("-anniversary@birthdays") })
    }

    @Test func birthdayWithKnownYearStartsOnTheRealDateAsFloatingAllDayEvent() throws {
        let text = try export(AddressBook.only("ada"))
        let event = try #require(try events(text).first)
        #expect(event.start == LocalDate(year: 1815, month: 12, day: 10))
        #expect(event.end == LocalDate(year: 1815, month: 12, day: 11))
        #expect(event.startIsDate && event.startIsFloating)
        #expect(event.rule == "FREQ=YEARLY")
        #expect(event.summary == "🎂 Ada Lovelace")
        #expect(event.description == "born 1815")
        #expect(event.extensions == ["X-BIRTHDAYS-YEAR": "1815"])
        #expect(event.stamp == "20261121T053000Z")
        for line in ["DTSTART;VALUE=DATE:18151210", "DTEND;VALUE=DATE:18151211", "TRANSP:TRANSPARENT", "CLASS:PRIVATE", "CATEGORIES:Birthday"] {
            #expect(text.contains("\r\n" + line + "\r\n"), "missing \(line)")
        }
    }

    @Test func unknownYearStartsInTheLeapBaseYearAndIsMarked() throws {
        let events = try events(export(AddressBook.only("li")))
        let birthday = try #require(events.first { $0.uid == "li-birthday@birthdays" })
        #expect(birthday.start == LocalDate(year: 1972, month: 11, day: 27))
        #expect(birthday.description == nil)
        #expect(birthday.extensions == ["X-BIRTHDAYS-UNKNOWN-YEAR": "1"])
        #expect(birthday.summary == "🎂 李小龍")
        let anniversary = try #require(events.first { $0.uid == "li-anniversary@birthdays" })
        #expect(anniversary.summary == "💍 李小龍")
        #expect(anniversary.start == LocalDate(year: 1972, month: 8, day: 1))
    }

    @Test func anniversaryWithYearSaysSince() throws {
        let text = try export(AddressBook.only("john-doe"))
        let anniversary = try #require(try events(text).first { $0.uid == "john-doe-anniversary@birthdays" })
        #expect(anniversary.description == "since 2015")
        #expect(anniversary.extensions == ["X-BIRTHDAYS-YEAR": "2015"])
        #expect(text.contains("CATEGORIES:Anniversary\r\n"))
    }

    @Test func plainTitlesWithoutEmoji() throws {
        let summaries = try events(export(AddressBook.only("john-doe")) { $0.emoji = false }).map(\.summary)
        #expect(summaries == ["Doe, John; \"JJ\" \\o/'s anniversary", "Doe, John; \"JJ\" \\o/'s birthday"])
    }

    @Test func specialCharactersAreEscapedByLibicalAndRoundTrip() throws {
        let text = try export(AddressBook.only("john-doe"))
        #expect(text.contains("SUMMARY:🎂 Doe\\, John\\; \"JJ\" \\\\o/\r\n"))
        #expect(try events(text).first { $0.uid == "john-doe-birthday@birthdays" }?.summary == "🎂 Doe, John; \"JJ\" \\o/")
    }

    @Test func controlCharactersInNamesAreDroppedAndLineBreaksBecomeSpaces() throws {
        let text = try export([AddressBook.person("x", "Ann\u{0}a\r\nSmith\u{7}", birthday: AddressBook.date(2000, 1, 1))])
        #expect(try events(text).first?.summary == "🎂 Anna  Smith")
    }

    @Test func newYearsEveEndsOnNewYearsDay() throws {
        let event = try #require(try events(export(AddressBook.only("silvester"))).first)
        #expect(event.end == LocalDate(year: 1971, month: 1, day: 1))
    }

    // MARK: - February 29

    @Test func leapDayUnderFeb28IsOneSeriesOfTheLastDayOfFebruary() throws {
        let events = try events(export(AddressBook.only("lea") + AddressBook.only("bjorn")) { $0.leapDay = .feb28 })
        #expect(events.map(\.uid) == ["bjorn-birthday@birthdays", "lea-birthday@birthdays"])
        #expect(events.map(\.rule) == ["FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=2", "FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=2"])
        #expect(events.map(\.start) == [LocalDate(year: 1972, month: 2, day: 29), LocalDate(year: 1992, month: 2, day: 29)])
        #expect(events.map(\.end) == [LocalDate(year: 1972, month: 3, day: 1), LocalDate(year: 1992, month: 3, day: 1)])
    }

    /// Under `mar1`, four series of every fourth year: Feb 29 from the birth
    /// year (1972 when unknown), and Mar 1 from each of the three years after.
    @Test func leapDayUnderMar1IsFourSeriesOfEveryFourthYear() throws {
        let events = try events(export(AddressBook.only("lea")) { $0.leapDay = .mar1 })
        #expect(
            events.map(\.uid) == [
                "lea-birthday-mar1-1@birthdays", "lea-birthday-mar1-2@birthdays", "lea-birthday-mar1-3@birthdays", "lea-birthday@birthdays",
            ]
        )
        #expect(events.allSatisfy { $0.rule == "FREQ=YEARLY;INTERVAL=4" })
        #expect(events.map(\.start.description) == ["1993-03-01", "1994-03-01", "1995-03-01", "1992-02-29"])
        #expect(events.allSatisfy { $0.summary == "🎂 Léa Müller 🎈" && $0.extensions["X-BIRTHDAYS-YEAR"] == "1992" })
        let unknown = try self.events(export(AddressBook.only("bjorn")) { $0.leapDay = .mar1 })
        #expect(unknown.map(\.start.description) == ["1973-03-01", "1974-03-01", "1975-03-01", "1972-02-29"])
        #expect(unknown.allSatisfy { $0.extensions["X-BIRTHDAYS-UNKNOWN-YEAR"] == "1" })
    }

    /// libical's own iterator, over all of a date's series together, must
    /// agree with ``EventDate/occurrence(in:leapDay:)`` for the next ten
    /// years, leap years included, for every date, with no day twice.
    @Test(arguments: LeapDayPolicy.allCases)
    func libicalExpandsEveryEventToTheSameDaysAsBirthdayKit(policy: LeapDayPolicy) throws {
        var settings = Settings.withoutAges
        settings.leapDay = policy
        let events = try events(CalendarExporter(settings: settings).export(AddressBook.people, lastChange: AddressBook.lastChange))
        let last = LocalDate(year: AddressBook.today.year + 10, month: 12, day: 31)!
        for person in AddressBook.people {
            for kind in EventKind.allCases {
                guard let date = person.date(of: kind) else { continue }
                let stem = "\(person.id)-\(kind.rawValue)"
                let series = events.filter { $0.uid == stem + "@birthdays" || $0.uid.hasPrefix(stem + "-mar1-") }
                let days = series.flatMap { $0.occurrences(onOrAfter: AddressBook.today, count: 11) }.filter { $0 <= last }.sorted()
                let expected = (AddressBook.today.year...last.year).map { date.occurrence(in: $0, leapDay: policy) }.filter {
                    $0 >= AddressBook.today
                }
                #expect(days == expected, "\(stem)")
            }
        }
    }

    @Test(arguments: [
        (LeapDayPolicy.feb28, ["2027-02-28", "2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]),
        (.mar1, ["2027-03-01", "2028-02-29", "2029-03-01", "2030-03-01", "2031-03-01", "2032-02-29"]),
    ])
    func leapDayExpansionSpelledOut(policy: LeapDayPolicy, expected: [String]) throws {
        let events = try events(export(AddressBook.only("lea")) { $0.leapDay = policy })
        let days = events.flatMap { $0.occurrences(onOrAfter: AddressBook.today, count: 6) }.sorted().prefix(6)
        #expect(days.map(\.description) == expected)
        // The series starts on the birth date itself, then the next year follows the policy.
        let first = events.flatMap { $0.occurrences(onOrAfter: LocalDate(year: 1992, month: 1, day: 1)!, count: 2) }.sorted().prefix(2)
        #expect(first.map(\.description) == ["1992-02-29", policy == .feb28 ? "1993-02-28" : "1993-03-01"])
    }

    // MARK: - Alarms

    @Test(arguments: [
        ("09:00", "PT9H", "-PT15H"),
        ("08:30", "PT8H30M", "-PT15H30M"),
        ("00:00", "PT0S", "-P1D"),
        ("23:59", "PT23H59M", "-PT1M"),
        ("00:01", "PT1M", "-PT23H59M"),
    ])
    func triggersFollowTheDeliveryTime(time: String, dayOf: String, dayBefore: String) throws {
        let text = try export(AddressBook.only("ada")) { $0.deliveryTime = TimeOfDay(time)! }
        let event = try #require(try events(text).first)
        #expect(
            event.alarms == [
                .init(action: "DISPLAY", trigger: dayOf, description: "Today is Ada Lovelace's birthday!"),
                .init(action: "DISPLAY", trigger: dayBefore, description: "Ada Lovelace's birthday is tomorrow!"),
            ]
        )
        #expect(text.contains("TRIGGER;RELATED=START:\(dayOf)\r\n"))
    }

    @Test func anniversaryAlarmsSayAnniversary() throws {
        let event = try #require(try events(export(AddressBook.only("li"))).first { $0.uid.hasSuffix("-anniversary@birthdays") })
        #expect(event.alarms.map(\.description) == ["Today is 李小龍's anniversary!", "李小龍's anniversary is tomorrow!"])
    }

    /// Titles (emoji off), descriptions and alarm texts in the localizer's language; the name as it is.
    @Test(arguments: [
        ("de", "Geburtstag von Ada Lovelace", "geboren 1815", ["Heute hat Ada Lovelace Geburtstag!", "Ada Lovelace hat morgen Geburtstag!"]),
        ("ja", "Ada Lovelaceさんの誕生日", "1815年生まれ", ["今日はAda Lovelaceさんの誕生日です！", "明日はAda Lovelaceさんの誕生日です！"]),
        ("en", "Ada Lovelace's birthday", "born 1815", ["Today is Ada Lovelace's birthday!", "Ada Lovelace's birthday is tomorrow!"]),
    ])
    func textsFollowTheLanguage(language: String, summary: String, description: String, alarms: [String]) throws {
        var settings = Settings.withoutAges
        settings.emoji = false
        let text = try CalendarExporter(settings: settings, localizer: Localizer(language: language))
            .export(AddressBook.only("ada"), lastChange: AddressBook.lastChange)
        let event = try #require(try events(text).first)
        #expect(event.summary == summary)
        #expect(event.description == description)
        #expect(event.alarms.map(\.description) == alarms)
    }

    @Test func anniversaryTextsFollowTheLanguage() throws {
        var settings = Settings.withoutAges
        settings.emoji = false
        let text = try CalendarExporter(settings: settings, localizer: Localizer(language: "fr"))
            .export(AddressBook.only("john-doe"), lastChange: AddressBook.lastChange)
        let event = try #require(try events(text).first { $0.uid.hasSuffix("-anniversary@birthdays") })
        #expect(event.summary == "Anniversaire de mariage : Doe, John; \"JJ\" \\o/")
        #expect(event.description == "depuis 2015")
        #expect(event.alarms.first?.description == "Doe, John; \"JJ\" \\o/ fête son anniversaire de mariage aujourd’hui !")
    }

    @Test func noDayBeforeAlarmWhenTurnedOff() throws {
        let event = try #require(try events(export(AddressBook.only("ada")) { $0.dayBefore = false }).first)
        #expect(event.alarms.map(\.trigger) == ["PT9H"])
    }

    @Test func noAlarmsWhenExcluded() throws {
        let text = try export(alarms: false)
        #expect(!text.contains("VALARM"))
        #expect(try events(text).count == 8)
    }

    // MARK: - Determinism and errors

    @Test func sameInputGivesByteIdenticalOutputInAnyOrder() throws {
        let first = try export()
        #expect(try export(AddressBook.people.reversed()) == first)
        #expect(try export(AddressBook.people.shuffled()) == first)
    }

    /// Large exports are built on two threads and the events' texts joined;
    /// the result must still be libical's text of the whole calendar, in UID
    /// order, whatever the input order.
    @Test func aLargeExportBuiltOnTwoThreadsIsLibicalsTextOfTheWholeCalendar() throws {
        let people = (0..<1500).map { index in
            Person(
                id: "p\(index)",
                name: "Person \(index)",
                source: ContactSource(file: "large.vcf", index: index, line: 1),
                birthday: EventDate(year: index % 3 == 0 ? nil : 1940 + index % 60, month: 1 + index % 12, day: 1 + index % 28),
                anniversary: index % 2 == 0 ? EventDate(year: 2000 + 4 * (index % 5), month: 2, day: 29) : nil
            )
        }
        let text = try export(people) { $0.anniversaries = true }
        let calendar = try ICalComponent(parsing: text)
        #expect(calendar.errorCount == 0)
        #expect(try calendar.serialized() == text)
        let uids = calendar.events.map(\.uid)
        #expect(uids.count == 2250)
        #expect(uids == uids.sorted())
        #expect(try export(people.shuffled()) { $0.anniversaries = true } == text)
    }

    @Test func emptyAddressBookGivesACalendarWithoutEvents() throws {
        let text = try export([])
        #expect(try ICalComponent(parsing: text).events.isEmpty)
        #expect(text.contains("X-WR-CALNAME:Birthdays\r\n"))
    }

    @Test func twoPeopleWithTheSameIDAreAnError() throws {
        let twice = AddressBook.only("ada") + AddressBook.only("ada")
        #expect(throws: ExportError(.duplicateID("ada"))) { try export(twice) }
        #expect(
            ExportError(.duplicateID("ada")).description == "two people share the id 'ada'; each person needs a unique id to get a calendar event"
        )
    }

    // MARK: - libical's own checks

    /// Without `METHOD` libical applies RFC 5545's property counts (not iTIP's
    /// `PUBLISH` rules, which would demand an `ORGANIZER`): the feed passes,
    /// extension properties included, and a planted second `SUMMARY` fails,
    /// which shows the check runs.
    @Test func libicalParsesTheFeedWithoutErrorsAndItPassesTheRestrictionCheck() throws {
        let text = try export()
        let calendar = try ICalComponent(parsing: text)
        #expect(calendar.errorCount == 0)
        #expect(calendar.passesRestrictionCheck())
        #expect(calendar.errorMessages == [])
        #expect(try calendar.serialized() == text)

        let broken = text.replacingOccurrences(of: "SUMMARY:🎂 Ada Lovelace\r\n", with: "SUMMARY:🎂 Ada Lovelace\r\nSUMMARY:again\r\n")
        let brokenCalendar = try ICalComponent(parsing: broken)
        #expect(!brokenCalendar.passesRestrictionCheck())
        #expect(brokenCalendar.errorMessages.contains { $0.contains("SUMMARY") })
    }

    // MARK: - Writing

    @Test func writeReplacesTheFileAtomicallyReadableByOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path + "/birthdays.ics"
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        let exporter = CalendarExporter(settings: .withoutAges)
        try exporter.write(AddressBook.people, lastChange: AddressBook.lastChange, to: path)

        #expect(try String(contentsOfFile: path, encoding: .utf8) == exporter.export(AddressBook.people, lastChange: AddressBook.lastChange))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["birthdays.ics"])
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func writeIntoAMissingDirectoryIsAnError() throws {
        let path = "/nonexistent-\(UUID().uuidString)/birthdays.ics"
        let error = try #require(throws: ExportError.self) {
            try CalendarExporter(settings: .withoutAges).write(AddressBook.people, lastChange: AddressBook.lastChange, to: path)
        }
        #expect(error.description == "could not write the calendar to \(path): creating a temporary file failed (No such file or directory)")
    }
}
