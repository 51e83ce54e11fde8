import BirthdayCore

/// What an upcoming event is, in words: "birthday, turns 36", "anniversary,
/// 10 years", "in memory, would have turned 80", "lunar birthday, turns 41"
/// (the texts of `upcoming` and of the digest).
///
/// Each text is looked up once and each age written once, so a year of
/// 10,000 people costs about a hundred renderings, not 10,000.
public struct OccurrenceWords {
    private let localizer: Localizer
    private let birthday: String
    private let birthdayAge: MessageTemplate
    private let anniversary: String
    private let anniversaryYears: MessageTemplate
    private let memorial: String
    private let memorialAge: MessageTemplate
    private let calendarBirthdayAge: MessageTemplate
    private let calendarAnniversaryYears: MessageTemplate
    private var names: [CalendarSystem: String] = [:]
    private var written: [String: String] = [:]

    public init(_ localizer: Localizer) {
        self.localizer = localizer
        birthday = localizer(.upcomingBirthday)
        birthdayAge = localizer.template(.upcomingBirthdayAge)
        anniversary = localizer(.upcomingAnniversary)
        anniversaryYears = localizer.template(.upcomingAnniversaryYears)
        memorial = localizer(.upcomingMemorial)
        memorialAge = localizer.template(.upcomingMemorialAge)
        calendarBirthdayAge = localizer.template(.upcomingCalendarBirthdayAge)
        calendarAnniversaryYears = localizer.template(.upcomingCalendarAnniversaryYears)
    }

    /// The words for `event`: its kind, the age or years when the year is
    /// known, the calendar when it is not Gregorian, "in memory" for a memorial.
    public mutating func what(_ event: Occurrence) -> String {
        if let labelled = event.labelled {
            // Under its label: "Started work, 8 years", "Child's birthday, turns 11".
            let label = SafeText.line(labelled.label, maxCharacters: 60)
            guard let years = event.age else { return label }
            return localizer.template(labelled.isBirthday ? .upcomingLabelledAge : .upcomingLabelledYears).render([.number(years), .text(label)])
        }
        let key =
            event.kind.rawValue + "|" + (event.calendar?.rawValue ?? "") + "|" + (event.memorial ? "m" : "") + "|"
            + (event.age.map(String.init) ?? "")
        if let known = written[key] { return known }
        let text: String
        if let calendar = event.calendar {
            let name = names[calendar] ?? localizer(calendar.nameKey)
            names[calendar] = name
            switch (event.kind, event.age) {
            case (.birthday, let age?): text = calendarBirthdayAge.render([.number(age), .text(name)])
            case (.anniversary, let years?): text = calendarAnniversaryYears.render([.number(years), .text(name)])
            case (.birthday, nil): text = localizer.template(.upcomingCalendarBirthday).render([.text(name)])
            case (.anniversary, nil), (.labelled, nil): text = localizer.template(.upcomingCalendarAnniversary).render([.text(name)])
            case (.labelled, let years?): text = calendarAnniversaryYears.render([.number(years), .text(name)])
            }
        } else {
            switch (event.kind, event.age) {
            case (.birthday, let age?) where event.memorial: text = memorialAge.render([.number(age)])
            case (.birthday, nil) where event.memorial: text = memorial
            case (.birthday, let age?): text = birthdayAge.render([.number(age)])
            case (.anniversary, let years?): text = anniversaryYears.render([.number(years)])
            case (.birthday, nil): text = birthday
            case (.anniversary, nil): text = anniversary
            case (.labelled, let years?): text = anniversaryYears.render([.number(years)])
            case (.labelled, nil): text = anniversary
            }
        }
        written[key] = text
        return text
    }
}
