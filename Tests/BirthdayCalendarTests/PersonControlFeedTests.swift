import CLibical
import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore
@testable import BirthdayText

/// The feed under per-person control (issue 12), read back with libical:
/// alarms on every reminder day, excluded and deceased people, memorials
/// and nicknames.
@Suite struct PersonControlFeedTests {
    static let week = ReminderDays("7,1,0")!

    static func person(
        _ id: String,
        _ name: String,
        birthday: EventDate?,
        anniversary: EventDate? = nil,
        nickname: String = "",
        exclusion: Exclusion = Exclusion(),
        death: String? = nil,
        days: ReminderDays? = nil
    ) -> Person {
        Person(
            id: id,
            name: name,
            nickname: nickname,
            source: ContactSource(file: "book.vcf", index: 0, line: 1),
            birthday: birthday,
            anniversary: anniversary,
            exclusion: exclusion,
            deathDate: death,
            reminderDays: days
        )
    }

    /// Ada (7,1,0 of her own), Bob (excluded by his card), Cy (the card
    /// excludes, the user includes), Eve (deceased, with an anniversary), Ned
    /// (a nickname), Zoe (excluded by the user).
    static let people: [Person] = [
        person("ada", "Ada Lovelace", birthday: EventDate(year: 1815, month: 12, day: 10), days: week),
        person("bob", "Bob", birthday: EventDate(year: nil, month: 1, day: 2), exclusion: Exclusion(card: true)),
        person("cy", "Cy", birthday: EventDate(year: nil, month: 1, day: 3), exclusion: Exclusion(card: true, choice: .include)),
        person(
            "eve",
            "Eve",
            birthday: EventDate(year: 1946, month: 3, day: 20),
            anniversary: EventDate(year: 1970, month: 6, day: 1),
            death: "2024-02-01"
        ),
        person("ned", "Edward Teach", birthday: EventDate(year: 1680, month: 4, day: 5), nickname: "Blackbeard"),
        person("zoe", "Zoe", birthday: EventDate(year: nil, month: 5, day: 6), exclusion: Exclusion(choice: .exclude)),
    ]

    private func events(
        _ configure: (inout Settings) -> Void = { _ in },
        people: [Person] = people,
        language: String = "en"
    ) throws -> [ICalEventReading] {
        var settings = Settings.withoutAges
        configure(&settings)
        let text = try CalendarExporter(settings: settings, localizer: Localizer(language: language)).export(
            people,
            lastChange: AddressBook.lastChange
        )
        return try ICalComponent(parsing: text).events
    }

    @Test func onlyThoseWhoGetRemindersGetEvents() throws {
        #expect(try events().map(\.uid) == ["ada-birthday@birthdays", "cy-birthday@birthdays", "ned-birthday@birthdays"])
        let remembered = try events { $0.deceased = .remember }.map(\.uid)
        #expect(remembered == ["ada-birthday@birthdays", "cy-birthday@birthdays", "eve-birthday@birthdays", "ned-birthday@birthdays"])
    }

    @Test(arguments: [
        ("09:00", ["PT9H", "-PT15H", "-P6DT15H"]),
        ("08:30", ["PT8H30M", "-PT15H30M", "-P6DT15H30M"]),
        ("00:00", ["PT0S", "-P1D", "-P7D"]),
        ("23:59", ["PT23H59M", "-PT1M", "-P6DT1M"]),
    ])
    func everyReminderDayIsAnAlarm(time: String, triggers: [String]) throws {
        let ada = try #require(try events { $0.deliveryTime = TimeOfDay(time)! }.first)
        #expect(ada.alarms.map(\.trigger) == triggers)
        #expect(
            ada.alarms.map(\.description) == [
                "Today is Ada Lovelace's birthday!", "Ada Lovelace's birthday is tomorrow!", "Ada Lovelace's birthday is in a week!",
            ]
        )
        #expect(ada.alarms.allSatisfy { $0.action == "DISPLAY" })
    }

    @Test func theSettingsDaysApplyToEveryoneElse() throws {
        let days = try #require(ReminderDays("10,0"))
        let all = try events({ $0.reminders = days }, language: "de")
        let cy = try #require(all.first { $0.uid.hasPrefix("cy-") })
        #expect(cy.alarms.map(\.trigger) == ["PT9H", "-P9DT15H"])
        #expect(cy.alarms.map(\.description) == ["Heute hat Cy Geburtstag!", "Cy hat in 10 Tagen Geburtstag!"])
        // Ada keeps her own.
        #expect(try #require(all.first).alarms.count == 3)
        // day-before off is reminders 0: one alarm.
        let dayOnly = try events { $0.dayBefore = false }
        #expect(try #require(dayOnly.first { $0.uid.hasPrefix("cy-") }).alarms.map(\.trigger) == ["PT9H"])
    }

    @Test func aMemorialHasItsTitleAndOneAlarm() throws {
        let eve = try #require(try events { $0.deceased = .remember }.first { $0.uid.hasPrefix("eve-") })
        #expect(eve.summary == "🕯️ Eve")
        #expect(eve.description == "born 1946")
        #expect(eve.alarms.map(\.trigger) == ["PT9H"])
        #expect(eve.alarms.map(\.description) == ["Today would have been Eve's birthday."])
        let plain = try #require(
            try events(
                {
                    $0.deceased = .remember
                    $0.emoji = false
                },
                language: "fr"
            ).first { $0.uid.hasPrefix("eve-") }
        )
        #expect(plain.summary == "En souvenir de Eve")
        #expect(plain.alarms.map(\.description) == ["Eve aurait fêté son anniversaire aujourd’hui."])
    }

    @Test func namesNicknameTitlesTheEventWithIt() throws {
        let full = try #require(try events().first { $0.uid.hasPrefix("ned-") })
        #expect(full.summary == "🎂 Edward Teach")
        let nick = try #require(try events { $0.names = .nickname }.first { $0.uid.hasPrefix("ned-") })
        #expect(nick.summary == "🎂 Blackbeard")
        #expect(nick.alarms.map(\.description) == ["Today is Blackbeard's birthday!", "Blackbeard's birthday is tomorrow!"])
        // Without a nickname the name stays.
        #expect(try events { $0.names = .nickname }.first?.summary == "🎂 Ada Lovelace")
    }

    @Test func theFeedIsStillByteIdenticalForTheSameData() throws {
        var settings = Settings.withoutAges
        settings.reminders = Self.week
        let exporter = CalendarExporter(settings: settings)
        let first = try exporter.export(Self.people, lastChange: AddressBook.lastChange)
        #expect(try exporter.export(Self.people.reversed(), lastChange: AddressBook.lastChange) == first)
    }
}
