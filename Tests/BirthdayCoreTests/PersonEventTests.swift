import Testing

@testable import BirthdayCore

/// The value the store's one walk yields per event (``PersonEvent``), its
/// treatment, and the name-day matcher the walk keeps.
@Suite struct PersonEventTests {
    static let june24 = EventDate(year: nil, month: 6, day: 24)!
    static let latvia = NameDaySetup(lists: [NameDayList.builtIn["lv"]!])

    @Test func aNameDayIsLabelledByItsReader() {
        let event = PersonEvent(date: .nameDay(Self.june24, list: "lv"), treatment: EventTreatment(reminderDays: .standard))
        let labelled = event.labelled(nameDayLabel: "Vārda diena")
        #expect(labelled?.date == LabelledDate(label: "Vārda diena", date: Self.june24, nameDayList: "lv") && labelled?.ordinal == 1)
        #expect(PersonEvent(date: .gregorian(Self.june24, .birthday), treatment: event.treatment).labelled(nameDayLabel: "x") == nil)
    }

    @Test func aDateInAnotherCalendarIsNeverAMemorial() throws {
        let rules = TreatmentRules(deceased: .remember)
        let died = PersonTraits(deceased: true)
        let lunar = AlternateDate(kind: .birthday, date: try #require(CalendarDate(calendar: .chinese, era: nil, year: nil, month: 3, day: 1)))
        #expect(rules.treatment(of: .gregorian(Self.june24, .birthday), for: died)?.memorial == true)
        #expect(rules.treatment(of: .otherCalendar(lunar), for: died) == nil)
        #expect(rules.treatment(of: .otherCalendar(lunar), for: PersonTraits()) != nil)
    }

    /// A name day follows the one choice every language's label shares, whatever label it will be shown under.
    @Test func aNameDayFollowsTheNameDayChoice() {
        var labels = LabelRules()
        labels.choose("Namenstag", included: false)
        let rules = TreatmentRules(labels: labels)
        #expect(rules.treatment(of: .nameDay(Self.june24, list: "lv"), for: PersonTraits()) == nil)
        #expect(TreatmentRules().treatment(of: .nameDay(Self.june24, list: "lv"), for: PersonTraits()) != nil)
        #expect(TreatmentRules().treatment(of: .nameDay(Self.june24, list: "lv"), for: PersonTraits(deceased: true)) == nil)
    }

    /// People who share a name share its matching, but a person's own choice wins over what another's matching found.
    @Test func theMatcherKeepsEachPersonsChoice() {
        var setup = Self.latvia
        setup.choices = ["b": .off, "c": .day(EventDate(year: nil, month: 1, day: 2)!)]
        var matcher = NameDayMatcher(setup)
        let found: [PersonEvent.Date] = [.nameDay(Self.june24, list: "lv")]
        #expect(matcher.days(id: "a", name: "Jānis Bērziņš", given: "Jānis", nickname: "") == found)
        #expect(matcher.days(id: "b", name: "Jānis Bērziņš", given: "Jānis", nickname: "").isEmpty)
        #expect(
            matcher.days(id: "c", name: "Jānis Bērziņš", given: "Jānis", nickname: "") == [
                .nameDay(EventDate(year: nil, month: 1, day: 2)!, list: "set")
            ]
        )
        #expect(matcher.days(id: "d", name: "Jānis Bērziņš", given: "Jānis", nickname: "") == found)
        var off = NameDayMatcher(NameDaySetup())
        #expect(off.days(id: "a", name: "Jānis", given: "Jānis", nickname: "").isEmpty)
    }
}
