import BirthdayCore

/// One entry of `birthdays people --json`.
struct PersonOutput: Encodable {
    struct Date: Encodable {
        var month: Int
        var day: Int
        var year: Int?

        init?(_ date: EventDate?) {
            guard let date else { return nil }
            month = date.month
            day = date.day
            year = date.year
        }
    }

    var id: String
    var name: String
    var birthday: Date?
    var anniversary: Date?
    var invalid_dates: [String]

    init(_ person: Person) {
        id = person.id
        name = person.name
        birthday = Date(person.birthday)
        anniversary = Date(person.anniversary)
        invalid_dates = person.invalidDates
    }
}
