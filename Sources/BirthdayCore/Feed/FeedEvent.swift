/// One date of the birthday calendar: an event of the store's one walk over
/// everyone's dates (``PersonEvent``: which date it is and how it is kept),
/// with what the feed says of its person. The feed, `export` and `publish`
/// build their events from these (``CalendarEventPlan``), so they hold the
/// dates `upcoming` and the reminders hold, decided in one place.
public struct FeedEvent: Sendable, Hashable {
    public var person: FeedPerson
    public var event: PersonEvent

    public init(person: FeedPerson, event: PersonEvent) {
        self.person = person
        self.event = event
    }

    /// The events of `people` under `rules`, for callers that hold people
    /// as values (the tests, the benchmarks): their birthday and
    /// anniversary, their dates in other calendars (never a memorial), then
    /// their labelled dates (name days among them) with their ordinals. The
    /// store's walk yields the same for the same people.
    public static func events(of people: [Person], rules: TreatmentRules) -> [FeedEvent] {
        var events: [FeedEvent] = []
        events.reserveCapacity(people.count)
        for person in people {
            let traits = PersonTraits(person)
            let who = FeedPerson(id: person.id, name: person.name, nickname: person.nickname, note: person.note, deathDate: person.deathDate)
            var dates: [PersonEvent.Date] = []
            for kind in [EventKind.birthday, .anniversary] {
                if let date = person.date(of: kind) { dates.append(.gregorian(date, kind)) }
            }
            dates += person.alternateDates.map { .otherCalendar($0) }
            dates += LabelledDate.withOrdinals(person.labelledDates).map { .labelled($0, ordinal: $1) }
            for date in dates {
                guard let treatment = rules.treatment(of: date, for: traits) else { continue }
                events.append(FeedEvent(person: who, event: PersonEvent(date: date, treatment: treatment)))
            }
        }
        return events
    }
}

/// What the calendar's events say of their person: the id their UIDs are
/// made from, the name or nickname of their titles (``Settings/names``), the
/// note of their descriptions (under ``Settings/notesOnChannels`` only), and
/// the death date a memorial carries (`X-BIRTHDAYS-DEATHDATE`).
public struct FeedPerson: Sendable, Hashable {
    public var id: String
    public var name: String
    public var nickname: String
    public var note: String?
    public var deathDate: String?

    public init(id: String, name: String, nickname: String = "", note: String? = nil, deathDate: String? = nil) {
        self.id = id
        self.name = name
        self.nickname = nickname
        self.note = note
        self.deathDate = deathDate
    }
}
