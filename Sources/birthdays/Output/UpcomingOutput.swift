import BirthdayCore

/// One entry of `birthdays upcoming --json`. `month`, `day` and `year` are
/// the date as the contact writes it, in its `calendar` (`gregorian`, or
/// `chinese`, `hebrew`, …); `era` and `leap_month` complete a date in another
/// calendar (`null` and `false` for a Gregorian one).
struct UpcomingOutput: Encodable {
    var id: String
    var name: String
    var kind: String
    var calendar: String
    var date: String
    var month: Int
    var day: Int
    var year: Int?
    var era: Int?
    var leap_month: Bool
    var age: Int?
    var days_until: Int
    /// The birthday of someone who has died, under `deceased remember` (always present).
    var deceased: Bool

    init(_ event: Occurrence) {
        id = event.personID
        name = event.name
        kind = event.kind.rawValue
        date = event.date.description
        if let written = event.calendarDate {
            calendar = written.calendar.rawValue
            month = written.month
            day = written.day
            year = written.year
            era = written.era
            leap_month = written.isLeapMonth
        } else {
            calendar = "gregorian"
            month = event.eventDate?.month ?? 0
            day = event.eventDate?.day ?? 0
            year = event.eventDate?.year
            era = nil
            leap_month = false
        }
        age = event.age
        days_until = event.daysUntil
        deceased = event.memorial
    }

    /// One line per event: how far away ("today", "in 4 days"), the day
    /// ("Sat 21 Nov"), the name, what it is ("birthday, turns 36",
    /// "anniversary, 10 years"). Each text is looked up once for the table,
    /// and each day and age is written once: a year of 10,000 people has 366
    /// days and about a hundred ages.
    static func table(_ events: [Occurrence], in localizer: Localizer) -> String {
        let inDays = localizer.template(.inDays)
        let shortDate = localizer.shortDates()
        let noName = localizer(.upcomingNoName)
        let birthday = localizer(.upcomingBirthday)
        let birthdayAge = localizer.template(.upcomingBirthdayAge)
        let anniversary = localizer(.upcomingAnniversary)
        let anniversaryYears = localizer.template(.upcomingAnniversaryYears)
        let memorial = localizer(.upcomingMemorial)
        let memorialAge = localizer.template(.upcomingMemorialAge)
        var days: [Int: (when: String, date: String)] = [:]
        var birthdayAges: [Int: String] = [:]
        var anniversaryAges: [Int: String] = [:]
        var calendarWords = CalendarWords(localizer)
        return Table.render(
            events.map { event in
                let day =
                    days[event.date.dayNumber]
                    ?? {
                        let when =
                            switch event.daysUntil {
                            case 0: localizer(.today)
                            case 1: localizer(.tomorrow)
                            default: inDays.render([.number(event.daysUntil)])
                            }
                        let written = (when, shortDate(event.date))
                        days[event.date.dayNumber] = written
                        return written
                    }()
                let what: String
                if let calendar = event.calendar {
                    return [
                        day.when, day.date, event.name.isEmpty ? noName : event.name, calendarWords.what(event.kind, age: event.age, in: calendar),
                    ]
                }
                switch (event.kind, event.age) {
                case (.birthday, let age?) where event.memorial: what = memorialAge.render([.number(age)])
                case (.birthday, nil) where event.memorial: what = memorial
                case (.birthday, let age?):
                    what = birthdayAges[age] ?? birthdayAge.render([.number(age)])
                    birthdayAges[age] = what
                case (.anniversary, let years?):
                    what = anniversaryAges[years] ?? anniversaryYears.render([.number(years)])
                    anniversaryAges[years] = what
                case (.birthday, nil): what = birthday
                case (.anniversary, nil): what = anniversary
                }
                return [day.when, day.date, event.name.isEmpty ? noName : event.name, what]
            },
            shrinkable: [2, 3]
        )
    }

    /// What an event in another calendar is: "lunar birthday, turns 41",
    /// "Hebrew anniversary", each text made once per calendar and age.
    private struct CalendarWords {
        let localizer: Localizer
        let birthdayAge: MessageTemplate
        let anniversaryYears: MessageTemplate
        var names: [CalendarSystem: String] = [:]
        var written: [String: String] = [:]

        init(_ localizer: Localizer) {
            self.localizer = localizer
            birthdayAge = localizer.template(.upcomingCalendarBirthdayAge)
            anniversaryYears = localizer.template(.upcomingCalendarAnniversaryYears)
        }

        mutating func what(_ kind: EventKind, age: Int?, in calendar: CalendarSystem) -> String {
            let key = kind.rawValue + "|" + calendar.rawValue + "|" + (age.map(String.init) ?? "")
            if let known = written[key] { return known }
            let name = names[calendar] ?? localizer(calendar.nameKey)
            names[calendar] = name
            let text: String
            switch (kind, age) {
            case (.birthday, let age?): text = birthdayAge.render([.number(age), .text(name)])
            case (.anniversary, let years?): text = anniversaryYears.render([.number(years), .text(name)])
            case (.birthday, nil): text = localizer.template(.upcomingCalendarBirthday).render([.text(name)])
            case (.anniversary, nil): text = localizer.template(.upcomingCalendarAnniversary).render([.text(name)])
            }
            written[key] = text
            return text
        }
    }
}
