import Foundation

/// One future (or today's) birthday or anniversary of one person.
public struct Occurrence: Hashable, Sendable {
    public let personID: String
    public let name: String
    public let kind: EventKind
    /// The day it falls on, after the leap-day policy (or its calendar's rules).
    public let date: LocalDate
    /// The Gregorian date as the contact carries it; `nil` for a date in another calendar.
    public let eventDate: EventDate?
    /// The date in another calendar as the contact carries it; `nil` for a Gregorian date.
    public let calendarDate: CalendarDate?
    /// The age turned (or years married) on ``date``, in years of the date's
    /// calendar; `nil` when the year is unknown.
    public let age: Int?
    /// Days from today to ``date``: 0 today, 1 tomorrow.
    public let daysUntil: Int
    /// The birthday of someone who has died, kept in their memory (`deceased remember`).
    public var memorial: Bool = false
    /// The zone the person's day begins in (``Person/zone``, through
    /// ``EventTreatment/zone``); `nil` for the user's own and for a memorial.
    public var zone: PersonZone? = nil
    /// The labelled date it is an occurrence of (kind ``EventKind/labelled``),
    /// with its ordinal among the person's dates of the same label (1 for
    /// the first; ``LabelledDate/idPart(key:ordinal:)``); `nil` otherwise.
    public var labelled: LabelledDate? = nil
    public var labelOrdinal: Int = 1

    /// ``zone`` when the person's day does not begin at the user's midnight
    /// of ``date`` in `mine` (another offset that day); `nil` otherwise: what
    /// `upcoming` names beside the person ("Mei Tanaka (Tokyo)").
    public func zoneElsewhere(mine: TimeZone) -> PersonZone? {
        guard let zone else { return nil }
        let midnight = TimeOfDay(hour: 0, minute: 0)!
        guard let theirs = FireTime.instant(on: date, at: midnight, in: zone.timeZone),
            let yours = FireTime.instant(on: date, at: midnight, in: mine)
        else { return nil }
        return theirs == yours ? nil : zone
    }

    /// The calendar of the date; `nil` for a Gregorian date.
    public var calendar: CalendarSystem? { calendarDate?.calendar }

    /// Whether it is a round birthday: a birthday (not an anniversary, not a
    /// memorial) whose age is known and is 18, a multiple of 10, or 100 or
    /// more, in the years of its own calendar.
    public var isRound: Bool {
        guard kind == .birthday, !memorial, let age else { return false }
        return Self.isRound(age: age)
    }

    /// Whether turning `age` is a round birthday: 18, a multiple of 10, or 100 and more.
    public static func isRound(age: Int) -> Bool {
        age > 0 && (age == 18 || age % 10 == 0 || age >= 100)
    }

    /// The order of upcoming events: soonest first; on the same day
    /// birthdays before anniversaries, then by name, then by id, then
    /// Gregorian dates before other calendars (by name), so the order never
    /// depends on how the store returned the rows.
    public static func precedes(_ a: Occurrence, _ b: Occurrence) -> Bool {
        if a.daysUntil != b.daysUntil { return a.daysUntil < b.daysUntil }
        if a.kind != b.kind { return a.kind < b.kind }
        if a.name != b.name { return a.name < b.name }
        if a.personID != b.personID { return a.personID < b.personID }
        return a.calendarRank < b.calendarRank
    }

    /// "" for a Gregorian date, else the calendar's name: Gregorian first;
    /// for a labelled date its label's key.
    package var calendarRank: String { labelled.map { $0.key + " " + String(labelOrdinal) } ?? calendarDate?.calendar.rawValue ?? "" }
}

/// Which events come next: the same events that get reminders
/// (``Settings/treatment(of:for:)``), so excluded people, anniversaries
/// while they are off, and deceased people under `deceased skip` are not
/// listed, and a deceased person's birthday under `deceased remember` is
/// listed as a ``Occurrence/memorial``.
public struct UpcomingEvents: Sendable {
    public var today: LocalDate
    public var leapDay: LeapDayPolicy
    /// Whether anniversaries are listed next to birthdays.
    public var includeAnniversaries: Bool
    /// What the dates of deceased people do.
    public var deceased: DeceasedPolicy

    /// Which labelled dates are listed (``LabelRules``).
    public var labels: LabelRules
    /// The name-day lists people get their name days from and the user's choices (``NameDaySetup``), and
    /// the label those carry ("Name day" in the language of the `language` setting).
    public var nameDays = NameDaySetup()
    public var nameDayLabel = "Name day"

    public init(
        today: LocalDate,
        leapDay: LeapDayPolicy = .feb28,
        includeAnniversaries: Bool = true,
        deceased: DeceasedPolicy = .skip,
        labels: LabelRules = LabelRules()
    ) {
        self.today = today
        self.leapDay = leapDay
        self.includeAnniversaries = includeAnniversaries
        self.deceased = deceased
        self.labels = labels
    }

    /// The upcoming events under `settings` (leap day, anniversaries, deceased, labelled dates), with
    /// the name days of `nameDays` (the lists `settings` names, read from the store).
    public init(today: LocalDate, settings: Settings, nameDays: NameDaySetup) {
        self.init(
            today: today,
            leapDay: settings.leapDay,
            includeAnniversaries: settings.anniversaries,
            deceased: settings.deceased,
            labels: settings.labelRules
        )
        self.nameDays = nameDays
        nameDayLabel = LabelRules.nameDayLabel(language: settings.language)
    }

    /// The rules that decide which dates are listed (the reminder days do not matter here).
    public var rules: TreatmentRules { TreatmentRules(anniversaries: includeAnniversaries, deceased: deceased, labels: labels) }

    /// How the `kind` date of someone with `traits` is kept; `nil` when it is not listed.
    public func treatment(of kind: EventKind, for traits: PersonTraits) -> EventTreatment? {
        rules.treatment(of: kind, for: traits)
    }

    /// The occurrences of `person`'s dates on or after today that are listed:
    /// the Gregorian ones, then those in other calendars. A date in another
    /// calendar follows the rules of its kind, except that it is never a
    /// memorial: under `deceased remember` only the Gregorian birthday is kept.
    public func occurrences(of person: Person) -> [Occurrence] {
        var result: [Occurrence] = []
        let traits = PersonTraits(person)
        for kind in EventKind.allCases {
            guard let date = person.date(of: kind), let treatment = treatment(of: kind, for: traits) else { continue }
            result.append(
                occurrence(of: date, kind: kind, personID: person.id, name: person.name, memorial: treatment.memorial, zone: treatment.zone)
            )
        }
        for alternate in person.alternateDates {
            guard let treatment = treatment(of: alternate.kind, for: traits), !treatment.memorial,
                let next = alternate.date.nextOccurrence(onOrAfter: today)
            else { continue }
            result.append(
                occurrence(of: alternate.date, next: next, kind: alternate.kind, personID: person.id, name: person.name, zone: treatment.zone)
            )
        }
        let nameDayEvents = nameDays.events(of: person, label: nameDayLabel)
        for (labelled, ordinal) in LabelledDate.withOrdinals(person.labelledDates) + nameDayEvents.map({ ($0, 1) }) {
            guard let treatment = rules.treatment(of: labelled, for: traits) else { continue }
            result.append(occurrence(of: labelled, ordinal: ordinal, personID: person.id, name: person.name, zone: treatment.zone))
        }
        return result
    }

    /// The occurrence of a labelled date on or after today; its years are
    /// an age or a count of years (``LabelledDate/isBirthday``).
    public func occurrence(of labelled: LabelledDate, ordinal: Int, personID: String, name: String, zone: PersonZone? = nil) -> Occurrence {
        var occurrence = occurrence(of: labelled.date, kind: .labelled, personID: personID, name: name, zone: zone)
        occurrence.labelled = labelled
        occurrence.labelOrdinal = ordinal
        return occurrence
    }

    /// The occurrence `next` of a date in another calendar.
    public func occurrence(
        of date: CalendarDate,
        next: CalendarDate.Occurrence,
        kind: EventKind,
        personID: String,
        name: String,
        zone: PersonZone? = nil
    ) -> Occurrence {
        Occurrence(
            personID: personID,
            name: name,
            kind: kind,
            date: next.date,
            eventDate: nil,
            calendarDate: date,
            age: date.age(inYear: next.year),
            daysUntil: today.days(to: next.date),
            zone: zone
        )
    }

    /// The occurrence of one date on or after today.
    public func occurrence(
        of date: EventDate,
        kind: EventKind,
        personID: String,
        name: String,
        memorial: Bool = false,
        zone: PersonZone? = nil
    ) -> Occurrence {
        let next = date.nextOccurrence(onOrAfter: today, leapDay: leapDay)
        return Occurrence(
            personID: personID,
            name: name,
            kind: kind,
            date: next,
            eventDate: date,
            calendarDate: nil,
            age: date.age(in: next.year),
            daysUntil: today.days(to: next),
            memorial: memorial,
            zone: zone
        )
    }

    /// Upcoming events of `people`, soonest first (see ``Occurrence/precedes(_:_:)``).
    ///
    /// - Parameters:
    ///   - withinDays: keep events at most this many days away (0 = today only).
    ///   - limit: keep at most this many; selected with a bounded heap, so a
    ///     small limit over many people does not sort them all.
    public func list(_ people: some Sequence<Person>, withinDays: Int? = nil, limit: Int? = nil) -> [Occurrence] {
        var selector = NearestSelector(limit: limit)
        for person in people {
            for occurrence in occurrences(of: person) {
                if let withinDays, occurrence.daysUntil > withinDays { continue }
                selector.insert(occurrence)
            }
        }
        return selector.sorted()
    }
}

/// `upcoming`'s fold over the store's walk of everyone's events
/// (``PersonEvent``): the occurrences of the events the walk yields that fall
/// within `withinDays` of ``UpcomingEvents/today``, the nearest `limit` of
/// them; a person is read (`identity`) only for an event it keeps. A name
/// day is labelled ``UpcomingEvents/nameDayLabel``; people who share a date
/// in another calendar share its computation.
package struct UpcomingFold {
    package let upcoming: UpcomingEvents
    private let withinDays: Int?
    private let names: NameStyle
    private var selector: NearestSelector
    private var occurrences: CalendarOccurrences

    package init(_ upcoming: UpcomingEvents, withinDays: Int? = nil, limit: Int? = nil, names: NameStyle = .full) {
        self.upcoming = upcoming
        self.withinDays = withinDays
        self.names = names
        selector = NearestSelector(limit: limit)
        occurrences = CalendarOccurrences(today: upcoming.today)
    }

    /// Keeps `event` when it falls within the days.
    package mutating func take(_ event: PersonEvent, _ identity: () -> PersonEvent.Identity) {
        let today = upcoming.today
        switch event.date {
        case .gregorian(let date, let kind):
            let next = date.nextOccurrence(onOrAfter: today, leapDay: upcoming.leapDay)
            if let withinDays, today.days(to: next) > withinDays { return }
            let (id, name, nickname) = identity()
            selector.insert(
                upcoming.occurrence(
                    of: date,
                    kind: kind,
                    personID: id,
                    name: names.pick(name: name, nickname: nickname),
                    memorial: event.treatment.memorial,
                    zone: event.treatment.zone
                )
            )
        case .otherCalendar(let alternate):
            guard let next = occurrences.next(alternate.date) else { return }
            if let withinDays, today.days(to: next.date) > withinDays { return }
            let (id, name, nickname) = identity()
            selector.insert(
                upcoming.occurrence(
                    of: alternate.date,
                    next: next,
                    kind: alternate.kind,
                    personID: id,
                    name: names.pick(name: name, nickname: nickname),
                    zone: event.treatment.zone
                )
            )
        case .labelled, .nameDay:
            guard let (labelled, ordinal) = event.labelled(nameDayLabel: upcoming.nameDayLabel) else { return }
            let next = labelled.date.nextOccurrence(onOrAfter: today, leapDay: upcoming.leapDay)
            if let withinDays, today.days(to: next) > withinDays { return }
            let (id, name, nickname) = identity()
            selector.insert(
                upcoming.occurrence(
                    of: labelled,
                    ordinal: ordinal,
                    personID: id,
                    name: names.pick(name: name, nickname: nickname),
                    zone: event.treatment.zone
                )
            )
        }
    }

    /// The occurrences kept, soonest first (``Occurrence/precedes(_:_:)``).
    package func sorted() -> [Occurrence] { selector.sorted() }
}

/// Keeps the `limit` smallest occurrences seen (all of them without a limit)
/// in a ``BoundedHeap``, so selecting k of n costs O(n log k).
package struct NearestSelector {
    /// An occurrence ordered by ``Occurrence/precedes(_:_:)``.
    private struct Ranked: Comparable {
        let occurrence: Occurrence
        static func < (lhs: Ranked, rhs: Ranked) -> Bool { Occurrence.precedes(lhs.occurrence, rhs.occurrence) }
        static func == (lhs: Ranked, rhs: Ranked) -> Bool { lhs.occurrence == rhs.occurrence }
    }

    private var heap: BoundedHeap<Ranked>?
    private var all: [Occurrence] = []

    package init(limit: Int?) {
        heap = limit.map { BoundedHeap(capacity: $0) }
    }

    package mutating func insert(_ item: Occurrence) {
        if heap != nil { heap?.insert(Ranked(occurrence: item)) } else { all.append(item) }
    }

    /// The selection in ``Occurrence/precedes(_:_:)`` order. Without a limit,
    /// sorts indices on an integer key (day, then kind) and compares names
    /// only on ties, so thousands of occurrences are not moved while sorting.
    package func sorted() -> [Occurrence] {
        if let heap { return heap.sorted().map(\.occurrence) }
        let keys = all.map { $0.daysUntil &* 3 &+ $0.kind.rank }
        // The tie-breakers apart too: reading them through `all[a]` copied the whole occurrence for each comparison.
        let names = all.map(\.name)
        let ids = all.map(\.personID)
        let order = all.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            if names[a] != names[b] { return names[a] < names[b] }
            if ids[a] != ids[b] { return ids[a] < ids[b] }
            return all[a].calendarRank < all[b].calendarRank
        }
        return order.map { all[$0] }
    }
}

extension Occurrence {
    /// The same event without its age (a share that refuses ages).
    package var withoutAge: Occurrence {
        Occurrence(
            personID: personID,
            name: name,
            kind: kind,
            date: date,
            eventDate: eventDate,
            calendarDate: calendarDate,
            age: nil,
            daysUntil: daysUntil,
            memorial: memorial,
            zone: zone,
            labelled: labelled,
            labelOrdinal: labelOrdinal
        )
    }
}
