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

    /// "birthday, turns 36", "anniversary, 10 years".
    static func what(_ event: Occurrence, in localizer: Localizer) -> String {
        switch (event.kind, event.age) {
        case (.birthday, let age?): localizer(.upcomingBirthday(turning: age))
        case (.birthday, nil): localizer(.upcomingBirthday)
        case (.anniversary, let years?): localizer(.upcomingAnniversary(years: years))
        case (.anniversary, nil): localizer(.upcomingAnniversary)
        }
    }

    /// One line per event: how far away ("today", "in 4 days"), the day ("Sat 21 Nov"), the name, what it is.
    static func table(_ events: [Occurrence], in localizer: Localizer) -> String {
        Table.render(
            events.map {
                [
                    localizer(.days($0.daysUntil)), localizer.shortDate($0.date), $0.name.isEmpty ? localizer(.upcomingNoName) : $0.name,
                    what($0, in: localizer),
                ]
            }
        )
    }
}
