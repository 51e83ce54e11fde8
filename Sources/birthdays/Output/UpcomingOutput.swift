import BirthdayCore

/// One entry of `birthdays upcoming --json`.
struct UpcomingOutput: Encodable {
    var id: String
    var name: String
    var kind: String
    var date: String
    var month: Int
    var day: Int
    var year: Int?
    var age: Int?
    var days_until: Int

    init(_ event: Occurrence) {
        id = event.personID
        name = event.name
        kind = event.kind.rawValue
        date = event.date.description
        month = event.eventDate.month
        day = event.eventDate.day
        year = event.eventDate.year
        age = event.age
        days_until = event.daysUntil
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
        var days: [Int: (when: String, date: String)] = [:]
        var birthdayAges: [Int: String] = [:]
        var anniversaryAges: [Int: String] = [:]
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
                switch (event.kind, event.age) {
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
            }
        )
    }
}
