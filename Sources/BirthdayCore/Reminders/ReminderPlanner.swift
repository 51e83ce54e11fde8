import Foundation

/// Chooses which reminders to schedule: the soonest 64 future requests of
/// all upcoming birthdays and anniversaries (pure; no I/O).
///
/// Every event (a person's birthday, or anniversary when those are on) has
/// its next occurrence on or after today (``EventDate/nextOccurrence(onOrAfter:leapDay:)``,
/// so Feb 29 follows the leap-day setting) and yields up to two requests:
/// the day-of at the delivery time, and (when the day-before setting is on)
/// the day before at the delivery time. A request whose fire instant is not
/// in the future is skipped: the day-before of today's event, today's
/// day-of once the delivery time has passed, and tomorrow's day-before then too.
///
/// Requests are ranked by ``NotificationRequest/firesBefore(_:_:)`` (fire
/// instant, then the event's day, kind, person id, timing) and the first
/// ``NotificationRequest/pendingLimit`` are kept with a bounded heap, so
/// selecting 64 of n people costs O(n log 64) and reads names only for
/// rows that may be kept. When everyone gets two reminders, that is the 32
/// nearest people; skipped requests leave room for people further away.
package struct ReminderPlanner {
    /// A candidate request before its instant and words are computed.
    struct Slot: Comparable {
        /// Day number of the day it fires (the event's day, or the day before).
        var fireDay: Int
        /// Day number of the event's occurrence.
        var eventDay: Int
        var kind: EventKind
        var timing: NotificationRequest.Timing
        var personID: String
        var name: String
        var date: EventDate
        var occurrence: LocalDate

        /// The same order as ``NotificationRequest/firesBefore(_:_:)``: one
        /// delivery time a day makes the fire instant increase with `fireDay`.
        static func < (a: Slot, b: Slot) -> Bool {
            if a.fireDay != b.fireDay { return a.fireDay < b.fireDay }
            if a.eventDay != b.eventDay { return a.eventDay < b.eventDay }
            if a.kind != b.kind { return a.kind < b.kind }
            if a.personID != b.personID { return a.personID < b.personID }
            return a.timing < b.timing
        }

        static func == (a: Slot, b: Slot) -> Bool {
            a.fireDay == b.fireDay && a.eventDay == b.eventDay && a.kind == b.kind && a.personID == b.personID && a.timing == b.timing
        }
    }

    let settings: Settings
    let timeZone: TimeZone
    let now: Date
    /// The language of the titles and bodies.
    let localizer: Localizer
    let today: LocalDate
    private let todayNumber: Int
    /// The first day number whose delivery time is still ahead: today, or tomorrow once it has passed.
    private let firstFireDay: Int
    private var heap: BoundedHeap<Slot>

    package init(
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        localizer: Localizer = .english,
        capacity: Int = NotificationRequest.pendingLimit
    ) {
        self.settings = settings
        self.timeZone = timeZone
        self.now = now
        self.localizer = localizer
        today = LocalDate.today(at: now, in: timeZone)
        todayNumber = today.dayNumber
        let todayFire = FireTime.instant(on: today, at: settings.deliveryTime, in: timeZone)
        firstFireDay = todayFire.map { $0 > now } == true ? todayNumber : todayNumber + 1
        heap = BoundedHeap(capacity: capacity)
    }

    /// Considers one event; `identity` (id and name) is read only when the event may be kept.
    package mutating func offer(_ date: EventDate, kind: EventKind, identity: () -> (id: String, name: String)) {
        let occurrence = date.nextOccurrence(onOrAfter: today, leapDay: settings.leapDay)
        let eventDay = occurrence.dayNumber
        var identityRead: (String, String)?
        for timing in [NotificationRequest.Timing.dayBefore, .dayOf] {
            if timing == .dayBefore && !settings.dayBefore { continue }
            let fireDay = timing == .dayOf ? eventDay : eventDay - 1
            guard fireDay >= firstFireDay else { continue }
            // Cheap rejection on the integer part of the order before reading any text.
            if heap.isFull, let last = heap.max, (fireDay, eventDay, kind.rank) > (last.fireDay, last.eventDay, last.kind.rank) { continue }
            let (id, name) = identityRead ?? identity()
            identityRead = (id, name)
            heap.insert(
                Slot(fireDay: fireDay, eventDay: eventDay, kind: kind, timing: timing, personID: id, name: name, date: date, occurrence: occurrence)
            )
        }
    }

    /// The chosen requests, soonest first, with their instants and words
    /// (the words are made only for the requests kept).
    package func requests() -> [NotificationRequest] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var result: [NotificationRequest] = []
        for slot in heap.sorted() {
            let fireDay = LocalDate(dayNumber: slot.fireDay)
            guard let fireAt = FireTime.instant(on: fireDay, at: settings.deliveryTime, calendar: calendar), fireAt > now else { continue }
            let content = NotificationContent.make(
                name: slot.name,
                kind: slot.kind,
                timing: slot.timing,
                age: slot.date.age(in: slot.occurrence.year),
                in: localizer
            )
            result.append(
                NotificationRequest(
                    personID: slot.personID,
                    kind: slot.kind,
                    timing: slot.timing,
                    fireAt: fireAt,
                    occurrenceDate: slot.occurrence,
                    title: content.title,
                    body: content.body
                )
            )
        }
        return result.sorted(by: NotificationRequest.firesBefore)
    }
}

extension EventKind {
    /// Birthdays before anniversaries, as an integer for cheap comparisons.
    var rank: Int { self == .birthday ? 0 : 1 }
}
