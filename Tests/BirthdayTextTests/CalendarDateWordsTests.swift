import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// ``CalendarDate/words(in:)``: what `show` writes for a date in another
/// calendar, in every language, instead of `chinese 0078-0008-08-15`.
@Suite struct CalendarDateWordsTests {
    static func date(_ calendar: CalendarSystem, _ era: Int?, _ year: Int?, _ month: Int, leap: Bool = false, _ day: Int) throws -> CalendarDate {
        try #require(CalendarDate(calendar: calendar, era: era, year: year, month: month, isLeapMonth: leap, day: day))
    }

    @Test(arguments: [
        ("en", "15th day of the 8th month"),
        ("de", "15. Tag des 8. Monats"),
        ("fr", "15e jour du 8e mois"),
        ("es", "15.º día del 8.º mes"),
        ("pt", "15º dia do 8º mês"),
        ("it", "giorno 15 del mese 8"),
        ("nl", "15e dag van de 8e maand"),
        ("pl", "15. dzień 8. miesiąca"),
        ("ja", "8月15日"),
        ("zh-Hans", "8月15日"),
    ])
    func aLunarDateInEachLanguage(language: String, expected: String) throws {
        // Era 78, year 8: 1991's Mid-Autumn day; the cycle's year is not words for anyone.
        let date = try Self.date(.chinese, 78, 8, 8, 15)
        #expect(date.words(in: Localizer(language: language)) == expected)
        #expect(try Self.date(.chinese, nil, nil, 8, 15).words(in: Localizer(language: language)) == expected, "without a year, the same")
    }

    @Test func ordinalsFollowTheLanguage() throws {
        #expect(try Self.date(.chinese, 78, 2, 11, 1).words(in: .english) == "1st day of the 11th month")
        #expect(try Self.date(.chinese, nil, nil, 12, 22).words(in: .english) == "22nd day of the 12th month")
        #expect(try Self.date(.chinese, nil, nil, 3, 23).words(in: .english) == "23rd day of the 3rd month")
        #expect(try Self.date(.chinese, nil, nil, 1, 1).words(in: Localizer(language: "fr")) == "1er jour du 1er mois")
    }

    @Test func aLeapMonthIsSaid() throws {
        let date = try Self.date(.chinese, 78, 37, 4, leap: true, 10)
        #expect(date.words(in: .english) == "10th day of the leap 4th month")
        #expect(date.words(in: Localizer(language: "zh-Hans")) == "闰4月10日")
        #expect(date.words(in: Localizer(language: "de")) == "10. Tag des Schaltmonats nach dem 4. Monat")
    }

    /// A year that means something alone is said; a 60-year cycle's or a reign's is not.
    @Test func theYearWhereItMeansSomething() throws {
        #expect(try Self.date(.hebrew, 0, 5784, 6, 14).words(in: .english) == "14th day of the 6th month of 5784")
        #expect(try Self.date(.hebrew, 0, 5784, 6, 14).words(in: Localizer(language: "ja")) == "5784年6月14日")
        #expect(try Self.date(.hebrew, nil, nil, 7, 15).words(in: .english) == "15th day of the 7th month")
        #expect(try Self.date(.japanese, 236, 6, 3, 10).words(in: .english) == "10th day of the 3rd month")
    }

    @Test(arguments: supportedLanguages)
    func everyLanguageWritesEveryForm(language: String) throws {
        let localizer = Localizer(language: language)
        for date in [
            try Self.date(.chinese, 78, 8, 8, 15), try Self.date(.chinese, 78, 37, 4, leap: true, 10), try Self.date(.hebrew, 0, 5784, 6, 14),
        ] {
            let words = date.words(in: localizer)
            #expect(!words.contains("%") && !words.contains("date.calendar"), "\(language): \(words)")
            #expect(words.contains(String(date.day)), "\(language): \(words)")
        }
    }
}
