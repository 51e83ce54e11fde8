import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore
@testable import BirthdayText

/// Ages in the feed's titles (`calendar-ages`, issue 25): one event per year
/// for this year and the next two with the age, then the recurring event
/// without one; round birthdays' early alarm; and `off` as the feed was.
@Suite struct AgesFeedTests {
    /// "Today": mid-2026, so the aged years are 2026, 2027 and 2028.
    static let today = LocalDate(year: 2026, month: 6, day: 15)!
    static let lastChange = AddressBook.lastChange
    /// The ten years the readers expand.
    static let first = LocalDate(year: 2026, month: 1, day: 1)!
    static let last = LocalDate(year: 2035, month: 12, day: 31)!

    static func person(
        _ id: String,
        _ name: String,
        birthday: EventDate? = nil,
        anniversary: EventDate? = nil,
        deathDate: String? = nil,
        alternateDates: [AlternateDate] = []
    ) -> Person {
        Person(
            id: id,
            name: name,
            source: ContactSource(file: "book.vcf", index: 0, line: 1),
            birthday: birthday,
            anniversary: anniversary,
            alternateDates: alternateDates,
            deathDate: deathDate
        )
    }

    /// A normal birthday, Feb 29 with a year, an anniversary (and a birthday),
    /// a year-less date, a placeholder year, a memorial, a date in another
    /// calendar, a birthday whose year is inside the window, and a round one.
    static let people: [Person] = [
        person("ada", "Ada Lovelace", birthday: EventDate(year: 1815, month: 12, day: 10)),
        person("lea", "Léa Müller", birthday: EventDate(year: 1992, month: 2, day: 29)),
        person(
            "mei",
            "Mei Tanaka",
            birthday: EventDate(year: 1990, month: 4, day: 10),
            anniversary: EventDate(year: 2019, month: 6, day: 1)
        ),
        person("cy", "Cy", birthday: EventDate(year: nil, month: 1, day: 3)),
        person("pat", "Pat Placeholder", birthday: EventDate(year: 1604, month: 5, day: 6)),
        person("ed", "Edward Teach", birthday: EventDate(year: 1950, month: 4, day: 5), deathDate: "2020-01-01"),
        person("chen", "Chen Lunar", alternateDates: CalendarDatesFeedTests.people[0].alternateDates),
        person("baby", "Baby Bloom", birthday: EventDate(year: 2027, month: 3, day: 1)),
        person("rou", "Ron Round", birthday: EventDate(year: 1977, month: 12, day: 20)),
    ]

    /// The year of each aged title (without its age); the others keep their titles.
    static let agedYears: [String: Int] = [
        "🎂 Ada Lovelace": 1815, "🎂 Léa Müller": 1992, "🎂 Mei Tanaka": 1990, "💍 Mei Tanaka": 2019, "🎂 Baby Bloom": 2027,
        "🎂 Ron Round": 1977,
    ]

    static func settings(ages: Bool, leapDay: LeapDayPolicy = .feb28) -> Settings {
        var settings = Settings()
        settings.deceased = .remember
        settings.calendarAges = ages
        settings.leapDay = leapDay
        return settings
    }

    static func export(ages: Bool, leapDay: LeapDayPolicy = .feb28, people: [Person] = people, alarms: Bool = true) throws -> String {
        try CalendarExporter(settings: settings(ages: ages, leapDay: leapDay), includeAlarms: alarms, today: today)
            .export(people, lastChange: lastChange)
    }

    static func events(_ text: String) throws -> [ICalEventReading] {
        try ICalComponent(parsing: text).events
    }

    // MARK: - The events

    @Test func aKnownYearGetsThreeYearsWithTheAgeThenTheRecurringEventAfterThem() throws {
        let on = try Self.events(Self.export(ages: true, people: [Self.people[0]]))
        let off = try Self.events(Self.export(ages: false, people: [Self.people[0]]))
        #expect(
            on.map(\.uid) == [
                "ada-birthday-y2026@birthdays", "ada-birthday-y2027@birthdays", "ada-birthday-y2028@birthdays", "ada-birthday@birthdays",
            ]
        )
        #expect(on.map(\.summary) == ["🎂 Ada Lovelace (211)", "🎂 Ada Lovelace (212)", "🎂 Ada Lovelace (213)", "🎂 Ada Lovelace"])
        #expect(on.map(\.start.description) == ["2026-12-10", "2027-12-10", "2028-12-10", "2029-12-10"])
        #expect(on.map(\.rule) == [nil, nil, nil, "FREQ=YEARLY"])
        // The same description, year, categories and alarms as the recurring event of today's feed;
        // every birthday from 100 on is round, so each of Ada's years has the round alarm too.
        let recurring = try #require(off.first)
        for event in on {
            #expect(event.description == recurring.description)
            #expect(Array(event.alarms.prefix(2)) == recurring.alarms)
            #expect(event.alarms.count == (event.rule == nil ? 3 : 2))
            #expect(event.extensions == recurring.extensions)
            #expect(event.end == event.start.adding(days: 1))
        }
        #expect(recurring.uid == "ada-birthday@birthdays" && recurring.start.description == "1815-12-10")
    }

    @Test func anAnniversaryCountsTheYearsMarried() throws {
        let on = try Self.events(Self.export(ages: true, people: [Self.people[2]]))
        #expect(
            on.filter { $0.uid.contains("-anniversary") }.map(\.summary) == [
                "💍 Mei Tanaka (7)", "💍 Mei Tanaka (8)", "💍 Mei Tanaka (9)", "💍 Mei Tanaka",
            ]
        )
        #expect(on.filter { $0.uid.contains("-anniversary") }.last?.start.description == "2029-06-01")
    }

    @Test func titlesFollowTheLanguageTheEmojiAndTheNameSettings() throws {
        var settings = Self.settings(ages: true)
        settings.emoji = false
        let mei = Self.people[2]
        for (language, birthday, anniversary) in [
            ("en", "Mei Tanaka's birthday (36)", "Mei Tanaka's anniversary (7)"),
            ("de", "Geburtstag von Mei Tanaka (36)", nil),
            ("ja", "Mei Tanakaさんの誕生日（36歳）", nil),
            ("zh-Hans", "Mei Tanaka的生日（36岁）", nil),
        ] {
            let text = try CalendarExporter(settings: settings, localizer: Localizer(language: language), today: Self.today)
                .export([mei], lastChange: Self.lastChange)
            let events = try Self.events(text)
            #expect(events.first { $0.uid == "mei-birthday-y2026@birthdays" }?.summary == birthday, "\(language)")
            if let anniversary {
                #expect(events.first { $0.uid == "mei-anniversary-y2026@birthdays" }?.summary == anniversary)
            }
        }
        // Japanese anniversaries count years, not ages.
        let japanese = try Self.events(
            CalendarExporter(settings: Self.settings(ages: true), localizer: Localizer(language: "ja"), today: Self.today)
                .export([mei], lastChange: Self.lastChange)
        )
        #expect(japanese.first { $0.uid == "mei-anniversary-y2026@birthdays" }?.summary == "💍 Mei Tanaka（7周年）")
        var nickname = Self.settings(ages: true)
        nickname.names = .nickname
        var ada = Self.people[0]
        ada.nickname = "Ada"
        let short = try Self.events(CalendarExporter(settings: nickname, today: Self.today).export([ada], lastChange: Self.lastChange))
        #expect(short.first?.summary == "🎂 Ada (211)")
    }

    @Test func theYearOfBirthKeepsItsDayWithoutAnAgeAndNothingComesBeforeIt() throws {
        let on = try Self.events(Self.export(ages: true, people: [Self.people[7]]))
        #expect(on.map(\.uid) == ["baby-birthday-y2027@birthdays", "baby-birthday-y2028@birthdays", "baby-birthday@birthdays"])
        #expect(on.map(\.summary) == ["🎂 Baby Bloom", "🎂 Baby Bloom (1)", "🎂 Baby Bloom"])
        #expect(on.map(\.start.description) == ["2027-03-01", "2028-03-01", "2029-03-01"])
        // A date after the window: its series starts on it, as without ages.
        let future = Self.person("later", "Later", birthday: EventDate(year: 2031, month: 7, day: 4))
        #expect(try Self.export(ages: true, people: [future]) == (try Self.export(ages: false, people: [future])))
    }

    @Test func yearlessPlaceholderMemorialAndOtherCalendarsKeepTodaysEvents() throws {
        for person in [Self.people[3], Self.people[4], Self.people[5], Self.people[6]] {
            #expect(try Self.export(ages: true, people: [person]) == (try Self.export(ages: false, people: [person])), "\(person.id)")
        }
        #expect(try Self.events(Self.export(ages: true, people: [Self.people[5]])).map(\.summary) == ["🕯️ Edward Teach"])
    }

    @Test(arguments: LeapDayPolicy.allCases)
    func februaryTwentyNinthFollowsTheLeapDaySettingInEveryYear(policy: LeapDayPolicy) throws {
        let events = try Self.events(Self.export(ages: true, leapDay: policy, people: [Self.people[1]]))
        let aged = events.filter { $0.rule == nil }
        #expect(aged.map(\.summary) == ["🎂 Léa Müller (34)", "🎂 Léa Müller (35)", "🎂 Léa Müller (36)"])
        let common = policy == .feb28 ? "02-28" : "03-01"
        #expect(aged.map(\.start.description) == ["2026-" + common, "2027-" + common, "2028-02-29"])
        let series = events.filter { $0.rule != nil }
        switch policy {
        case .feb28:
            #expect(series.map(\.uid) == ["lea-birthday@birthdays"])
            #expect(series.first?.start.description == "2029-02-28")
            #expect(series.first?.rule == "FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=2")
        case .mar1:
            #expect(
                series.map(\.uid) == [
                    "lea-birthday-mar1-1@birthdays", "lea-birthday-mar1-2@birthdays", "lea-birthday-mar1-3@birthdays", "lea-birthday@birthdays",
                ]
            )
            #expect(series.map(\.start.description) == ["2029-03-01", "2030-03-01", "2031-03-01", "2032-02-29"])
            #expect(series.allSatisfy { $0.rule == "FREQ=YEARLY;INTERVAL=4" })
        }
    }

    @Test func theSeriesOfMarchFirstNeverStartsOnAFebruaryTwentyNinthThatDoesNotExist() throws {
        // Today 2097: the aged years are 2097–2099, 2100 is common; the Feb 29 series starts in 2104.
        let text = try CalendarExporter(settings: Self.settings(ages: true, leapDay: .mar1), today: LocalDate(year: 2097, month: 1, day: 1)!)
            .export([Self.people[1]], lastChange: Self.lastChange)
        let events = try Self.events(text)
        #expect(events.first { $0.uid == "lea-birthday@birthdays" }?.start.description == "2104-02-29")
        #expect(events.filter { $0.rule == nil }.map(\.start.description) == ["2097-03-01", "2098-03-01", "2099-03-01"])
        #expect(events.first { $0.uid == "lea-birthday-mar1-1@birthdays" }?.start.description == "2101-03-01")
    }

    // MARK: - Round birthdays

    @Test func aRoundBirthdaysYearGetsOneMoreAlarmRoundBirthdaysDaysBefore() throws {
        let ron = [Self.people[8]]
        let events = try Self.events(Self.export(ages: true, people: ron))
        let fifty = try #require(events.first { $0.uid == "rou-birthday-y2027@birthdays" })
        #expect(fifty.summary == "🎂 Ron Round (50)")
        #expect(fifty.alarms.map(\.trigger) == ["PT9H", "-PT15H", "-P13DT15H"])
        #expect(fifty.alarms.last?.description == "Ron Round turns 50 in 2 weeks! A round birthday: time to plan.")
        #expect(events.filter { $0.uid != fifty.uid }.allSatisfy { $0.alarms.count == 2 })
        var settings = Self.settings(ages: true)
        settings.roundBirthdays = 30
        settings.language = "de"
        let month = try Self.events(
            CalendarExporter(settings: settings, localizer: Localizer(language: "de"), today: Self.today).export(ron, lastChange: Self.lastChange)
        )
        let alarm = try #require(month.first { $0.uid == fifty.uid }?.alarms.last)
        #expect(alarm.trigger == "-P29DT15H")
        #expect(alarm.description.contains("50") && alarm.description.hasSuffix(Localizer(language: "de")(.roundNote)))
        settings.roundBirthdays = nil
        let none = try Self.events(CalendarExporter(settings: settings, today: Self.today).export(ron, lastChange: Self.lastChange))
        #expect(none.allSatisfy { $0.alarms.count == 2 })
        // A round-birthdays lead that is a reminder day adds nothing.
        settings.roundBirthdays = 1
        let same = try Self.events(CalendarExporter(settings: settings, today: Self.today).export(ron, lastChange: Self.lastChange))
        #expect(same.allSatisfy { $0.alarms.count == 2 })
        // Without alarms, none.
        #expect(try Self.events(Self.export(ages: true, people: ron, alarms: false)).allSatisfy(\.alarms.isEmpty))
    }

    // MARK: - Off, and the year

    @Test func offIsTodaysFeedByteForByte() throws {
        let off = try CalendarExporter(settings: Settings(stored: ["calendar-ages": "off"]))
            .export(AddressBook.people, lastChange: AddressBook.lastChange)
        let url = try #require(Bundle.module.url(forResource: "birthdays", withExtension: "ics", subdirectory: "Fixtures/golden"))
        #expect(Data(off.utf8) == (try Data(contentsOf: url)))
        let on = try CalendarExporter(settings: Settings()).export(AddressBook.people, lastChange: AddressBook.lastChange)
        #expect(on != off)
    }

    @Test func aFeedWithAgesMovesOnJanuaryFirst() throws {
        let ada = [Self.people[0]]
        let december = CalendarExporter(settings: Self.settings(ages: true), today: LocalDate(year: 2026, month: 12, day: 31)!)
        let january = CalendarExporter(settings: Self.settings(ages: true), today: LocalDate(year: 2027, month: 1, day: 1)!)
        #expect(december.dependsOnYear(ada))
        let changed = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(december.lastChange(of: ada, changedAt: changed) == Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01
        #expect(january.lastChange(of: ada, changedAt: changed) == Date(timeIntervalSince1970: 1_798_761_600))  // 2027-01-01
        let before = try Self.events(december.export(ada, lastChange: changed)).map(\.uid)
        let after = try Self.events(january.export(ada, lastChange: changed)).map(\.uid)
        #expect(before.contains("ada-birthday-y2026@birthdays") && !after.contains("ada-birthday-y2026@birthdays"))
        #expect(after.contains("ada-birthday-y2029@birthdays") && !before.contains("ada-birthday-y2029@birthdays"))
        // Off, or only dates without a known year: the feed does not depend on the year.
        #expect(!CalendarExporter(settings: Self.settings(ages: false), today: Self.today).dependsOnYear(ada))
        #expect(
            !CalendarExporter(settings: Self.settings(ages: true), today: Self.today).dependsOnYear([Self.people[3], Self.people[4], Self.people[5]])
        )
    }

    @Test func yearUIDsCannotMeetAnotherSchemesUIDs() throws {
        // An id made to look like another scheme's stem: "x-ethiopic" + "-birthday-2027" would be the
        // expanded Ethiopic UID of "x"; the year's UID has its "y", so the export has no duplicate.
        let ethiopic = try #require(
            { () -> CalendarDate? in
                if case .date(let date) = CalendarDateValue.read("000119780403", calscale: "ethiopic") { return date }
                return nil
            }()
        )
        let people = [
            Self.person("x", "X", alternateDates: [AlternateDate(kind: .birthday, date: ethiopic)]),
            Self.person("x-ethiopic", "Y", birthday: EventDate(year: 2000, month: 1, day: 1)),
        ]
        let uids = try Self.events(Self.export(ages: true, people: people)).map(\.uid)
        #expect(Set(uids).count == uids.count)
        #expect(uids.contains("x-ethiopic-birthday-y2027@birthdays"))
        #expect(uids.contains("x-ethiopic-birthday-2027@birthdays"))
    }

    // MARK: - Readers

    /// `YYYY-MM-DD|SUMMARY` of every instance in the ten years, as a reader expands the feed.
    struct Reader: Sendable, CustomTestStringConvertible {
        var name: String
        var available: @Sendable () -> Bool
        var run: @Sendable (_ feed: String, _ directory: TemporaryDirectory) async throws -> [String]
        var testDescription: String { name }
    }

    static let libical = Reader(
        name: "libical",
        available: { true },
        run: { feed, _ in
            let text = try String(contentsOfFile: feed, encoding: .utf8)
            return try ICalComponent(parsing: text).events.flatMap { event in
                event.occurrences(onOrAfter: first, count: 40).filter { $0 <= last }.map { $0.description + "|" + event.summary }
            }
        }
    )

    static let recurringICalEvents = Reader(
        name: "recurring-ical-events",
        available: { SystemTools.pythonHas("icalendar", "recurring_ical_events") },
        run: { feed, _ in
            let output = try await TestProcess.run([
                SystemTools.python, "-c",
                """
                import sys, icalendar, recurring_ical_events
                cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
                for e in recurring_ical_events.of(cal).between((2026, 1, 1), (2036, 1, 1)):
                    print(e['DTSTART'].dt.strftime('%Y-%m-%d') + '|' + str(e['SUMMARY']))
                """,
                feed,
            ])
            try #require(output.status == 0, "recurring-ical-events failed: \(output.stderr)")
            return output.stdout.split(separator: "\n").map(String.init)
        }
    )

    static let khal = Reader(
        name: "khal",
        available: { ExternalTool.hasKhal },
        run: { feed, directory in
            let khal = try KhalSandbox(in: directory)
            try await khal.importFeed(feed)
            return try await khal.list(from: "2026-01-01", days: 3652).filter { $0.count > 11 }
        }
    )

    static let readers = [libical, recurringICalEvents, khal]

    /// With ages the reader finds the same (day, person) instances as without, on every day of
    /// the ten years, and exactly the instances of the three aged years carry their age.
    @Test(arguments: readers, LeapDayPolicy.allCases)
    func readersFindTheSameDaysWithAgesAndTheRightAgeInEachOfTheThreeYears(reader: Reader, policy: LeapDayPolicy) async throws {
        try #require(reader.available(), "\(reader.name) is not installed")
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let onFeed = try directory.write("on.ics", try Self.export(ages: true, leapDay: policy))
        let offFeed = try directory.write("off.ics", try Self.export(ages: false, leapDay: policy))
        let onDirectory = try TemporaryDirectory()
        defer { onDirectory.cleanup() }
        let offDirectory = try TemporaryDirectory()
        defer { offDirectory.cleanup() }
        let inWindow = { (line: String) -> Bool in
            guard let day = LocalDate(iso: line.prefix(10)) else { return false }
            return day >= Self.first && day <= Self.last
        }
        let on = try await reader.run(onFeed, onDirectory).filter(inWindow).sorted()
        let off = try await reader.run(offFeed, offDirectory).filter(inWindow).sorted()
        // Without ages: each person's days as the rules give them (the lunar birthday and the year-less ones included).
        #expect(off.filter { $0.hasSuffix("|🎂 Ada Lovelace") }.count == 10)
        #expect(off.contains("2027-12-10|🎂 Ada Lovelace") && off.contains("2026-04-05|🕯️ Edward Teach"))
        #expect(off.filter { $0.hasSuffix("|🎂 Baby Bloom") }.first == "2027-03-01|🎂 Baby Bloom")
        #expect(off.contains { $0.hasSuffix("(lunar)") })
        // With ages: the same instances, titled with the age in 2026, 2027 and 2028 (from the year after birth).
        let expected = off.map { line -> String in
            let day = LocalDate(iso: line.prefix(10))!
            let title = String(line.dropFirst(11))
            guard let born = Self.agedYears[title], (2026...2028).contains(day.year), day.year > born else { return line }
            return line + " (\(day.year - born))"
        }.sorted()
        #expect(on == expected, "\(reader.name), \(policy)")
        #expect(on.contains("2026-12-10|🎂 Ada Lovelace (211)") && on.contains("2028-12-10|🎂 Ada Lovelace (213)"))
        #expect(on.contains("2029-12-10|🎂 Ada Lovelace") && on.contains("2027-06-01|💍 Mei Tanaka (8)"))
        #expect(on.contains("2028-02-29|🎂 Léa Müller (36)") && on.contains("2032-02-29|🎂 Léa Müller"))
    }
}
