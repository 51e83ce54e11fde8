import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Per-person control (issue 12): reminder days, exclusion, deceased
/// people, nicknames; the rules in Core, without I/O.
@Suite struct PersonControlTests {
    // MARK: - Reminder days

    @Test(arguments: [
        ("1,0", [1, 0], "1,0"),
        ("0", [0], "0"),
        ("7,1,0", [7, 1, 0], "7,1,0"),
        (" 0, 1,7 ,1", [7, 1, 0], "7,1,0"),
        ("365", [365], "365"),
        ("30,14,7,3,2,1,0,5", [30, 14, 7, 5, 3, 2, 1, 0], "30,14,7,5,3,2,1,0"),
    ])
    func reminderDaysParse(text: String, days: [Int], written: String) throws {
        let parsed = try #require(ReminderDays(text))
        #expect(parsed.days == days)
        #expect(parsed.description == written)
        #expect(ReminderDays(parsed.description) == parsed)
    }

    @Test(arguments: ["", " ", "1,,0", "-1", "366", "1.5", "week", "7 1", "１", "0,1,2,3,4,5,6,7,8", "+1", "0x1"])
    func reminderDaysRefuse(text: String) {
        #expect(ReminderDays(text) == nil)
    }

    @Test func theDayBeforeAliasAddsOrRemovesOne() throws {
        #expect(ReminderDays.standard.includesDayBefore)
        #expect(ReminderDays.standard.settingDayBefore(false).description == "0")
        #expect(try #require(ReminderDays("7,0")).settingDayBefore(true).description == "7,1,0")
        #expect(try #require(ReminderDays("7,1,0")).settingDayBefore(false).description == "7,0")
        // Removing the only day leaves the day itself.
        #expect(try #require(ReminderDays("1")).settingDayBefore(false).description == "0")
    }

    // MARK: - Settings

    @Test func newSettingsHaveTheirDefaultsAndParse() throws {
        var settings = Settings()
        #expect(settings.text(for: .reminders) == "1,0")
        #expect(settings.text(for: .deceased) == "skip")
        #expect(settings.text(for: .names) == "full")
        try settings.set(.reminders, to: "0,7, 1")
        try settings.set(.deceased, to: "Remember")
        try settings.set(.names, to: "NICKNAME")
        #expect(settings.text(for: .reminders) == "7,1,0")
        #expect(settings.deceased == .remember)
        #expect(settings.names == .nickname)
        #expect(throws: SettingsError.self) { try settings.set(.reminders, to: "tomorrow") }
        #expect(throws: SettingsError.self) { try settings.set(.deceased, to: "hide") }
        #expect(throws: SettingsError.self) { try settings.set(.names, to: "short") }
        #expect(settings.text(for: .reminders) == "7,1,0")
    }

    @Test func dayBeforeIsAnAliasOfReminders() throws {
        var settings = Settings()
        try settings.set(.dayBefore, to: "off")
        #expect(settings.text(for: .reminders) == "0")
        #expect(settings.text(for: .dayBefore) == "off")
        try settings.set(.reminders, to: "7,0")
        try settings.set(.dayBefore, to: "on")
        #expect(settings.text(for: .reminders) == "7,1,0")
        #expect(SettingKey.dayBefore.storedKey == .reminders)
        #expect(!SettingKey.shown.contains(.dayBefore) && SettingKey.shown.contains(.reminders))
        // A stored day-before (an older binary wrote it) counts only without a stored reminders.
        #expect(Settings(stored: ["day-before": "off"]).reminders.description == "0")
        #expect(Settings(stored: ["day-before": "off", "reminders": "7,1,0"]).reminders.description == "7,1,0")
    }

    // MARK: - Exclusion

    @Test(arguments: [
        (false, nil, false), (true, nil, true),
        (false, Exclusion.Choice.exclude, true), (true, .exclude, true),
        (false, .include, false), (true, .include, false),
    ])
    func theUsersChoiceWinsOverTheCard(card: Bool, choice: Exclusion.Choice?, excluded: Bool) {
        #expect(Exclusion(card: card, choice: choice).isExcluded == excluded)
    }

    // MARK: - Treatment

    @Test func treatmentFollowsTheRulesInOrder() throws {
        let week = try #require(ReminderDays("7,1,0"))
        var settings = Settings()
        // Ordinary people: the setting's days, or their own.
        #expect(settings.treatment(of: .birthday, for: PersonTraits()) == EventTreatment(reminderDays: .standard))
        #expect(settings.treatment(of: .anniversary, for: PersonTraits(reminderDays: week)) == EventTreatment(reminderDays: week))
        // Excluded: nothing, whatever else.
        #expect(settings.treatment(of: .birthday, for: PersonTraits(excluded: true, reminderDays: week)) == nil)
        // Deceased under skip (the default): nothing.
        #expect(settings.treatment(of: .birthday, for: PersonTraits(deceased: true)) == nil)
        // Deceased under remember: the birthday on the day only, as a memorial; no anniversary.
        settings.deceased = .remember
        #expect(
            settings.treatment(of: .birthday, for: PersonTraits(deceased: true, reminderDays: week))
                == EventTreatment(reminderDays: .dayOfOnly, memorial: true)
        )
        #expect(settings.treatment(of: .anniversary, for: PersonTraits(deceased: true)) == nil)
        #expect(settings.treatment(of: .birthday, for: PersonTraits(excluded: true, deceased: true)) == nil)
        // Anniversaries off.
        settings.anniversaries = false
        #expect(settings.treatment(of: .anniversary, for: PersonTraits()) == nil)
        #expect(settings.treatment(of: .birthday, for: PersonTraits()) != nil)
        // The setting's days.
        settings.reminders = week
        #expect(settings.treatment(of: .birthday, for: PersonTraits())?.reminderDays == week)
    }

    @Test func upcomingListsWhatGetsReminders() {
        func person(_ id: String, death: String? = nil, exclusion: Exclusion = Exclusion()) -> Person {
            Person(
                id: id,
                name: id.capitalized,
                source: ContactSource(file: "f", index: 0, line: 1),
                birthday: event(1946, 11, 22),
                anniversary: event(1970, 11, 23),
                exclusion: exclusion,
                deathDate: death
            )
        }
        let people = [
            person("ada"), person("eve", death: "2020-05-01"), person("bob", exclusion: Exclusion(card: true)),
            person("cy", exclusion: Exclusion(card: true, choice: .include)),
        ]
        let skip = UpcomingEvents(today: date(2026, 11, 21)).list(people)
        #expect(skip.map { "\($0.personID) \($0.kind)" } == ["ada birthday", "cy birthday", "ada anniversary", "cy anniversary"])
        #expect(skip.allSatisfy { !$0.memorial })
        let remember = UpcomingEvents(today: date(2026, 11, 21), deceased: .remember).list(people)
        #expect(remember.map { "\($0.personID) \($0.kind) \($0.memorial)" }.contains("eve birthday true"))
        #expect(!remember.contains { $0.personID == "eve" && $0.kind == .anniversary })
        #expect(remember.first { $0.personID == "eve" }?.age == 80)
    }

    // MARK: - Timing

    @Test(arguments: [
        (0, "day-of", "dayof"), (1, "day-before", "daybefore"), (7, "7-days-before", "7daysbefore"), (30, "30-days-before", "30daysbefore"),
    ])
    func timingsHaveStableNames(days: Int, raw: String, suffix: String) {
        let timing = NotificationRequest.Timing(daysBefore: days)
        #expect(timing.rawValue == raw)
        #expect(timing.idSuffix == suffix)
        #expect(NotificationRequest.Timing(rawValue: raw) == timing)
        #expect(NotificationRequest.identifier(personID: "ada", kind: .anniversary, timing: timing) == "ada-anniversary-" + suffix)
    }

    @Test(arguments: ["", "days-before", "1-days-before", "07-days-before", "-7-days-before", "week-before", "day_of"])
    func unknownTimingsAreNotGuessed(raw: String) {
        #expect(NotificationRequest.Timing(rawValue: raw) == nil)
    }

    @Test func timingsOrderEarliestFirst() {
        let order = [NotificationRequest.Timing.dayOf, .init(daysBefore: 7), .dayBefore].sorted()
        #expect(order.map(\.daysBefore) == [7, 1, 0])
    }

    // MARK: - Words

    struct WordsCase: Sendable, CustomTestStringConvertible {
        var language: String
        var kind: EventKind
        var days: Int
        var age: Int?
        var memorial = false
        var title: String
        var body: String
        var testDescription: String { "\(language) \(kind) \(days) \(age.map(String.init) ?? "-")\(memorial ? " memorial" : "")" }
    }

    static let words: [WordsCase] = [
        WordsCase(language: "en", kind: .birthday, days: 7, age: nil, title: "Birthday in a week", body: "Ada's birthday is in a week!"),
        WordsCase(language: "en", kind: .birthday, days: 7, age: 36, title: "Birthday in a week", body: "Ada turns 36 in a week!"),
        WordsCase(language: "en", kind: .birthday, days: 3, age: 36, title: "Birthday in 3 days", body: "Ada turns 36 in 3 days!"),
        WordsCase(language: "en", kind: .birthday, days: 14, age: nil, title: "Birthday in 2 weeks", body: "Ada's birthday is in 2 weeks!"),
        WordsCase(language: "en", kind: .anniversary, days: 7, age: 10, title: "Anniversary in a week", body: "Ada's 10th anniversary is in a week!"),
        WordsCase(language: "en", kind: .anniversary, days: 10, age: nil, title: "Anniversary in 10 days", body: "Ada's anniversary is in 10 days!"),
        WordsCase(
            language: "en",
            kind: .birthday,
            days: 0,
            age: 80,
            memorial: true,
            title: "Remembering Ada",
            body: "Ada would have turned 80 today."
        ),
        WordsCase(
            language: "en",
            kind: .birthday,
            days: 0,
            age: nil,
            memorial: true,
            title: "Remembering Ada",
            body: "Today would have been Ada's birthday."
        ),
        WordsCase(language: "de", kind: .birthday, days: 7, age: 36, title: "Geburtstag in einer Woche", body: "Ada wird in einer Woche 36!"),
        WordsCase(
            language: "de",
            kind: .anniversary,
            days: 3,
            age: 10,
            title: "Hochzeitstag in 3 Tagen",
            body: "Ada hat in 3 Tagen den 10. Hochzeitstag!"
        ),
        WordsCase(
            language: "de",
            kind: .birthday,
            days: 0,
            age: 80,
            memorial: true,
            title: "In Erinnerung an Ada",
            body: "Ada wäre heute 80 geworden."
        ),
        WordsCase(language: "fr", kind: .birthday, days: 7, age: 1, title: "Anniversaire dans une semaine", body: "Ada aura 1 an dans une semaine !"),
        WordsCase(
            language: "fr",
            kind: .birthday,
            days: 21,
            age: 36,
            title: "Anniversaire dans 3 semaines",
            body: "Ada aura 36 ans dans 3 semaines !"
        ),
        WordsCase(language: "pl", kind: .birthday, days: 5, age: 22, title: "Urodziny za 5 dni", body: "Ada kończy 22 lata za 5 dni!"),
        WordsCase(language: "pl", kind: .birthday, days: 14, age: 25, title: "Urodziny za 2 tygodnie", body: "Ada kończy 25 lat za 2 tygodnie!"),
        WordsCase(
            language: "pl",
            kind: .birthday,
            days: 0,
            age: 80,
            memorial: true,
            title: "Wspomnienie: Ada",
            body: "Dziś mija 80 lat od narodzin: Ada."
        ),
        WordsCase(language: "es", kind: .birthday, days: 2, age: 1, title: "Cumpleaños en 2 días", body: "¡Ada cumple 1 año en 2 días!"),
        WordsCase(language: "ja", kind: .birthday, days: 7, age: 36, title: "1週間後に誕生日", body: "Adaさんは1週間後に36歳！"),
        WordsCase(language: "ja", kind: .anniversary, days: 3, age: 10, title: "3日後に結婚記念日", body: "3日後はAdaさんの結婚10周年です！"),
        WordsCase(language: "zh-Hans", kind: .birthday, days: 10, age: nil, title: "10天后有生日", body: "10天后是Ada的生日！"),
    ]

    @Test(arguments: words)
    func remindersAheadAndInMemorySayWhatTheyAre(c: WordsCase) {
        let (title, body) = NotificationContent.make(
            name: "Ada",
            kind: c.kind,
            timing: .init(daysBefore: c.days),
            age: c.age,
            memorial: c.memorial,
            in: Localizer(language: c.language)
        )
        #expect(title == c.title)
        #expect(body == c.body)
    }

    @Test func aMemorialIsOnTheDayOnly() {
        let (title, body) = NotificationContent.make(name: "Ada", kind: .birthday, timing: .dayBefore, age: 80, memorial: true)
        #expect(title == "Birthday Tomorrow" && body == "Ada turns 80 tomorrow!")
    }

    @Test func namesPickTheNicknameWhenThereIsOne() {
        #expect(NameStyle.full.pick(name: "Ada Lovelace", nickname: "Addie") == "Ada Lovelace")
        #expect(NameStyle.nickname.pick(name: "Ada Lovelace", nickname: "Addie") == "Addie")
        #expect(NameStyle.nickname.pick(name: "Ada Lovelace", nickname: " ") == "Ada Lovelace")
    }

    // MARK: - Planner

    private func planner(_ configure: (inout Settings) -> Void = { _ in }, capacity: Int = NotificationRequest.pendingLimit) throws -> ReminderPlanner
    {
        var settings = Settings()
        configure(&settings)
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = try #require(ReferenceTime.parse("2026-03-10T08:00:00+01:00", timeZone: zone))
        return ReminderPlanner(settings: settings, timeZone: zone, now: now, capacity: capacity)
    }

    @Test func everyReminderDayGetsARequestWhoseMomentIsAhead() throws {
        let week = try #require(ReminderDays("7,1,0"))
        var planner = try planner()
        // In 10 days: all three. In 5 days: the week ahead has passed. Today (before 09:00): the day of only.
        planner.offer(event(1990, 3, 20), kind: .birthday, treatment: EventTreatment(reminderDays: week)) { ("ten", "Ten", "") }
        planner.offer(event(nil, 3, 15), kind: .anniversary, treatment: EventTreatment(reminderDays: week)) { ("five", "Five", "") }
        planner.offer(event(nil, 3, 10), kind: .birthday, treatment: EventTreatment(reminderDays: week)) { ("today", "Today", "") }
        let requests = planner.requests()
        #expect(
            requests.map(\.id) == [
                "today-birthday-dayof", "ten-birthday-7daysbefore", "five-anniversary-daybefore", "five-anniversary-dayof",
                "ten-birthday-daybefore", "ten-birthday-dayof",
            ]
        )
        let first = try #require(requests.first { $0.id == "ten-birthday-7daysbefore" })
        #expect(first.timing.rawValue == "7-days-before")
        #expect(first.title == "Birthday in a week" && first.body == "Ten turns 36 in a week!")
        #expect(first.userInfo["when"] == "7-days-before")
        #expect(first.dueDay == date(2026, 3, 13))
        #expect(ISOInstant.format(first.fireAt, in: try #require(TimeZone(identifier: "Europe/Berlin"))) == "2026-03-13T09:00:00+01:00")
    }

    @Test func theCapKeepsTheSoonest64OfEveryKindOfReminder() throws {
        let week = try #require(ReminderDays("7,1,0"))
        var planner = try planner()
        // 40 people, one a day from tomorrow: 120 reminders, less the week-ahead
        // ones of the first five, whose moment has passed.
        let start = date(2026, 3, 11)
        for i in 1...40 {
            let day = start.adding(days: i)
            planner.offer(event(nil, day.month, day.day), kind: .birthday, treatment: EventTreatment(reminderDays: week)) {
                (String(format: "p%02d", i), "P\(i)", "")
            }
        }
        let kept = planner.requests()
        #expect(kept.count == 64)
        // The same as planning without a cap and taking the first 64.
        var all = try self.planner(capacity: 1_000)
        for i in 1...40 {
            let day = start.adding(days: i)
            all.offer(event(nil, day.month, day.day), kind: .birthday, treatment: EventTreatment(reminderDays: week)) {
                (String(format: "p%02d", i), "P\(i)", "")
            }
        }
        let everything = all.requests()
        #expect(everything.count == 115)
        #expect(kept == Array(everything.prefix(64)))
        #expect(try #require(kept.last).fireAt <= everything[64].fireAt)
        // The soonest of all three kinds: week-ahead reminders of later people
        // (p27's fires on the day of p20's birthday) before the day-of of nearer ones.
        #expect(kept.contains { $0.id == "p27-birthday-7daysbefore" })
        #expect(!kept.contains { $0.id == "p22-birthday-dayof" })
        #expect(Set(kept.map(\.timing.daysBefore)) == [0, 1, 7])
    }

    @Test func plannedRemindersUseTheNicknameUnderNamesNickname() throws {
        var full = try planner()
        var nick = try planner { $0.names = .nickname }
        full.offer(event(1990, 3, 11), kind: .birthday, treatment: EventTreatment(reminderDays: .standard)) { ("ada", "Ada Lovelace", "Addie") }
        nick.offer(event(1990, 3, 11), kind: .birthday, treatment: EventTreatment(reminderDays: .standard)) { ("ada", "Ada Lovelace", "Addie") }
        #expect(full.requests().map(\.body) == ["Ada Lovelace turns 36 tomorrow!", "Ada Lovelace turns 36 today!"])
        #expect(nick.requests().map(\.body) == ["Addie turns 36 tomorrow!", "Addie turns 36 today!"])
    }

    @Test func aMemorialIsPlannedOnTheDayWithItsWords() throws {
        var planner = try planner()
        planner.offer(event(1946, 3, 12), kind: .birthday, treatment: EventTreatment(reminderDays: .dayOfOnly, memorial: true)) {
            ("eve", "Eve", "")
        }
        let requests = planner.requests()
        #expect(requests.map(\.id) == ["eve-birthday-dayof"])
        #expect(requests.map(\.title) == ["Remembering Eve"])
        #expect(requests.map(\.body) == ["Eve would have turned 80 today."])
    }
}
