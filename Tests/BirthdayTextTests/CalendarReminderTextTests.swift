import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Reminders about dates in other calendars say which calendar, in every
/// language of the catalog, and keep the name, the age and the plural forms
/// of the ordinary reminders.
@Suite struct CalendarReminderTextTests {
    @Test(arguments: supportedLanguages)
    func everyReminderNamesItsCalendarAndThePerson(language: String) {
        let localizer = Localizer(language: language)
        for calendar in CalendarSystem.allCases {
            let name = localizer(calendar.nameKey)
            #expect(!name.isEmpty && name != calendar.nameKey.rawValue, "\(language) \(calendar)")
            for kind in [EventKind.birthday, .anniversary] {
                for timing in [NotificationRequest.Timing.dayBefore, .dayOf] {
                    for age in [nil, 1, 2, 5, 22, 41] as [Int?] {
                        let content = NotificationContent.make(name: "Ada", kind: kind, timing: timing, age: age, calendar: calendar, in: localizer)
                        let plain = NotificationContent.make(name: "Ada", kind: kind, timing: timing, age: age, in: localizer)
                        let label = "\(language) \(calendar) \(kind) \(timing) \(age.map(String.init) ?? "-")"
                        #expect(content.title.contains(name) || content.body.contains(name), "\(label): \(content)")
                        #expect(content.body.contains("Ada"), "\(label): \(content.body)")
                        #expect(content != plain, "\(label)")
                        if let age, kind == .birthday, language != "en" {
                            // The age as the ordinary reminder writes it ("36 lat", "36歳").
                            #expect(content.body.contains(String(age)), "\(label): \(content.body)")
                        }
                    }
                }
            }
        }
    }

    @Test func englishSaysLunarBirthday() {
        let today = NotificationContent.make(name: "Mei", kind: .birthday, timing: .dayOf, age: 41, calendar: .chinese)
        #expect(today == (title: "Mei's lunar birthday!", body: "Mei turns 41 today (lunar birthday)!"))
        let tomorrow = NotificationContent.make(name: "Dov", kind: .anniversary, timing: .dayBefore, age: 10, calendar: .hebrew)
        #expect(tomorrow == (title: "Tomorrow: Hebrew anniversary", body: "Dov's 10th Hebrew anniversary is tomorrow!"))
        let hijri = NotificationContent.make(name: "", kind: .birthday, timing: .dayOf, age: nil, calendar: .islamicUmmAlQura)
        #expect(hijri.body == "Today is someone's Hijri birthday!")
    }

    @Test func otherLanguagesNameTheCalendarInParentheses() {
        let german = NotificationContent.make(
            name: "Ada",
            kind: .birthday,
            timing: .dayOf,
            age: 36,
            calendar: .chinese,
            in: Localizer(language: "de")
        )
        #expect(german == (title: "Ada hat Geburtstag (Mondkalender)!", body: "Ada wird heute 36 (Mondkalender)!"))
        let japanese = NotificationContent.make(
            name: "Ada",
            kind: .birthday,
            timing: .dayOf,
            age: nil,
            calendar: .chinese,
            in: Localizer(language: "ja")
        )
        #expect(japanese.title == "Adaさんの誕生日（旧暦）！")
        let polish = NotificationContent.make(name: "Ada", kind: .birthday, timing: .dayOf, age: 22, calendar: .hebrew, in: Localizer(language: "pl"))
        #expect(polish.body == "Ada kończy dziś 22 lata (kalendarz żydowski)!")
    }
}
