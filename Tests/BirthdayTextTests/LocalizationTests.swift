import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The languages docs/languages.md promises. A language added to the catalog must be
/// added here (and to docs/languages.md), and the other way round.
let supportedLanguages = ["en", "de", "fr", "es", "pt", "it", "nl", "pl", "ja", "zh-Hans"]

/// The catalog as a String Catalog (JSON) file, for what the compiled catalog does not keep (comments, states).
private func catalogJSON() throws -> [String: Any] {
    let url = Repository.root.appendingPathComponent("Sources/BirthdayText/Localization/Localizable.xcstrings")
    let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: url))
    return try #require(object as? [String: Any])
}

@Suite struct StringCatalogTests {
    @Test func catalogHasExactlyTheSupportedLanguages() {
        #expect(StringCatalog.embedded.sourceLanguage == "en")
        #expect(StringCatalog.embedded.languages.first == "en")
        #expect(Set(StringCatalog.embedded.languages) == Set(supportedLanguages))
    }

    @Test func catalogKeysAreTheMessageKeys() {
        #expect(StringCatalog.embedded.keys == Message.Key.allCases.map(\.rawValue).sorted())
    }

    @Test func everyKeyHasACommentAndEveryTranslationIsTranslated() throws {
        let strings = try #require(try catalogJSON()["strings"] as? [String: [String: Any]])
        for (key, entry) in strings {
            #expect((entry["comment"] as? String)?.isEmpty == false, "\(key) has no comment for translators")
            let localizations = try #require(entry["localizations"] as? [String: Any], "\(key)")
            #expect(Set(localizations.keys) == Set(supportedLanguages), "\(key)")
            // Every stringUnit anywhere in the entry is marked translated.
            func states(_ value: Any) -> [String] {
                if let dictionary = value as? [String: Any] {
                    let own = (dictionary["stringUnit"] as? [String: Any])?["state"] as? String
                    return (own.map { [$0] } ?? []) + dictionary.filter { $0.key != "stringUnit" }.flatMap { states($0.value) }
                }
                return []
            }
            let all = states(localizations)
            #expect(!all.isEmpty && all.allSatisfy { $0 == "translated" }, "\(key): \(all)")
        }
    }

    /// Every translation is used: its placeholders fit the message's signature
    /// (a translation that does not is silently replaced by English, so this
    /// is where a mistake shows).
    @Test(arguments: supportedLanguages)
    func everyTranslationFitsItsMessage(language: String) throws {
        let localizer = Localizer(language: language)
        for key in Message.Key.allCases {
            let entry = try #require(StringCatalog.embedded.entry(key.rawValue, language: language), "\(key.rawValue) has no \(language)")
            #expect(MessageTemplate(entry, key: key, language: language, localizer: localizer) != nil, "\(language) \(key.rawValue)")
        }
    }

    /// Each plural has exactly the categories ICU uses for whole numbers in
    /// the language, and `other` (String Catalogs always have it; in Polish
    /// only fractions reach it).
    @Test(arguments: supportedLanguages)
    func pluralFormsAreTheLanguagesCategories(language: String) throws {
        for key in Message.Key.allCases {
            let needed = PluralRules(language: language, kind: key.pluralKind).categoriesOfWholeNumbers.union([.other])
            let entry = try #require(StringCatalog.embedded.entry(key.rawValue, language: language))
            if !entry.plural.isEmpty {
                #expect(Set(entry.plural.keys) == needed, "\(language) \(key.rawValue)")
            }
            for substitution in entry.substitutions {
                #expect(Set(substitution.plural.keys) == needed, "\(language) \(key.rawValue) %#@\(substitution.name)@")
            }
        }
    }

    /// A number English counts something with (a plural variation, or a
    /// `%#@…@` substitution for it) is chosen by the plural rules in every
    /// language whose whole numbers have more than one form: "1 jaar", and
    /// never "1 contacts" (issue 24).
    @Test(arguments: supportedLanguages)
    func everyCountUsesThePluralRules(language: String) throws {
        guard PluralRules(language: language, kind: .cardinal).categoriesOfWholeNumbers.union([.other]).count > 1 else { return }
        for key in Message.Key.allCases {
            let english = try #require(StringCatalog.embedded.entry(key.rawValue, language: "en"))
            let entry = try #require(StringCatalog.embedded.entry(key.rawValue, language: language))
            if !english.plural.isEmpty {
                #expect(!entry.plural.isEmpty || !entry.substitutions.isEmpty, "\(language) \(key.rawValue) has no plural forms")
                continue
            }
            for counted in english.substitutions.map(\.argument) where entry.plural.isEmpty {
                let shownPlainly = ["lld", "ld", "d"].contains { (entry.value ?? "").contains("%\(counted)$\($0)") }
                #expect(
                    !shownPlainly || entry.substitutions.contains { $0.argument == counted },
                    "\(language) \(key.rawValue): argument \(counted) is a count in English, but written without its plural forms"
                )
            }
        }
    }

    /// Every message renders in every language, for numbers of every plural
    /// category and with and without a name: never empty, never the key,
    /// never a leftover `%`.
    @Test(arguments: supportedLanguages)
    func everyMessageRendersCleanly(language: String) {
        let localizer = Localizer(language: language)
        for key in Message.Key.allCases {
            for number in [0, 1, 2, 3, 5, 11, 22, 25, 101, 1_000_000] {
                for name in ["Ada", ""] {
                    let text = localizer(Message.sample(key, number: number, name: name))
                    #expect(!text.isEmpty && text != key.rawValue, "\(language) \(key.rawValue)")
                    #expect(!text.contains("%"), "\(language) \(key.rawValue): \(text)")
                    #expect(!text.contains("@"), "\(language) \(key.rawValue): \(text)")
                }
            }
        }
    }

    /// The choices of onboarding are typed as the letter in brackets: each
    /// label has one, and the two of a question differ.
    @Test(arguments: supportedLanguages)
    func onboardingChoicesHaveDistinctLetters(language: String) {
        let localizer = Localizer(language: language)
        func letter(_ key: Message.Key) -> Character? {
            let text = localizer(key)
            guard let open = text.firstIndex(of: "["), let close = text.firstIndex(of: "]"), text.distance(from: open, to: close) == 2 else {
                return nil
            }
            return Character(text[text.index(after: open)].lowercased())
        }
        for (first, second) in [
            (Message.Key.onboardingPrimerEnable, Message.Key.onboardingPrimerLater), (.onboardingPermissionAllow, .onboardingPermissionDeny),
            (.onboardingServiceInstall, .onboardingServiceSkip), (.onboardingStartNow, .onboardingServiceSkip),
        ] {
            let a = letter(first)
            let b = letter(second)
            #expect(a != nil && b != nil && a != b, "\(language): \(localizer(first)) / \(localizer(second))")
        }
        let channels = [Message.Key.onboardingChannelsEmail, .onboardingChannelsNtfy, .onboardingChannelsSkip]
        let letters = channels.map(letter)
        #expect(!letters.contains(nil) && Set(letters).count == channels.count, "\(language): \(channels.map { localizer($0) })")
    }
}

// MARK: - Reminders in every language

@Suite struct LocalizedReminderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var language: String
        var kind: EventKind
        var timing: NotificationRequest.Timing
        var age: Int?
        var title: String
        var body: String
        var testDescription: String { "\(language) \(kind) \(timing) \(age.map(String.init) ?? "no year")" }

        init(_ language: String, _ kind: EventKind, _ timing: NotificationRequest.Timing, _ age: Int?, _ title: String, _ body: String) {
            (self.language, self.kind, self.timing, self.age, self.title, self.body) = (language, kind, timing, age, title, body)
        }
    }

    /// Birthday and anniversary, day before and day of, with and without a
    /// known year, in every language: names where the language puts them,
    /// its plural forms and ordinals.
    static let cases: [Case] = [
        Case("en", .birthday, .dayOf, nil, "Ada's Birthday!", "Today is Ada's birthday!"),
        Case("en", .birthday, .dayOf, 36, "Ada's Birthday!", "Ada turns 36 today!"),
        Case("en", .birthday, .dayBefore, nil, "Birthday Tomorrow", "Ada's birthday is tomorrow!"),
        Case("en", .birthday, .dayBefore, 36, "Birthday Tomorrow", "Ada turns 36 tomorrow!"),
        Case("en", .anniversary, .dayOf, nil, "Ada's Anniversary!", "Today is Ada's anniversary!"),
        Case("en", .anniversary, .dayOf, 10, "Ada's Anniversary!", "Today is Ada's 10th anniversary!"),
        Case("en", .anniversary, .dayBefore, nil, "Anniversary Tomorrow", "Ada's anniversary is tomorrow!"),
        Case("en", .anniversary, .dayBefore, 10, "Anniversary Tomorrow", "Ada's 10th anniversary is tomorrow!"),
        Case("de", .birthday, .dayOf, nil, "Ada hat Geburtstag!", "Heute hat Ada Geburtstag!"),
        Case("de", .birthday, .dayOf, 36, "Ada hat Geburtstag!", "Ada wird heute 36!"),
        Case("de", .birthday, .dayBefore, nil, "Morgen ist ein Geburtstag", "Ada hat morgen Geburtstag!"),
        Case("de", .birthday, .dayBefore, 36, "Morgen ist ein Geburtstag", "Ada wird morgen 36!"),
        Case("de", .anniversary, .dayOf, nil, "Ada hat Hochzeitstag!", "Heute hat Ada Hochzeitstag!"),
        Case("de", .anniversary, .dayOf, 10, "Ada hat Hochzeitstag!", "Heute hat Ada den 10. Hochzeitstag!"),
        Case("de", .anniversary, .dayBefore, nil, "Morgen ist ein Hochzeitstag", "Ada hat morgen Hochzeitstag!"),
        Case("de", .anniversary, .dayBefore, 10, "Morgen ist ein Hochzeitstag", "Ada hat morgen den 10. Hochzeitstag!"),
        Case("fr", .birthday, .dayOf, nil, "Ada fête son anniversaire !", "Ada fête son anniversaire aujourd’hui !"),
        Case("fr", .birthday, .dayOf, 36, "Ada fête son anniversaire !", "Ada a 36 ans aujourd’hui !"),
        Case("fr", .birthday, .dayBefore, nil, "Anniversaire demain", "Ada fête son anniversaire demain !"),
        Case("fr", .birthday, .dayBefore, 36, "Anniversaire demain", "Ada aura 36 ans demain !"),
        Case("fr", .anniversary, .dayOf, nil, "Anniversaire de mariage : Ada !", "Ada fête son anniversaire de mariage aujourd’hui !"),
        Case("fr", .anniversary, .dayOf, 10, "Anniversaire de mariage : Ada !", "Ada fête son 10e anniversaire de mariage aujourd’hui !"),
        Case("fr", .anniversary, .dayBefore, nil, "Anniversaire de mariage demain", "Ada fête son anniversaire de mariage demain !"),
        Case("fr", .anniversary, .dayBefore, 10, "Anniversaire de mariage demain", "Ada fête son 10e anniversaire de mariage demain !"),
        Case("es", .birthday, .dayOf, nil, "¡Cumpleaños de Ada!", "¡Hoy es el cumpleaños de Ada!"),
        Case("es", .birthday, .dayOf, 36, "¡Cumpleaños de Ada!", "¡Ada cumple 36 años hoy!"),
        Case("es", .birthday, .dayBefore, nil, "Cumpleaños mañana", "¡El cumpleaños de Ada es mañana!"),
        Case("es", .birthday, .dayBefore, 36, "Cumpleaños mañana", "¡Ada cumple 36 años mañana!"),
        Case("es", .anniversary, .dayOf, nil, "¡Aniversario de boda de Ada!", "¡Hoy es el aniversario de boda de Ada!"),
        Case("es", .anniversary, .dayOf, 10, "¡Aniversario de boda de Ada!", "¡Hoy es el 10.º aniversario de boda de Ada!"),
        Case("es", .anniversary, .dayBefore, nil, "Aniversario de boda mañana", "¡El aniversario de boda de Ada es mañana!"),
        Case("es", .anniversary, .dayBefore, 10, "Aniversario de boda mañana", "¡El 10.º aniversario de boda de Ada es mañana!"),
        Case("pt", .birthday, .dayOf, nil, "Aniversário de Ada!", "Hoje é o aniversário de Ada!"),
        Case("pt", .birthday, .dayOf, 36, "Aniversário de Ada!", "Ada faz 36 anos hoje!"),
        Case("pt", .birthday, .dayBefore, nil, "Aniversário amanhã", "O aniversário de Ada é amanhã!"),
        Case("pt", .birthday, .dayBefore, 36, "Aniversário amanhã", "Ada faz 36 anos amanhã!"),
        Case("pt", .anniversary, .dayOf, nil, "Aniversário de casamento de Ada!", "Hoje é o aniversário de casamento de Ada!"),
        Case("pt", .anniversary, .dayOf, 10, "Aniversário de casamento de Ada!", "Hoje é o 10º aniversário de casamento de Ada!"),
        Case("pt", .anniversary, .dayBefore, nil, "Aniversário de casamento amanhã", "O aniversário de casamento de Ada é amanhã!"),
        Case("pt", .anniversary, .dayBefore, 10, "Aniversário de casamento amanhã", "O 10º aniversário de casamento de Ada é amanhã!"),
        Case("it", .birthday, .dayOf, nil, "Compleanno di Ada!", "Oggi è il compleanno di Ada!"),
        Case("it", .birthday, .dayOf, 36, "Compleanno di Ada!", "Ada compie 36 anni oggi!"),
        Case("it", .birthday, .dayBefore, nil, "Compleanno domani", "Il compleanno di Ada è domani!"),
        Case("it", .birthday, .dayBefore, 36, "Compleanno domani", "Ada compie 36 anni domani!"),
        Case("it", .anniversary, .dayOf, nil, "Anniversario di matrimonio di Ada!", "Oggi è l’anniversario di matrimonio di Ada!"),
        Case("it", .anniversary, .dayOf, 10, "Anniversario di matrimonio di Ada!", "Oggi è il 10º anniversario di matrimonio di Ada!"),
        Case("it", .anniversary, .dayBefore, nil, "Anniversario di matrimonio domani", "L’anniversario di matrimonio di Ada è domani!"),
        Case("it", .anniversary, .dayBefore, 10, "Anniversario di matrimonio domani", "Il 10º anniversario di matrimonio di Ada è domani!"),
        Case("nl", .birthday, .dayOf, nil, "Ada is jarig!", "Vandaag is Ada jarig!"),
        Case("nl", .birthday, .dayOf, 36, "Ada is jarig!", "Ada wordt vandaag 36!"),
        Case("nl", .birthday, .dayBefore, nil, "Morgen een verjaardag", "Ada is morgen jarig!"),
        Case("nl", .birthday, .dayBefore, 36, "Morgen een verjaardag", "Ada wordt morgen 36!"),
        Case("nl", .anniversary, .dayOf, nil, "Trouwdag van Ada!", "Vandaag is de trouwdag van Ada!"),
        Case("nl", .anniversary, .dayOf, 10, "Trouwdag van Ada!", "Vandaag is de 10e trouwdag van Ada!"),
        Case("nl", .anniversary, .dayBefore, nil, "Morgen een trouwdag", "Morgen is de trouwdag van Ada!"),
        Case("nl", .anniversary, .dayBefore, 10, "Morgen een trouwdag", "Morgen is de 10e trouwdag van Ada!"),
        Case("pl", .birthday, .dayOf, nil, "Urodziny: Ada!", "Dziś urodziny obchodzi Ada!"),
        Case("pl", .birthday, .dayOf, 36, "Urodziny: Ada!", "Ada kończy dziś 36 lat!"),
        Case("pl", .birthday, .dayBefore, nil, "Jutro urodziny", "Jutro urodziny obchodzi Ada!"),
        Case("pl", .birthday, .dayBefore, 36, "Jutro urodziny", "Ada kończy jutro 36 lat!"),
        Case("pl", .anniversary, .dayOf, nil, "Rocznica ślubu: Ada!", "Dziś rocznicę ślubu obchodzi Ada!"),
        Case("pl", .anniversary, .dayOf, 10, "Rocznica ślubu: Ada!", "Dziś 10. rocznicę ślubu obchodzi Ada!"),
        Case("pl", .anniversary, .dayBefore, nil, "Jutro rocznica ślubu", "Jutro rocznicę ślubu obchodzi Ada!"),
        Case("pl", .anniversary, .dayBefore, 10, "Jutro rocznica ślubu", "Jutro 10. rocznicę ślubu obchodzi Ada!"),
        Case("ja", .birthday, .dayOf, nil, "Adaさんの誕生日！", "今日はAdaさんの誕生日です！"),
        Case("ja", .birthday, .dayOf, 36, "Adaさんの誕生日！", "Adaさんは今日で36歳！"),
        Case("ja", .birthday, .dayBefore, nil, "明日は誕生日", "明日はAdaさんの誕生日です！"),
        Case("ja", .birthday, .dayBefore, 36, "明日は誕生日", "Adaさんは明日で36歳！"),
        Case("ja", .anniversary, .dayOf, nil, "Adaさんの結婚記念日！", "今日はAdaさんの結婚記念日です！"),
        Case("ja", .anniversary, .dayOf, 10, "Adaさんの結婚記念日！", "今日はAdaさんの結婚10周年です！"),
        Case("ja", .anniversary, .dayBefore, nil, "明日は結婚記念日", "明日はAdaさんの結婚記念日です！"),
        Case("ja", .anniversary, .dayBefore, 10, "明日は結婚記念日", "明日はAdaさんの結婚10周年です！"),
        Case("zh-Hans", .birthday, .dayOf, nil, "Ada的生日！", "今天是Ada的生日！"),
        Case("zh-Hans", .birthday, .dayOf, 36, "Ada的生日！", "Ada今天满36岁！"),
        Case("zh-Hans", .birthday, .dayBefore, nil, "明天有生日", "明天是Ada的生日！"),
        Case("zh-Hans", .birthday, .dayBefore, 36, "明天有生日", "Ada明天满36岁！"),
        Case("zh-Hans", .anniversary, .dayOf, nil, "Ada的结婚纪念日！", "今天是Ada的结婚纪念日！"),
        Case("zh-Hans", .anniversary, .dayOf, 10, "Ada的结婚纪念日！", "今天是Ada结婚10周年纪念日！"),
        Case("zh-Hans", .anniversary, .dayBefore, nil, "明天有结婚纪念日", "明天是Ada的结婚纪念日！"),
        Case("zh-Hans", .anniversary, .dayBefore, 10, "明天有结婚纪念日", "明天是Ada结婚10周年纪念日！"),
    ]

    @Test func everyLanguageAndCombinationIsCovered() {
        for language in supportedLanguages {
            // Labelled dates have words of their own (LabelledDateTests.reminderWordsInEveryLanguage).
            for kind in [EventKind.birthday, .anniversary] {
                for timing in [NotificationRequest.Timing.dayBefore, .dayOf] {
                    for known in [true, false] {
                        #expect(
                            Self.cases.contains { $0.language == language && $0.kind == kind && $0.timing == timing && ($0.age != nil) == known },
                            "\(language) \(kind) \(timing) \(known)"
                        )
                    }
                }
            }
        }
    }

    @Test(arguments: cases)
    func reminderWording(_ c: Case) {
        let content = NotificationContent.make(name: "Ada", kind: c.kind, timing: c.timing, age: c.age, in: Localizer(language: c.language))
        #expect(content.title == c.title)
        #expect(content.body == c.body)
    }

    /// Polish has four forms: 1 rok, 2–4 lata, 5–21 lat, 22–24 lata again.
    @Test(arguments: [
        (1, "Ada kończy dziś 1 rok!"), (2, "Ada kończy dziś 2 lata!"), (5, "Ada kończy dziś 5 lat!"), (22, "Ada kończy dziś 22 lata!"),
        (25, "Ada kończy dziś 25 lat!"),
    ])
    func polishAgePlurals(age: Int, body: String) {
        #expect(NotificationContent.make(name: "Ada", kind: .birthday, timing: .dayOf, age: age, in: Localizer(language: "pl")).body == body)
    }

    @Test(arguments: [(1, "in 1 day"), (2, "in 2 days")])
    func englishDayPlurals(days: Int, text: String) {
        #expect(Localizer.english(Message(.inDays, .number(days))) == text)
    }

    @Test(arguments: [("fr", 1, "anniversaire, 1 an"), ("fr", 2, "anniversaire, 2 ans"), ("ja", 1, "誕生日、1歳になります"), ("ja", 2, "誕生日、2歳になります")])
    func wholeTextPlurals(language: String, age: Int, text: String) {
        #expect(Localizer(language: language)(.upcomingBirthday(turning: age)) == text)
    }

    /// A person without a name is the language's "someone", capitalized at the start.
    @Test(arguments: [
        ("en", "Someone's Birthday!", "Today is someone's birthday!"),
        ("de", "Jemand hat Geburtstag!", "Heute hat jemand Geburtstag!"),
        ("es", "¡Cumpleaños de alguien!", "¡Hoy es el cumpleaños de alguien!"),
        ("nl", "Iemand is jarig!", "Vandaag is iemand jarig!"),
        ("ja", "誰かさんの誕生日！", "今日は誰かさんの誕生日です！"),
    ])
    func unnamed(language: String, title: String, body: String) {
        let content = NotificationContent.make(name: " ", kind: .birthday, timing: .dayOf, age: nil, in: Localizer(language: language))
        #expect(content.title == title)
        #expect(content.body == body)
    }

    /// The catalog's ordinals, chosen by ICU's ordinal rules, are what ICU's
    /// own number formatter (rule-based, which the daemon does not load) writes.
    @Test(arguments: supportedLanguages)
    func ordinalsMatchICUsNumberFormatter(language: String) {
        let localizer = Localizer(language: language)
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.numberStyle = .ordinal
        for n in 1...200 {
            #expect(localizer.ordinal(n) == formatter.string(from: NSNumber(value: n)), "\(language) \(n)")
        }
    }

    /// Ordinals in a few languages, as the issue quotes them.
    @Test(arguments: [
        ("en", 1, "1st"), ("en", 2, "2nd"), ("en", 3, "3rd"), ("en", 11, "11th"), ("en", 21, "21st"), ("en", 111, "111th"),
        ("de", 10, "10."), ("fr", 1, "1er"), ("fr", 10, "10e"), ("es", 10, "10.º"), ("nl", 10, "10e"), ("it", 10, "10º"),
    ])
    func ordinals(language: String, n: Int, text: String) {
        #expect(Localizer(language: language).ordinal(n) == text)
    }

    /// Weekday and month names from ICU, in the language's pattern.
    @Test(arguments: [
        ("en", "Sat 21 Nov"), ("de", "Sa., 21. Nov."), ("fr", "sam. 21 nov."), ("ja", "11月21日(土)"), ("zh-Hans", "11月21日周六"),
    ])
    func shortDates(language: String, text: String) throws {
        #expect(Localizer(language: language).shortDate(try #require(LocalDate(year: 2026, month: 11, day: 21))) == text)
    }
}

// MARK: - Choosing the language

@Suite struct LanguageTests {
    @Test(arguments: [
        ("de_DE.UTF-8", "de-DE"), ("de_DE", "de-DE"), ("de", "de"), ("pt_BR.utf8", "pt-BR"), ("zh_CN.GB18030", "zh-CN"),
        ("sr_RS@latin", "sr-Latn-RS"), ("ca_ES@valencia", "ca-ES"), ("pt-BR", "pt-BR"), ("zh-Hans", "zh-Hans"), ("en_US.UTF-8", "en-US"),
    ])
    func tagsFromPOSIXNames(value: String, tag: String) {
        #expect(Language.tag(fromPOSIX: value) == tag)
    }

    @Test(arguments: ["C", "POSIX", "C.UTF-8", "C.utf8", "", "1234", "x"])
    func untranslatedLocales(value: String) {
        #expect(Language.tag(fromPOSIX: value) == nil)
    }

    /// LC_ALL, then LC_MESSAGES, then LANG; empty ones are skipped.
    @Test(
        arguments: [
            (["LANG": "de_DE.UTF-8"], "de-DE"),
            (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"], "fr-FR"),
            (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LC_ALL": "ja_JP.UTF-8"], "ja-JP"),
            (["LANG": "de_DE.UTF-8", "LC_ALL": ""], "de-DE"),
            (["LANG": "C.UTF-8"], nil),
            (["LC_ALL": "C", "LANG": "de_DE.UTF-8"], nil),
            ([:], nil),
        ] as [([String: String], String?)]
    )
    func environmentPrecedence(environment: [String: String], tag: String?) {
        #expect(Language.fromEnvironment(environment) == tag)
    }

    @Test(
        arguments: [
            ("de-AT", "de"), ("pt-BR", "pt"), ("pt-PT", "pt"), ("zh-CN", "zh-Hans"), ("zh-SG", "zh-Hans"), ("zh-Hans-CN", "zh-Hans"),
            ("en-US", "en"), ("ja-JP", "ja"), ("zh-TW", nil), ("zh-Hant", nil), ("sv-SE", nil), ("sr-Latn-RS", nil),
        ] as [(String, String?)]
    )
    func matching(preferred: String, language: String?) {
        #expect(Language.match(preferred, available: supportedLanguages) == language)
    }

    /// The setting wins over the environment; C, POSIX and unknown languages are English.
    @Test(
        arguments: [
            ("ja", "de-DE", "ja"), (nil, "de-DE", "de"), (nil, nil, "en"), (nil, "sv-SE", "en"), (nil, "zh-TW", "en"), ("pt-BR", nil, "pt"),
        ] as [(String?, String?, String)]
    )
    func settingOverridesEnvironment(setting: String?, systemLocale: String?, language: String) {
        #expect(Localizer(setting: setting, systemLocale: systemLocale).language == language)
    }

    /// The user's region is kept for formatting when the language matches.
    @Test func regionIsKeptForFormatting() {
        #expect(Localizer(setting: nil, systemLocale: "pt-PT").locale.identifier.hasPrefix("pt"))
        #expect(Localizer(setting: nil, systemLocale: "pt-PT").locale.region?.identifier == "PT")
        #expect(Localizer(setting: nil, systemLocale: "en-US").locale.region?.identifier == "US")
    }

    @Test func languageSetting() throws {
        var settings = Settings()
        #expect(settings.text(for: .language) == "system")
        try settings.set(.language, to: "de_AT.UTF-8")
        #expect(settings.language == "de-AT")
        #expect(settings.localizer(systemLocale: "ja-JP").language == "de")
        try settings.set(.language, to: "system")
        #expect(settings.language == nil)
        #expect(settings.localizer(systemLocale: "ja-JP").language == "ja")
        #expect(throws: SettingsError.self) { try settings.set(.language, to: "sv") }
        #expect(throws: SettingsError.self) { try settings.set(.language, to: "zh-TW") }
        #expect(SettingKey.language.affectsReminders)
    }
}

// MARK: - Format strings and broken translations

@Suite struct FormatStringTests {
    @Test func placeholders() throws {
        let format = try #require(FormatString("%1$@ turns %2$lld, %@ and %% %d"))
        #expect(
            format.placeholders
                == [
                    .init(position: 1, isNumber: false), .init(position: 2, isNumber: true), .init(position: 3, isNumber: false),
                    .init(position: 4, isNumber: true),
                ]
        )
    }

    @Test(arguments: ["%f", "100%", "%0$@", "%1@", "%#@age@"])
    func unreadableFormats(text: String) {
        #expect(FormatString(text) == nil)
    }

    @Test func substitutionsAreReplaced() {
        #expect(FormatString.replace(substitution: "age", in: "%1$@ kończy %2$#@age@!", with: "%2$lld lat") == "%1$@ kończy %2$lld lat!")
        #expect(FormatString.replace(substitution: "age", in: "%#@age@ x", with: "%1$lld") == "%1$lld x")
    }

    /// A catalog with English and one German text for ``Message/Key/birthdayTodayAge``.
    static func catalog(german: CatalogEntry) -> StringCatalog {
        StringCatalog(sourceLanguage: "en", languages: ["en", "de"], keys: [Message.Key.birthdayTodayAge.rawValue]) { language, key in
            guard key == Message.Key.birthdayTodayAge.rawValue else { return nil }
            return language == "en" ? CatalogEntry(value: "%1$@ turns %2$lld today!") : german
        }
    }

    /// A translation that uses an argument the message does not have, gives
    /// text to a number, uses an unknown placeholder or lacks `other` is
    /// not used: the English text is, and nothing crashes.
    @Test(arguments: [
        CatalogEntry(value: "%3$@ wird %2$lld"), CatalogEntry(value: "%1$@ wird %2$@"), CatalogEntry(value: "%1$@ wird %2$f"),
        CatalogEntry(plural: [.one: "%1$@ wird %2$lld Jahr"]), CatalogEntry(value: "%1$@ %2$#@age@", substitutions: []),
    ])
    func brokenTranslationFallsBackToEnglish(entry: CatalogEntry) {
        let localizer = Localizer(language: "de", catalog: Self.catalog(german: entry))
        #expect(localizer(.birthdayToday(name: "Ada", turning: 36)) == "Ada turns 36 today!")
    }

    @Test func translationMayDropAndReorderArguments() {
        let reordered = Localizer(language: "de", catalog: Self.catalog(german: CatalogEntry(value: "%2$lld! (%1$@)")))
        #expect(reordered(.birthdayToday(name: "Ada", turning: 36)) == "36! (Ada)")
        let dropped = Localizer(language: "de", catalog: Self.catalog(german: CatalogEntry(value: "Heute!")))
        #expect(dropped(.birthdayToday(name: "Ada", turning: 36)) == "Heute!")
    }
}
