import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Name days (issue 34): the shipped Latvian list, a list in the
/// `MM-DD,name,name…` format, and how a person's first name or nickname
/// matches: without case, with diacritics folded, and never guessed when a
/// list gives a name two days.
@Suite struct NameDayListTests {
    static func person(_ name: String, given: String = "", nickname: String = "") -> Person {
        Person(id: "p", name: name, nameParts: NameParts(given: given), nickname: nickname, source: ContactSource(file: "", index: 0, line: 0))
    }

    static var latvia: NameDayList { NameDayList.builtIn["lv"]! }

    @Test func theLatvianListGivesJanisTheTwentyFourthOfJune() {
        #expect(Self.latvia.days(of: "Jānis") == [EventDate(year: nil, month: 6, day: 24)!])
        #expect(Self.latvia.days(of: "JANIS") == Self.latvia.days(of: "jānis"))
        #expect(Self.latvia.count > 1000)
        let match = NameDays.match(Self.person("Jānis Bērziņš", given: "Jānis"), in: [Self.latvia])
        #expect(match == [NameDayMatch(country: "lv", name: "Jānis", days: [EventDate(year: nil, month: 6, day: 24)!])])
        // Without N, the first word of the name; then the nickname.
        #expect(NameDays.match(Self.person("Janis Berzins"), in: [Self.latvia]).first?.day == EventDate(year: nil, month: 6, day: 24))
        #expect(NameDays.match(Self.person("J. B.", nickname: "Jānis"), in: [Self.latvia]).first?.name == "Jānis")
        #expect(NameDays.match(Self.person("Zzyzx Q"), in: [Self.latvia]).isEmpty)
    }

    /// `exclude --label` of the name-day label in any language is one choice:
    /// reminders word it in the environment's language, the feed in the setting's.
    @Test func aNameDayChoiceHoldsWhicheverLanguageWroteTheLabel() {
        var rules = LabelRules()
        rules.choose("Namenstag", included: false)
        let day = EventDate(year: nil, month: 6, day: 24)!
        #expect(!rules.counts(LabelledDate(label: "Name day", date: day, nameDayList: "lv")))
        #expect(!rules.counts(LabelledDate(label: "Namenstag", date: day, nameDayList: "lv")))
        #expect(rules.counts(LabelledDate(label: "Started work", date: day)))
        rules.choose("name day", included: nil)
        #expect(rules.counts(LabelledDate(label: "Namenstag", date: day, nameDayList: "lv")))
    }

    @Test func aNameOnTwoDaysIsAskedAboutNotGuessed() {
        let (list, problems) = NameDayList.parse("# mine\n03-19,Josef\n\n03-20,Josef,Anna\n13-01,Nobody\n", country: "cz", file: "mine.csv")
        #expect(problems.map(\.description) == ["mine.csv:5: '13-01' is not a day written MM-DD"])
        let match = NameDays.match(Self.person("Josef Novák"), in: [list])
        #expect(match.first?.days.count == 2 && match.first?.day == nil)
        #expect(NameDays.events(of: Self.person("Josef Novák"), in: [list], label: "Name day").isEmpty)
        let anna = NameDays.events(of: Self.person("Anna"), in: [list], label: "Name day")
        #expect(anna == [LabelledDate(label: "Name day", date: EventDate(year: nil, month: 3, day: 20)!, nameDayList: "cz")])
        #expect(anna.first?.idPart(ordinal: 1) == "nameday-cz")
    }

    @Test func theSettingNamesKnownListsOnly() throws {
        var settings = Settings()
        try settings.set(.nameDays, to: "LV, lv")
        #expect(settings.nameDays == ["lv"] && settings.text(for: .nameDays) == "lv")
        #expect(throws: SettingsError.self) { try settings.set(.nameDays, to: "fi") }
        try settings.set(.nameDays, to: "off")
        #expect(settings.nameDays.isEmpty)
    }

    /// The shipped list is the package's data, day for day (when python3 has `lv_namedays`).
    @Test(.enabled(if: SystemTools.pythonHas("lv_namedays"), "needs python3 with lv-namedays (pip install lv-namedays)"))
    func theShippedListIsThePackagesData() async throws {
        let script = """
            import json, importlib.resources
            data = json.loads(importlib.resources.files('lv_namedays').joinpath('data/tradic_vardadienu_saraksts.json').read_text())
            print(json.dumps(data))
            """
        let output = try await ExternalTool.run(ExternalTool.python, ["-c", script])
        try #require(output.status == 0, "\(output.stderr)")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: [String]])
        for (day, names) in data {
            for name in names where name != "-" {
                #expect(Self.latvia.days(of: name).map { String(format: "%02d-%02d", $0.month, $0.day) }.contains(day), "\(name) \(day)")
            }
        }
    }
}
