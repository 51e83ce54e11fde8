import BirthdayCore

/// One entry of `birthdays people --json`. Every date is written as the
/// contact gives it, with its calendar: `{"calendar": "gregorian", "year":
/// 1985, "month": 12, "day": 12, "era": null, "leap_month": false}`; dates
/// in other calendars are listed in `calendar_dates` with their kind, and
/// dates under labels of their own in `labelled_dates`.
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

    /// A date the card keeps under a label of its own: `{"label": "Started
    /// work", "date": {…}, "birthday": false}`; `birthday` says whether the
    /// label names someone's birthday (its years are then an age).
    struct Labelled: Encodable {
        var label: String
        var date: Date
        var birthday: Bool
    }

    /// A way to reach the person: `{"kind": "email", "value": "ada@example.org", "uri": "mailto:ada@example.org"}`.
    struct Contact: Encodable {
        var kind: String
        var value: String
        var uri: String
    }

    var id: String
    var name: String
    /// `null` when the card gives none.
    var nickname: String?
    var birthday: Date?
    var anniversary: Date?
    var calendar_dates: [CalendarEvent]
    /// The labelled dates in label order (always present, `[]` for none).
    var labelled_dates: [Labelled]
    var invalid_dates: [String]
    /// No date at all is known (``Person/isUndated``): kept, never reminded,
    /// not in the feed (always present).
    var undated: Bool
    /// Left out by the card, by `birthdays exclude`, or by a rule of one of
    /// their groups or sources (``RulePrecedence``; always present).
    var excluded: Bool
    /// Who decided: `"card"`, `"user"` (`exclude` or `include`), `"group"` or
    /// `"source"` (`exclude --group`, `include --source`, …), or `null`
    /// (nothing excludes them).
    var excluded_by: String?
    /// The group's or source's name when `excluded_by` is `"group"` or `"source"`; else `null`.
    var excluded_by_name: String?
    /// The groups the contact is in (always present, `[]` for none).
    var groups: [String]
    /// The reminder days the person's groups and sources give them (their
    /// union), when they have none of their own; else `null`.
    var group_reminder_days: [Int]?
    /// The card gives a death date (always present).
    var deceased: Bool
    /// The death date as the card gives it (`2020-05-01`, `--05-01`, or text); `null` while alive.
    var death_date: String?
    /// The person's own reminder days (`[7, 1, 0]`); `null` follows the `reminders` setting.
    var reminder_days: [Int]?
    /// The channels the person's reminders go through (`["email", "ntfy"]`); `null` uses every channel that delivers.
    var channels: [String]?
    /// `"friday"`: reminders due on a Saturday or Sunday come on the Friday before; `null` moves nothing.
    var weekend: String?
    /// The ways to reach the person, preferred first (always present; `[]` when the card gives none).
    var contact: [Contact]
    /// The zone their birthday begins in: an IANA name (`"Asia/Tokyo"`) or a
    /// UTC offset (`"+09:00"`); `null` is the user's own.
    var zone: String?
    /// Who gave it: `"card"` (its `TZ`) or `"choice"` (`birthdays zone`,
    /// `local` included, which leaves `zone` `null`); `null` when neither did.
    var zone_from: String?
    /// The user's note for the person's day (``PersonNote``: `birthdays note`); `null` when there is none.
    var note: String?
    /// `people --json` only: the cards the person is made of (issue 43), their own first; absent elsewhere.
    var cards: [Card]?

    /// One card of the person: the source's name (or the imported file's), its `UID` (`null` without one) and its stored id.
    struct Card: Encodable {
        var source: String
        var uid: String?
        var id: String
    }

    init(_ person: Person) {
        id = person.id
        name = person.name
        nickname = person.nickname.isEmpty ? nil : person.nickname
        birthday = Date(person.birthday)
        anniversary = Date(person.anniversary)
        calendar_dates = person.alternateDates.map(CalendarEvent.init)
        labelled_dates = person.labelledDates.compactMap { labelled in
            Date(labelled.date).map { Labelled(label: labelled.label, date: $0, birthday: labelled.isBirthday) }
        }
        invalid_dates = person.invalidDates
        undated = person.isUndated
        let decision = person.decision
        excluded = decision.excluded
        switch decision.exclusionBy {
        case .person: excluded_by = "user"
        case .card: excluded_by = "card"
        case .shared(let scope):
            excluded_by = scope.kind
            excluded_by_name = scope.name
        case nil: excluded_by = nil
        }
        groups = person.groups
        group_reminder_days = decision.reminderDaysBy.isEmpty ? nil : decision.reminderDays?.days
        deceased = person.isDeceased
        death_date = person.deathDate
        reminder_days = person.reminderDays?.days
        channels = person.channels
        weekend = person.weekend?.rawValue
        contact = person.contactPoints.map { Contact(kind: $0.kind.rawValue, value: $0.value, uri: $0.uri) }
        zone = person.zone?.storedValue
        zone_from = person.zoneChoice != nil ? "choice" : person.cardZone != nil ? "card" : nil
        note = person.note
    }

    /// The last column of the `people` table: what sets the person apart, in
    /// English like the rest of it ("excluded", "died 2020-05-01", …).
    static func notes(_ person: Person) -> String {
        var notes: [String] = []
        if person.isUndated { notes.append("no date") }
        if !person.nickname.isEmpty { notes.append("nickname " + SafeText.line(person.nickname, maxCharacters: 40)) }
        if let died = person.deathDate { notes.append("died " + SafeText.line(died, maxCharacters: 40)) }
        let decision = person.decision
        if person.excluded {
            notes.append(person.exclusion.choice == nil ? "excluded by the card" : "excluded")
        } else if person.exclusion.card {
            notes.append("included despite the card")
        } else if decision.excluded, case .shared(let scope) = decision.exclusionBy {
            notes.append("excluded with the \(scope)")
        }
        if let days = person.reminderDays { notes.append("reminders " + days.description) }
        if !decision.reminderDaysBy.isEmpty, let days = decision.reminderDays { notes.append("group reminders " + days.description) }
        if !person.groups.isEmpty { notes.append("groups " + SafeText.line(person.groups.joined(separator: ","), maxCharacters: 60)) }
        if !person.labelledDates.isEmpty {
            notes.append("dates " + SafeText.line(person.labelledDates.map(\.description).joined(separator: ", "), maxCharacters: 80))
        }
        if let channels = person.channels { notes.append("channels " + channels.joined(separator: ",")) }
        if let weekend = person.weekend { notes.append("weekend " + weekend.rawValue) }
        if let zone = person.zone { notes.append("zone " + zone.storedValue) }
        if !person.invalidDates.isEmpty { notes.append("unreadable: " + person.invalidDates.joined(separator: ", ")) }
        return notes.joined(separator: "; ")
    }
}
