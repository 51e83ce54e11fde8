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
    static func what(_ event: Occurrence) -> String {
        switch (event.kind, event.age) {
        case (.birthday, let age?): "birthday, turns \(age)"
        case (.birthday, nil): "birthday"
        case (.anniversary, let years?): "anniversary, " + Wording.count(years, "year")
        case (.anniversary, nil): "anniversary"
        }
    }

    static func table(_ events: [Occurrence]) -> String {
        Table.render(events.map { [Wording.when($0.daysUntil), Wording.shortDate($0.date), $0.name.isEmpty ? "(no name)" : $0.name, what($0)] })
    }
}
