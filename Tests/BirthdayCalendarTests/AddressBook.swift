import Foundation
import TestSupport

@testable import BirthdayCalendar
@testable import BirthdayCore

/// A small fixed address book that covers the export rules: Feb 29 with and
/// without a year, unknown years, an anniversary, New Year's Eve, a person
/// with no readable date, and names with commas, semicolons, quotes, a
/// backslash, emoji and non-ASCII letters.
enum AddressBook {
    /// 2026-11-21T05:30:00Z: the data's last change in every test.
    static let lastChange = Date(timeIntervalSince1970: 1_795_239_000)
    /// "Today" for recurrence checks.
    static let today = LocalDate(year: 2026, month: 11, day: 21)!

    static func date(_ year: Int?, _ month: Int, _ day: Int) -> EventDate? {
        EventDate(year: year, month: month, day: day)
    }

    static func person(_ id: String, _ name: String, birthday: EventDate? = nil, anniversary: EventDate? = nil, invalid: [String] = []) -> Person {
        Person(
            id: id,
            name: name,
            source: ContactSource(file: "book.vcf", index: 0, line: 1),
            birthday: birthday,
            anniversary: anniversary,
            invalidDates: invalid
        )
    }

    static let people: [Person] = [
        person("ada", "Ada Lovelace", birthday: date(1815, 12, 10)),
        person("john-doe", "Doe, John; \"JJ\" \\o/", birthday: date(1990, 5, 14), anniversary: date(2015, 6, 20)),
        person("lea", "Léa Müller 🎈", birthday: date(1992, 2, 29)),
        person("bjorn", "Björn Ångström", birthday: date(nil, 2, 29)),
        person("li", "李小龍", birthday: date(nil, 11, 27), anniversary: date(nil, 8, 1)),
        person("silvester", "Silvester Eve", birthday: date(1970, 12, 31)),
        person("nobody", "Nobody Dated", invalid: ["1985-13-02"]),
    ]

    /// The people whose id is `id`.
    static func only(_ id: String) -> [Person] { people.filter { $0.id == id } }
}

extension Settings {
    /// The default settings with `calendar-ages off`: the feed of one
    /// recurring event per date, as it was before ages (the tests of its shape).
    static var withoutAges: Settings {
        var settings = Settings()
        settings.calendarAges = false
        return settings
    }
}
