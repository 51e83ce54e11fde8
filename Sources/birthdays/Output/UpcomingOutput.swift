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
        var days: [Int: (when: String, date: String)] = [:]
        var words = OccurrenceWords(localizer)
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
                return [day.when, day.date, event.name.isEmpty ? noName : event.name, words.what(event)]
            },
            shrinkable: [2, 3]
        )
    }
}
