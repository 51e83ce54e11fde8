import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

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

/// A genitive `s` written without an apostrophe (issue 41): taken off only
/// when the name without it is known and the name with it is not.
extension CalendarTitleTests {
    /// Nobody in the store: only the name-day lists' first names tell (Anna
    /// is on Latvia's; Andrea, Thoma, Klau, Jan and Müller are on none).
    @Test(arguments: [
        ("Andreas Geburtstag", "Andreas"), ("Thomas Geburtstag", "Thomas"), ("Klaus Geburtstag", "Klaus"),
        ("Annas Geburtstag", "Anna"), ("Annas Hochzeitstag", "Anna"), ("Oma Annas Geburtstag", "Oma Anna"),
        ("Thomas Müllers Geburtstag", "Thomas Müllers"), ("Jans verjaardag", "Jans"), ("Annas verjaardag", "Anna"),
        ("Klaus' Geburtstag", "Klaus"), ("Anna's Geburtstag", "Anna"), ("Geburtstag von Andreas", "Andreas"),
    ])
    func theSIsTakenOffOnlyWhatIsKnownToBeAName(title: String, name: String) {
        #expect(CalendarBirthdays.title(title)?.name == name)
    }

    /// The people in the store are names too; a name that is itself known keeps its `s`.
    @Test func thePeopleInTheStoreAreKnownNames() {
        let known = CalendarBirthdays.KnownNames(contacts: ["Thomas Müller", "jan", "Andrea", "Andreas"])
        #expect(CalendarBirthdays.title("Thomas Müllers Geburtstag", known: known)?.name == "Thomas Müller")
        #expect(CalendarBirthdays.title("Jans verjaardag", known: known)?.name == "Jan")
        #expect(CalendarBirthdays.title("Andreas Geburtstag", known: known)?.name == "Andreas")
        #expect(CalendarBirthdays.title("Andreas Geburtstag", known: CalendarBirthdays.KnownNames(contacts: ["Andrea"]))?.name == "Andrea")
        // A list of first names of the user's own counts as the shipped ones do.
        let german = NameDayList.parse("11-30,Andreas\n12-21,Thomas", country: "de", file: "de").list
        let own = CalendarBirthdays.KnownNames(contacts: ["Andrea"], lists: [german])
        #expect(CalendarBirthdays.title("Andreas Geburtstag", known: own)?.name == "Andreas")
    }
}

/// Our feed's memorials (issue 41): the person has died.
extension CalendarTitleTests {
    @Test(arguments: ["🕯️ Ada Lovelace", "🕯 Ada Lovelace", "In memory of Ada Lovelace", "In Erinnerung an Ada Lovelace", "Ada Lovelaceさんを偲んで"])
    func aMemorialIsTheBirthdayOfSomeoneWhoDied(title: String) {
        #expect(CalendarBirthdays.title(title) == CalendarBirthdays.Title(name: "Ada Lovelace", kind: .birthday, memorial: true))
    }

    @Test func aMemorialsPersonIsDeceasedWithOurFeedsDeathDate() throws {
        var ours = CalendarFileEvent(
            line: 3,
            uid: "ada-birthday@birthdays",
            summary: "🕯️ Ada Lovelace",
            start: LocalDate(iso: "1815-12-10"),
            yearly: true
        )
        ours.deathDate = "1852-11-27"
        let theirs = CalendarFileEvent(line: 9, summary: "In memory of Alan Turing", start: LocalDate(iso: "1912-06-23"), yearly: true)
        let living = CalendarFileEvent(line: 15, summary: "🎂 Grace Hopper", start: LocalDate(iso: "1906-12-09"), yearly: true)
        let result = CalendarBirthdays.contacts(from: [ours, theirs, living], file: "feed.ics")
        #expect(
            result.contacts.map { "\($0.displayName) \($0.deathDate ?? "-")" } == [
                "Ada Lovelace 1852-11-27", "Alan Turing unknown", "Grace Hopper -",
            ]
        )
    }

    /// A share's feed says that someone died (its memorial), never when.
    @Test func aSharesPeopleDiedOnAnUnknownDate() throws {
        let share = Share(id: 1, name: "Family", groups: ["Family"], showAges: true, showYears: true, createdAt: Date())
        var ada = Person(id: "ada", name: "Ada Lovelace", source: ContactSource(file: "", index: 0, line: 0))
        ada.birthday = EventDate(year: 1815, month: 12, day: 10)
        ada.deathDate = "1852-11-27"
        let shown = share.people([ada], members: ["ada"], ids: try #require(PublicID(key: Array(0..<16))))
        #expect(shown.map(\.deathDate) == [Person.unknownDeathDate])
    }
}
