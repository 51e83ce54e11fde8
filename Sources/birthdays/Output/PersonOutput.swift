import BirthdayCore

/// One entry of `birthdays people --json`. Every date is written as the
/// contact gives it, with its calendar: `{"calendar": "gregorian", "year":
/// 1985, "month": 12, "day": 12, "era": null, "leap_month": false}`; dates
/// in other calendars are listed in `calendar_dates` with their kind.
struct PersonOutput: Encodable {
    struct Date: Encodable {
        var calendar: String
        var year: Int?
        var month: Int
        var day: Int
        var era: Int?
        var leap_month: Bool

        init?(_ date: EventDate?) {
            guard let date else { return nil }
            calendar = "gregorian"
            year = date.year
            month = date.month
            day = date.day
            era = nil
            leap_month = false
        }

        init(_ date: CalendarDate) {
            calendar = date.calendar.rawValue
            year = date.year
            month = date.month
            day = date.day
            era = date.era
            leap_month = date.isLeapMonth
        }
    }

    /// A date in another calendar and what it is.
    struct CalendarEvent: Encodable {
        var kind: String
        var calendar: String
        var year: Int?
        var month: Int
        var day: Int
        var era: Int?
        var leap_month: Bool
        /// The Gregorian day of the date itself, when its year is known.
        var gregorian: String?

        init(_ alternate: AlternateDate) {
            let date = Date(alternate.date)
            kind = alternate.kind.rawValue
            calendar = date.calendar
            year = date.year
            month = date.month
            day = date.day
            era = date.era
            leap_month = date.leap_month
            gregorian = alternate.date.gregorian?.description
        }
    }

    var id: String
    var name: String
    var birthday: Date?
    var anniversary: Date?
    var calendar_dates: [CalendarEvent]
    var invalid_dates: [String]

    init(_ person: Person) {
        id = person.id
        name = person.name
        birthday = Date(person.birthday)
        anniversary = Date(person.anniversary)
        calendar_dates = person.alternateDates.map(CalendarEvent.init)
        invalid_dates = person.invalidDates
    }
}
