import Testing

@testable import BirthdayCore

/// The titles of birthday calendars in the ten languages' usual forms
/// (issue 34): what `import FILE.ics` reads a name, a kind and an age from.
@Suite struct CalendarTitleTests {
    @Test(arguments: [
        ("Ada Lovelace's birthday", "Ada Lovelace", EventKind.birthday, nil as Int?),
        ("Ada Lovelace’s Birthday", "Ada Lovelace", .birthday, nil),
        ("Birthday: Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Geburtstag von Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Anniversaire d'Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Anniversaire : Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Cumpleaños de Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Compleanno di Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Aniversário de Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Verjaardag van Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Urodziny: Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("Adaさんの誕生日（36歳）", "Ada", .birthday, 36),
        ("Ada的生日（36岁）", "Ada", .birthday, 36),
        ("🎂 Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("🎂 Ada Lovelace (36)", "Ada Lovelace", .birthday, 36),
        ("🕯️ Ada Lovelace", "Ada Lovelace", .birthday, nil),
        ("💍 Ada Lovelace (10)", "Ada Lovelace", .anniversary, 10),
        ("Ada Lovelace's anniversary", "Ada Lovelace", .anniversary, nil),
        ("Hochzeitstag von Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Anniversaire de mariage : Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Aniversario de boda de Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Anniversario di matrimonio di Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Aniversário de casamento de Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Trouwdag van Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Rocznica ślubu: Ada Lovelace", "Ada Lovelace", .anniversary, nil),
        ("Adaさんの結婚記念日", "Ada", .anniversary, nil),
        ("Ada的结婚纪念日（10周年）", "Ada", .anniversary, 10),
    ])
    func aTitleNamesThePersonAndTheDay(title: String, name: String, kind: EventKind, age: Int?) {
        #expect(CalendarBirthdays.title(title) == CalendarBirthdays.Title(name: name, kind: kind, age: age))
    }

    @Test(arguments: ["Take the bins out", "Team meeting (2)", "🎂 Mei (lunar)", "Birthday: ", ""])
    func anythingElseIsNeither(title: String) {
        #expect(CalendarBirthdays.title(title) == nil)
    }

    @Test func ourFeedsCategoryDecidesABareName() {
        #expect(CalendarBirthdays.title("Ada Lovelace", categories: ["Anniversary"])?.kind == .anniversary)
        #expect(CalendarBirthdays.title("Ada Lovelace") == nil)
    }

    @Test func placeholderYearsAndTheAgeInAOneYearEvent() throws {
        let today = try #require(LocalDate(iso: "2026-11-28"))
        #expect(CalendarBirthdays.isPlaceholder(1604, today: today))
        #expect(CalendarBirthdays.isPlaceholder(2026, today: today))
        #expect(!CalendarBirthdays.isPlaceholder(1815, today: today))
        let events = [
            CalendarFileEvent(line: 3, summary: "🎂 Ada Lovelace (36)", start: LocalDate(iso: "2026-12-10"), yearly: false),
            CalendarFileEvent(line: 9, summary: "Ada Lovelace's birthday", start: LocalDate(iso: "2027-12-10"), yearly: true),
            CalendarFileEvent(line: 15, summary: "Take the bins out", start: LocalDate(iso: "2020-01-06"), yearly: true),
            CalendarFileEvent(line: 21, summary: "Team meeting", start: nil, yearly: true),
        ]
        let result = CalendarBirthdays.contacts(from: events, file: "cal.ics", today: today)
        #expect(result.contacts.map { "\($0.displayName) \($0.birthday?.description ?? "-")" } == ["Ada Lovelace 1990-12-10"])
        #expect(result.problems.map(\.line) == [15])
    }
}
