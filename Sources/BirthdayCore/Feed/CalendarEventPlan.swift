import Foundation

/// Which events the birthday calendar holds, as values: the one plan that
/// the iCalendar exporter (`CalendarExporter`, which turns each event into
/// libical components), the feed, the JSON twin and the CalDAV publisher
/// read, so they never disagree on a UID, a year or an age.
///
/// ## The rules
/// - Each date of the store's one walk (``FeedEvent``: the dates the
///   treatment rules keep, ``Settings/treatment(of:for:)``) is a yearly
///   series with the UID `<person id>-birthday@birthdays` or
///   `<person id>-anniversary@birthdays`, starting in its year, or in
///   ``unknownYearBase`` (1972, a leap year) when the year is unknown or
///   outside ``EventDate/yearRange``.
/// - February 29 follows ``Settings/leapDay``: one series on the last day of
///   February (`feb28`), or four every fourth year (`mar1`: the usual UID on
///   the Feb 29, `-mar1-1`…`-3` on Mar 1 of the three years after).
/// - With ages (``Settings/calendarAges``, a known Gregorian year, not a
///   memorial), one event a year for ``agedYears`` years from today's year
///   (UID `…-y2026@birthdays`, with ``Event/age``, none before the date
///   itself and none titled 0), and the series after them.
/// - A date in another calendar (``Person/alternateDates``, never a
///   memorial): ``expandedYears`` yearly events from January 1 of today's
///   year (UID with the calendar's year), or one RFC 7529 series
///   (``Settings/calendarRules``).
/// - A labelled date (``Person/labelledDates``, under the label rules:
///   ``LabelRules``) is a series like a birthday's, with ages likewise, under
///   the UID `<person id>-date-<label hash>@birthdays` (the id part of its
///   reminders: ``LabelledDate/idPart(key:ordinal:)``).
/// - Events are sorted by UID; two people with one id are an error.
public struct CalendarEventPlan: Sendable {
    /// The year that starts the series of a date without a year: a leap
    /// year, so that February 29 exists.
    public static let unknownYearBase = 1972

    /// How many years of a date in another calendar the expanded feed lists.
    public static let expandedYears = 10

    /// How many years of a date with a known year carry the age in their
    /// titles (``Settings/calendarAges``): this year and the next two.
    public static let agedYears = 3

    public let settings: Settings
    /// Today in the user's zone: expanded and aged events start in its year.
    /// `nil`: the year of the data's last change (in UTC).
    public let today: LocalDate?

    public init(settings: Settings, today: LocalDate?) {
        self.settings = settings
        self.today = today
    }

    /// One event to write: a person's date of one kind, or one of the
    /// series that together make a Feb 29 date under `leap-day mar1`.
    public struct Event: Sendable {
        public let uid: String
        /// Who it is of: their id, name, nickname, note and death date.
        public let person: FeedPerson
        public let kind: EventKind
        /// The Gregorian year of birth (or of the wedding), when known: the
        /// description and `X-BIRTHDAYS-YEAR`.
        public let knownYear: Int?
        /// The calendar of a date in another one; `nil` for a Gregorian date.
        public let calendar: CalendarSystem?
        /// Its reminder days and whether it is a memorial.
        public let treatment: EventTreatment
        /// The first day of the series.
        public let start: LocalDate
        public let recurrence: Recurrence
        /// The age turned (or years married) on this one year's event
        /// (``Settings/calendarAges``): its title says it, and a round
        /// birthday gets its early alarm. `nil` for every other event.
        public var age: Int? = nil
        /// The labelled date of an event of kind ``EventKind/labelled``; `nil` otherwise.
        public var labelled: LabelledDate? = nil
    }

    /// How an event repeats.
    public enum Recurrence: Sendable, Hashable {
        /// `FREQ=YEARLY`.
        case yearly
        /// `FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1`: Feb 29 in leap years, Feb 28 otherwise.
        case lastDayOfFebruary
        /// `FREQ=YEARLY;INTERVAL=4`: one of the four series of a Feb 29 date under `mar1`.
        case everyFourthYear
        /// No rule: one year of a date in another calendar (``CalendarRules/expanded``).
        case once
        /// RFC 7529: `RSCALE=…;FREQ=YEARLY;BYMONTH=…;BYMONTHDAY=…;SKIP=…` (``CalendarRules/rscale``).
        case rscale(CalendarDate)
    }

    /// The events of `people` (``FeedEvent/events(of:rules:)`` under these settings' rules).
    public func events(for people: [Person], lastChange: Date) throws(CalendarPlanError) -> [Event] {
        try events(for: FeedEvent.events(of: people, rules: settings.treatmentRules), lastChange: lastChange)
    }

    /// The events of the dates `feed` (the store's walk: which dates each
    /// person has, and how each is kept, are decided there), sorted by UID.
    /// A name day not already given as a labelled date is labelled in the
    /// settings' language (``LabelRules/nameDayLabel(language:)``).
    public func events(for feed: [FeedEvent], lastChange: Date) throws(CalendarPlanError) -> [Event] {
        var entries: [Event] = []
        entries.reserveCapacity(feed.count)
        let windowYear = (today ?? LocalDate.today(at: lastChange, in: .gmt)).year
        var windows = ExpandedWindows(start: LocalDate(unchecked: windowYear, 1, 1))
        for item in feed {
            let treatment = item.event.treatment
            switch item.event.date {
            case .gregorian(let date, let kind):
                appendEntries(for: date, kind: kind, treatment: treatment, of: item.person, year: windowYear, to: &entries)
            case .otherCalendar(let alternate):
                appendEntries(for: alternate, treatment: treatment, of: item.person, windows: &windows, to: &entries)
            case .labelled, .nameDay:
                guard let (labelled, ordinal) = item.event.labelled(nameDayLabel: LabelRules.nameDayLabel(language: settings.language))
                else { continue }
                appendEntries(
                    for: labelled.date,
                    kind: .labelled,
                    treatment: treatment,
                    of: item.person,
                    year: windowYear,
                    to: &entries,
                    labelled: (labelled, labelled.idPart(ordinal: ordinal))
                )
            }
        }
        // Swift orders strings by their normalized Unicode scalars: the same on every machine, never by locale.
        entries.sort { $0.uid < $1.uid }
        for index in entries.indices.dropFirst() where entries[index].uid == entries[index - 1].uid {
            throw CalendarPlanError(duplicateID: entries[index].person.id)
        }
        return entries
    }

    /// The events of one date: one yearly series; for Feb 29 under `leap-day
    /// mar1`, four (see the type's documentation). With ages
    /// (``agesApply(to:)``) and a known year, first one event per year of
    /// `year`…`year + 2` (none before the date's own year) with the age in
    /// its title, then the same series, starting on their first instance
    /// after those years.
    private func appendEntries(
        for date: EventDate,
        kind: EventKind,
        treatment: EventTreatment,
        of person: FeedPerson,
        year: Int,
        to entries: inout [Event],
        labelled: (date: LabelledDate, id: String)? = nil
    ) {
        let stem = person.id + "-" + (labelled?.id ?? kind.rawValue)
        let knownYear = date.year.flatMap { EventDate.yearRange.contains($0) ? $0 : nil }
        let first = knownYear ?? Self.unknownYearBase
        func entry(_ uid: String, _ start: LocalDate, _ recurrence: Recurrence, age: Int? = nil) -> Event {
            Event(
                uid: uid,
                person: person,
                kind: kind,
                knownYear: knownYear,
                calendar: nil,
                treatment: treatment,
                start: start,
                recurrence: recurrence,
                age: age,
                labelled: labelled?.date
            )
        }
        // The year the recurring series starts in: the birth year, or with ages the year after the aged ones.
        var seriesYear = first
        if let knownYear, agesApply(to: treatment) {
            let last = min(year + Self.agedYears - 1, EventDate.yearRange.upperBound)
            for eventYear in stride(from: max(year, knownYear), through: last, by: 1) {
                // Feb 29 under mar1 has no day in a common year divisible by 4 (2100), as its series do not.
                if date.isLeapDay, settings.leapDay == .mar1, !LocalDate.isLeapYear(eventYear), eventYear % 4 == knownYear % 4 { continue }
                let day = date.occurrence(in: eventYear, leapDay: settings.leapDay)
                // The birth year's own day (age 0) keeps its event, without an age.
                let age = eventYear > knownYear ? eventYear - knownYear : nil
                entries.append(entry(stem + "-y" + String(eventYear) + "@birthdays", day, .once, age: age))
            }
            seriesYear = max(knownYear, year + Self.agedYears)
            guard seriesYear <= EventDate.yearRange.upperBound else { return }
        }
        guard date.isLeapDay else {
            entries.append(entry(stem + "@birthdays", LocalDate(unchecked: seriesYear, date.month, date.day), .yearly))
            return
        }
        switch settings.leapDay {
        case .feb28:
            let day = LocalDate.isLeapYear(seriesYear) ? 29 : 28
            entries.append(entry(stem + "@birthdays", LocalDate(unchecked: seriesYear, 2, day), .lastDayOfFebruary))
        case .mar1:
            // Each of the four series keeps its years (the birth year plus its offset, every fourth year), from `seriesYear` on.
            for offset in 0...3 where first + offset <= 9999 {
                var start = first + offset
                if start < seriesYear { start += (seriesYear - start + 3) / 4 * 4 }
                // The Feb 29 series cannot start in a common year (2100): its next instance is four years on.
                while offset == 0, !LocalDate.isLeapYear(start) { start += 4 }
                guard start <= 9999 else { continue }
                let uid = offset == 0 ? stem + "@birthdays" : stem + "-mar1-\(offset)@birthdays"
                entries.append(entry(uid, offset == 0 ? LocalDate(unchecked: start, 2, 29) : LocalDate(unchecked: start, 3, 1), .everyFourthYear))
            }
        }
    }

    /// Whether the events of `feed` depend on the year (not only on the
    /// data): it has expanded events of other calendars, or Gregorian dates
    /// with years that get their years with ages (``agesApply(to:)``), whose
    /// window moves on each January 1.
    public func dependsOnYear(_ feed: [FeedEvent]) -> Bool {
        let expanded = settings.calendarRules == .expanded
        guard expanded || settings.calendarAges else { return false }
        return feed.contains { item in
            switch item.event.date {
            case .otherCalendar: return expanded
            case .gregorian(let date, _):
                guard let year = date.year else { return false }
                return EventDate.yearRange.contains(year) && agesApply(to: item.event.treatment)
            case .labelled, .nameDay: return false
            }
        }
    }

    /// Whether a date with a known year in the Gregorian calendar gets its
    /// years with ages (``Settings/calendarAges``): not for a memorial, whose
    /// title names no age.
    public func agesApply(to treatment: EventTreatment) -> Bool {
        settings.calendarAges && !treatment.memorial
    }

    /// The events of a date in another calendar: one per year of the window,
    /// or one with an RFC 7529 rule (see the type's documentation).
    private func appendEntries(
        for alternate: AlternateDate,
        treatment: EventTreatment,
        of person: FeedPerson,
        windows: inout ExpandedWindows,
        to entries: inout [Event]
    ) {
        let date = alternate.date
        let stem = person.id + "-" + date.calendar.rawValue + "-" + alternate.kind.rawValue
        let knownYear = date.gregorian.flatMap { EventDate.yearRange.contains($0.year) ? $0.year : nil }
        func entry(_ uid: String, _ start: LocalDate, _ recurrence: Recurrence) -> Event {
            Event(
                uid: uid,
                person: person,
                kind: alternate.kind,
                knownYear: knownYear,
                calendar: date.calendar,
                treatment: treatment,
                start: start,
                recurrence: recurrence
            )
        }
        switch settings.calendarRules {
        case .expanded:
            for occurrence in windows.occurrences(of: date) where EventDate.yearRange.contains(occurrence.date.year) {
                entries.append(entry(stem + "-" + String(occurrence.year) + "@birthdays", occurrence.date, .once))
            }
        case .rscale:
            let start = date.gregorian ?? date.occurrences(from: LocalDate(unchecked: Self.unknownYearBase, 1, 1), count: 1).first?.date
            guard let start, EventDate.yearRange.contains(start.year) else { return }
            entries.append(entry(stem + "@birthdays", start, .rscale(date)))
        }
    }

    /// The expanded window's occurrences, computed once per (calendar, month,
    /// leap month, day) for the dates whose birth does not fall inside it.
    private struct ExpandedWindows {
        struct Key: Hashable {
            var calendar: CalendarSystem
            var month: Int
            var leap: Bool
            var day: Int
        }

        let start: LocalDate
        var memo: [Key: [CalendarDate.Occurrence]] = [:]

        init(start: LocalDate) {
            self.start = start
        }

        mutating func occurrences(of date: CalendarDate) -> [CalendarDate.Occurrence] {
            if let birth = date.gregorian, birth >= start { return date.occurrences(from: start, count: CalendarEventPlan.expandedYears) }
            let key = Key(calendar: date.calendar, month: date.month, leap: date.isLeapMonth, day: date.day)
            if let known = memo[key] { return known }
            let found = date.occurrences(from: start, count: CalendarEventPlan.expandedYears)
            memo[key] = found
            return found
        }
    }
}

/// Two people share an id, so their events would share UIDs.
public struct CalendarPlanError: Error, Sendable, Equatable {
    /// The id two people have.
    public let duplicateID: String

    public init(duplicateID: String) { self.duplicateID = duplicateID }
}
