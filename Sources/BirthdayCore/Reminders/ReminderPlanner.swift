import Foundation

/// Chooses which reminders to schedule: the soonest 64 future requests of
/// all upcoming birthdays and anniversaries (pure; no I/O).
///
/// Every event that gets reminders (``Settings/treatment(of:for:)``: not
/// excluded, anniversaries only when those are on, deceased people per the
/// `deceased` setting) has its next occurrence on or after today
/// (``EventDate/nextOccurrence(onOrAfter:leapDay:)``, so Feb 29 follows the
/// leap-day setting) and yields one request per reminder day of its
/// treatment (``ReminderDays``, default the day before and the day of), each
/// at the delivery time on its day. A request whose fire instant is not in
/// the future is skipped, whatever its lead: the day-before of today's event,
/// today's day-of once the delivery time has passed, and tomorrow's
/// day-before then too; a week-ahead reminder of an event five days away.
///
/// A date in another calendar (``offer(_:kind:treatment:identity:)`` given a ``CalendarDate``) is
/// an event of its own, with its own requests (ids with the calendar in
/// them), its next occurrence from ``CalendarDate/nextOccurrence(onOrAfter:)``
/// and its age in that calendar's years; it competes for the same 64 places.
///
/// A round birthday (``Occurrence/isRound(age:)``: 18, a multiple of 10, or
/// 100 and more, the age known) gets one more request `round-birthdays` days
/// ahead (default 14; id suffix `round`), with its own words ("A round
/// birthday ahead"); not when a reminder day already fires that day, not for
/// anniversaries or memorials. It follows the same rules (weekend, past, cap).
///
/// Requests are ranked by ``NotificationRequest/firesBefore(_:_:)`` (fire
/// instant, then the event's day, kind, person id, timing) and the first
/// ``NotificationRequest/pendingLimit`` are kept with a bounded heap, so
/// selecting 64 of n people costs O(n log 64) and reads names only for
/// rows that may be kept. When everyone gets two reminders, that is the 32
/// nearest people; skipped requests leave room for people further away, and
/// with `7,1,0` the 64 are the soonest of all three kinds of reminder.
///
/// ## Someone in another time zone
/// A person with a zone of their own (``EventTreatment/zone``, never a
/// memorial) has the day-of reminder of a Gregorian or other-calendar date
/// at the moment ``ZonedDayOf`` gives: the first moment of their day, in
/// their zone, at or after the delivery time and before `quiet-after` on the
/// user's clock (a friend in Tokyo is reminded at 16:00 the day before, in
/// Berlin). Their other reminder days count back from the local day of that
/// moment, at the delivery time. The request carries the zone
/// (``NotificationRequest/zone``) so the ledger judges it again in the zone
/// in force when it comes due; a day-of reminder sent during their day says
/// so (``ReminderSubject/TheirDay``). The ranking uses the real instant,
/// so a 16:00 reminder comes after the 09:00 ones of the same day.
///
/// ## Weekends moved to Friday
/// A person with ``WeekendRule/friday`` (``EventTreatment/weekend``; never a
/// memorial) has every request whose fire day is a Saturday or a Sunday
/// fire on the Friday before instead, at the delivery time (``FireTime``'s
/// rules on that Friday, so a DST change between them does not matter). The
/// request keeps its id (`<personID>-birthday-dayof`), its timing and its
/// occurrence date; it carries the day it fires on
/// (``NotificationRequest/movedTo``), which the ledger judges it by, and
/// its words are those of the real distance from that Friday: a day-of
/// reminder for a Sunday says "in 2 days", never "today". The move happens
/// before anything else, so the ranking and the 64 places use the Friday,
/// and a moved request whose Friday instant is not in the future is skipped
/// like any other. When two requests of one event land on the same Friday
/// (the day-before of a Sunday birthday, on Saturday, and its day-of), only
/// the nearer timing is kept (the day-of): one message, not two the same day.
package struct ReminderPlanner {
    /// A candidate request before its instant and words are computed.
    struct Slot: Comparable {
        /// Day number of the day it fires (the event's day, or the day before).
        var fireDay: Int
        /// Minutes after midnight it fires at, on the user's clock: the
        /// delivery time, or a zoned day-of reminder's own time.
        var minute: Int
        /// Day number of the event's occurrence.
        var eventDay: Int
        var kind: EventKind
        var timing: NotificationRequest.Timing
        var personID: String
        var name: String
        /// The age turned (or years married) on the occurrence.
        var age: Int?
        var occurrence: LocalDate
        /// The date's calendar; `nil` for a Gregorian date.
        var calendar: CalendarSystem?
        var memorial: Bool
        /// The days between the zoned local day (or the event's day) and
        /// the Friday a weekend rule moved the request to; `nil` when not moved.
        var movedLead: Int?
        /// The person's zone, and the moment of their day-of reminder when it is elsewhere.
        var zone: PersonZone?
        var zoned: ZonedDayOf?
        /// The instant of a zoned day-of reminder; `nil` is the delivery time on ``fireDay``.
        var exact: Date?
        /// A labelled date's label and its ordinal among the person's of that label; `nil` for the other kinds.
        var labelled: LabelledDate? = nil
        var labelOrdinal = 1

        /// The label's key and ordinal, compared last (like the calendar).
        var labelRank: String { labelled.map { $0.key + " " + String(labelOrdinal) } ?? "" }

        /// The same order as ``NotificationRequest/firesBefore(_:_:)``: one
        /// delivery time a day makes the fire instant increase with `fireDay`;
        /// the calendar last, as in the ids (Gregorian first, then by name).
        static func < (a: Slot, b: Slot) -> Bool {
            if a.fireDay != b.fireDay { return a.fireDay < b.fireDay }
            if a.minute != b.minute { return a.minute < b.minute }
            if a.eventDay != b.eventDay { return a.eventDay < b.eventDay }
            if a.kind != b.kind { return a.kind < b.kind }
            if a.personID != b.personID { return a.personID < b.personID }
            if a.timing != b.timing { return a.timing < b.timing }
            if a.calendar != b.calendar { return (a.calendar?.rawValue ?? "") < (b.calendar?.rawValue ?? "") }
            return a.labelRank < b.labelRank
        }

        static func == (a: Slot, b: Slot) -> Bool {
            a.fireDay == b.fireDay && a.minute == b.minute && a.eventDay == b.eventDay && a.kind == b.kind && a.personID == b.personID
                && a.timing == b.timing
                && a.calendar == b.calendar && a.labelRank == b.labelRank
        }
    }

    let settings: Settings
    let timeZone: TimeZone
    let now: Date
    /// The words of each request kept: its title and body (BirthdayText's `NotificationContent`).
    let words: (ReminderSubject) -> (title: String, body: String)
    /// A name day's label in the words' language (``PersonEvent/labelled(nameDayLabel:)``).
    private let nameDayLabel: String
    let today: LocalDate
    private let todayNumber: Int
    /// The first day number whose delivery time is still ahead: today, or tomorrow once it has passed.
    private let firstFireDay: Int
    private let deliveryMinute: Int
    private var heap: BoundedHeap<Slot>
    /// Once the heap is full, the integer part of the order of its largest
    /// slot: a candidate past it is dropped without copying a slot or reading a name.
    private var rejectAbove: (fireDay: Int, minute: Int, eventDay: Int, rank: Int)?
    /// Next occurrences of dates in other calendars, shared by the people who have the same one.
    private var calendarOccurrences: CalendarOccurrences
    /// The day-of moments already worked out, by zone and day: people who
    /// share a zone and a birthday share one (with its minute on your clock).
    private var moments: [ZonedKey: (moment: ZonedDayOf, minute: Int)?] = [:]
    /// A Gregorian calendar in the user's zone, and one in each person's zone met so far.
    private let myCalendar: Calendar
    private var zoneCalendars: [String: Calendar] = [:]

    package init(
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        capacity: Int = NotificationRequest.pendingLimit,
        nameDayLabel: String = LabelRules.nameDayLabels[0],
        words: @escaping (ReminderSubject) -> (title: String, body: String)
    ) {
        self.settings = settings
        self.timeZone = timeZone
        self.now = now
        self.words = words
        self.nameDayLabel = nameDayLabel
        today = LocalDate.today(at: now, in: timeZone)
        todayNumber = today.dayNumber
        firstFireDay = FireTime.firstDay(at: now, time: settings.deliveryTime, in: timeZone).dayNumber
        deliveryMinute = settings.deliveryTime.minutesSinceMidnight
        myCalendar = ZonedDayOf.gregorian(timeZone)
        heap = BoundedHeap(capacity: capacity)
        calendarOccurrences = CalendarOccurrences(today: today)
    }

    /// Considers one event of the store's walk (``PersonEvent``), kept as
    /// its treatment says; a name day under its label in the reminders'
    /// language; `identity` is read only when the event may be kept.
    package mutating func offer(_ event: PersonEvent, identity: () -> PersonEvent.Identity) {
        switch event.date {
        case .gregorian(let date, let kind): offer(date, kind: kind, treatment: event.treatment, identity: identity)
        case .otherCalendar(let alternate): offer(alternate.date, kind: alternate.kind, treatment: event.treatment, identity: identity)
        case .labelled, .nameDay:
            guard let (labelled, ordinal) = event.labelled(nameDayLabel: nameDayLabel) else { return }
            offer(labelled, ordinal: ordinal, treatment: event.treatment, identity: identity)
        }
    }

    /// Considers one event, kept as `treatment` says (its reminder days, and
    /// whether it is in memory of someone); `identity` (id, name and
    /// nickname) is read only when the event may be kept.
    package mutating func offer(
        _ date: EventDate,
        kind: EventKind,
        treatment: EventTreatment,
        identity: () -> (id: String, name: String, nickname: String)
    ) {
        let occurrence = date.nextOccurrence(onOrAfter: today, leapDay: settings.leapDay)
        offer(occurrence: occurrence, age: { date.age(in: occurrence.year) }, calendar: nil, kind: kind, treatment: treatment, identity: identity)
    }

    /// Considers one date in another calendar, an event of its own, kept as
    /// `treatment` says (never a memorial: see ``UpcomingEvents/occurrences(of:)``).
    package mutating func offer(
        _ date: CalendarDate,
        kind: EventKind,
        treatment: EventTreatment,
        identity: () -> (id: String, name: String, nickname: String)
    ) {
        guard !treatment.memorial, let next = calendarOccurrences.next(date) else { return }
        offer(
            occurrence: next.date,
            age: { date.age(inYear: next.year) },
            calendar: date.calendar,
            kind: kind,
            treatment: treatment,
            identity: identity
        )
    }

    /// Considers one labelled date (``LabelledDate``), an event of its own
    /// with its label's words and ids (``NotificationRequest/identifier(personID:kind:timing:calendar:labelID:)``),
    /// `ordinal` among the person's dates of that label; kept as `treatment` says.
    package mutating func offer(
        _ labelled: LabelledDate,
        ordinal: Int,
        treatment: EventTreatment,
        identity: () -> (id: String, name: String, nickname: String)
    ) {
        let occurrence = labelled.date.nextOccurrence(onOrAfter: today, leapDay: settings.leapDay)
        offer(
            occurrence: occurrence,
            age: { labelled.date.age(in: occurrence.year) },
            calendar: nil,
            kind: .labelled,
            treatment: treatment,
            identity: identity,
            labelled: (labelled, ordinal)
        )
    }

    private mutating func offer(
        occurrence: LocalDate,
        age: () -> Int?,
        calendar: CalendarSystem?,
        kind: EventKind,
        treatment: EventTreatment,
        identity: () -> (id: String, name: String, nickname: String),
        labelled: (date: LabelledDate, ordinal: Int)? = nil
    ) {
        let eventDay = occurrence.dayNumber
        var identityRead: (String, String)?
        // Someone in another zone: the day-of moment on the user's clock, and the local day the others count back from.
        let zone = treatment.memorial ? nil : treatment.zone
        let zonedAt = zone.flatMap { moment(of: occurrence, in: $0) }
        let zoned = zonedAt?.moment
        let baseDay = zoned?.localDay.dayNumber ?? eventDay
        // A round birthday's early reminder, after the reminder days (so a day one of them has is not used twice).
        var round: NotificationRequest.Timing?
        if kind == .birthday, !treatment.memorial, let lead = settings.roundBirthdays, let turning = age(), Occurrence.isRound(age: turning) {
            round = NotificationRequest.Timing(daysBefore: lead, round: true)
        }
        // The fire days already given to a nearer reminder of this event: only a weekend move or
        // a round birthday's lead can give two timings one day (the reminder days are distinct).
        let tracksTaken = round != nil || (treatment.weekend != nil && !treatment.memorial)
        var taken: [Int] = []
        let days = treatment.reminderDays.days
        // Nearest first (the days are kept largest first), so a duplicate after a weekend move is the
        // further one; no array of timings is made per event (this loop runs for every dated row).
        for index in 0..<(days.count + (round == nil ? 0 : 1)) {
            let timing = index < days.count ? NotificationRequest.Timing(daysBefore: days[days.count - 1 - index]) : round!
            let daysBefore = timing.daysBefore
            var fireDay = baseDay - daysBefore
            var exact = timing == .dayOf && zoned?.elsewhere == true ? zoned?.instant : nil
            var movedLead: Int?
            if let rule = treatment.weekend, !treatment.memorial {
                let moved = rule.fireDay(forDayNumber: fireDay)
                if moved != fireDay {
                    fireDay = moved
                    movedLead = baseDay - moved
                    exact = nil
                }
            }
            if tracksTaken {
                if taken.contains(fireDay) { continue }
                taken.append(fireDay)
            }
            if let exact {
                guard exact > now else { continue }
            } else {
                guard fireDay >= firstFireDay else { continue }
            }
            let minute = exact != nil ? zonedAt?.minute ?? deliveryMinute : deliveryMinute
            // Cheap rejection on the integer part of the order before reading any text.
            if let last = rejectAbove, (fireDay, minute, eventDay, kind.rank) > last { continue }
            let (id, name) =
                identityRead
                ?? {
                    let read = identity()
                    return (read.id, settings.names.pick(name: read.name, nickname: read.nickname))
                }()
            identityRead = (id, name)
            heap.insert(
                Slot(
                    fireDay: fireDay,
                    minute: minute,
                    eventDay: eventDay,
                    kind: kind,
                    timing: timing,
                    personID: id,
                    name: name,
                    age: age(),
                    occurrence: occurrence,
                    calendar: calendar,
                    memorial: treatment.memorial,
                    movedLead: movedLead,
                    zone: zone,
                    zoned: zoned,
                    exact: exact,
                    labelled: labelled?.date,
                    labelOrdinal: labelled?.ordinal ?? 1
                )
            )
            if heap.isFull { rejectAbove = heap.max.map { ($0.fireDay, $0.minute, $0.eventDay, $0.kind.rank) } }
        }
    }

    /// The day-of moment of a birthday on `day` for someone in `zone`
    /// (``ZonedDayOf``), and its minute on your clock, worked out once per zone and day.
    private mutating func moment(of day: LocalDate, in zone: PersonZone) -> (moment: ZonedDayOf, minute: Int)? {
        let key = ZonedKey(zone: zone.storedValue, day: day.dayNumber)
        if let known = moments[key] { return known }
        let theirs = zoneCalendars[zone.storedValue] ?? ZonedDayOf.gregorian(zone.timeZone)
        zoneCalendars[zone.storedValue] = theirs
        let found = ZonedDayOf.moment(of: day, theirs: theirs, mine: myCalendar, delivery: settings.deliveryTime, quietAfter: settings.quietAfter)
            .map { moment in
                let c = myCalendar.dateComponents([.hour, .minute], from: moment.instant)
                return (moment, (c.hour ?? 0) * 60 + (c.minute ?? 0))
            }
        moments[key] = .some(found)
        return found
    }

    /// The chosen requests, soonest first, with their instants and words
    /// (the words are made only for the requests kept).
    package func requests() -> [NotificationRequest] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var result: [NotificationRequest] = []
        for slot in heap.sorted() {
            let fireDay = LocalDate(dayNumber: slot.fireDay)
            guard let fireAt = slot.exact ?? FireTime.instant(on: fireDay, at: settings.deliveryTime, calendar: calendar), fireAt > now else {
                continue
            }
            // A reminder moved off a weekend says how far the event is from the day it fires on.
            let timing = slot.movedLead.map { NotificationRequest.Timing(daysBefore: $0, round: slot.timing.round) } ?? slot.timing
            // A zoned day-of reminder sent during their day says where it has begun, and since when here.
            let theirDay: ReminderSubject.TheirDay? = slot.exact == nil ? nil : slot.zoned.flatMap { self.theirDay(for: $0, zone: slot.zone) }
            let content = words(
                ReminderSubject(
                    name: slot.name,
                    kind: slot.kind,
                    timing: timing,
                    age: slot.age,
                    calendar: slot.calendar,
                    memorial: slot.memorial,
                    theirDay: theirDay,
                    labelled: slot.labelled
                )
            )
            result.append(
                NotificationRequest(
                    personID: slot.personID,
                    kind: slot.kind,
                    timing: slot.timing,
                    fireAt: fireAt,
                    occurrenceDate: slot.occurrence,
                    title: content.title,
                    body: content.body,
                    calendar: slot.calendar,
                    movedTo: slot.movedLead != nil ? fireDay : nil,
                    zone: slot.zone,
                    labelled: slot.labelled.map { ($0.label, $0.idPart(ordinal: slot.labelOrdinal)) }
                )
            )
        }
        return result.sorted(by: NotificationRequest.firesBefore)
    }

    /// The words' place and time for a zoned day-of reminder sent during their day.
    private func theirDay(for zoned: ZonedDayOf, zone: PersonZone?) -> ReminderSubject.TheirDay? {
        guard let zone, zoned.duringTheirDay else { return nil }
        let began = LocalDate.today(at: zoned.began, in: timeZone)
        return ReminderSubject.TheirDay(
            place: zone.displayName,
            since: FireTime.clock(of: zoned.began, in: timeZone),
            yesterday: began < zoned.localDay
        )
    }
}

/// A zone (its stored text) and a day number: the key of a worked-out day-of moment.
struct ZonedKey: Hashable {
    var zone: String
    var day: Int
}
