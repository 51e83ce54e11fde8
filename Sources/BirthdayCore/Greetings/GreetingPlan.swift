import Foundation

/// When a friend's greeting goes out (`birthdays greet`): at the
/// `greeting-time` setting (default 09:00) on their birthday, on **their**
/// clock, in their own zone.
///
/// ## The rules
/// - **Their zone**: the person's zone choice, else their card's `TZ`
///   (``Person/zone``, as reminders use it); a person without one (or with
///   `birthdays zone PERSON local`) is in the owner's zone.
/// - **The instant**: ``time`` on their birthday in that zone, with
///   ``FireTime``'s rules on a DST day: a time in a spring-forward gap comes
///   as far after the gap's start as it was meant to be (02:30 in
///   Europe/Berlin on the last Sunday of March is 03:30 CEST), a time that
///   occurs twice comes at its first occurrence.
/// - **Their day**: from its first moment to the first moment of the next
///   day in their zone (23 or 25 hours across a DST change). A greeting is on
///   time from its instant to ``lateAfter`` past it, late after that while
///   it is still their day (the machine was off: it is sent late), and
///   missed once their day has ended: it is never sent then.
/// - **February 29** follows the `leap-day` setting in common years
///   (``EventDate/occurrence(in:leapDay:)``): the greeting comes on Feb 28
///   (or Mar 1), never on a day that does not exist.
/// - **A missing year**: the greeting comes every year; it has no age.
///   A year in the future (a typo) has no greeting before that date.
public struct GreetingPlan: Hashable, Sendable {
    /// The default `greeting-time`: 09:00.
    public static let defaultTime = TimeOfDay(hour: 9, minute: 0)!

    /// The `greeting-time` setting, on the friend's clock.
    public var time: TimeOfDay
    /// Where Feb 29 falls in common years (the `leap-day` setting).
    public var leapDay: LeapDayPolicy
    /// How long after its instant a greeting still counts as on time (the delivery engine's late margin).
    public var lateAfter: Duration

    public init(time: TimeOfDay = GreetingPlan.defaultTime, leapDay: LeapDayPolicy = .feb28, lateAfter: Duration = .seconds(60)) {
        self.time = time
        self.leapDay = leapDay
        self.lateAfter = lateAfter
    }

    /// The plan under `settings`: their `greeting-time` and `leap-day`.
    public init(settings: Settings) {
        self.init(time: settings.greetingTime, leapDay: settings.leapDay)
    }

    /// One year's greeting of one friend.
    public struct Occurrence: Hashable, Sendable {
        /// Their birthday this year, on their calendar (Feb 29 moved in a common year).
        public let day: LocalDate
        /// When the greeting is due: ``GreetingPlan/time`` on ``day`` in their zone.
        public let instant: Date
        /// The first moment of ``day`` in their zone.
        public let begins: Date
        /// The first moment of the day after ``day`` in their zone: after it, the greeting is missed.
        public let ends: Date
        /// The age they turn, when the year is known; written only where a message asks for it (`{age}`).
        public let age: Int?
        /// The zone the day is theirs in.
        public let timeZone: TimeZone
    }

    /// What a due greeting is at a given instant.
    public enum Timing: Hashable, Sendable {
        /// Its instant has not come yet.
        case notYet
        /// From its instant to ``GreetingPlan/lateAfter`` past it: send it.
        case onTime
        /// Later, but still their day where they are: send it, late.
        case late
        /// Their day has ended: never send it.
        case missed
    }

    /// The zone a friend's day is theirs in: their zone choice or card zone
    /// (``Person/zone``), else `owner` (the owner's zone, `time-zone` or the system's).
    public static func zone(of person: Person, owner: TimeZone) -> TimeZone {
        person.zone?.timeZone ?? owner
    }

    /// The greeting of a birthday on `birthday` in `year`, in `zone`; `nil`
    /// when the birthday's known year lies after `year` (nothing before the
    /// date itself) or Foundation cannot represent the day.
    public func occurrence(of birthday: EventDate, in year: Int, zone: TimeZone) -> Occurrence? {
        if let born = birthday.year, born > year { return nil }
        return occurrence(on: birthday.occurrence(in: year, leapDay: leapDay), age: birthday.age(in: year), zone: zone)
    }

    /// The greeting of a birthday that falls on `day`, turning `age`, in
    /// `zone`; `nil` when Foundation cannot represent the day. The delivery
    /// engine judges a ledger row's greeting by it (its occurrence date is the day).
    public func occurrence(on day: LocalDate, age: Int?, zone: TimeZone) -> Occurrence? {
        let midnight = TimeOfDay(hour: 0, minute: 0)!
        guard let instant = FireTime.instant(on: day, at: time, in: zone),
            let begins = FireTime.instant(on: day, at: midnight, in: zone),
            let ends = FireTime.instant(on: day.adding(days: 1), at: midnight, in: zone)
        else { return nil }
        return Occurrence(day: day, instant: instant, begins: begins, ends: ends, age: age, timeZone: zone)
    }

    /// The next greeting of a birthday on `birthday` for someone in `zone`
    /// at `now`: the one of the first birthday whose day has not ended where
    /// they are (today's while it is still their birthday, even after its
    /// time: it is then due, late), passing over the years in `skipping`
    /// (`greet skip`: one year's greeting each).
    public func next(of birthday: EventDate, zone: TimeZone, at now: Date, skipping: Set<Int> = []) -> Occurrence? {
        next(of: birthday, today: LocalDate.today(at: now, in: zone), at: now, skipping: skipping) { day, age in
            occurrence(on: day, age: age, zone: zone)
        }
    }

    /// ``next(of:zone:at:skipping:)`` with `today` in the friend's zone
    /// given, and the greeting of a day (turning an age) in that zone made by `occurrence`.
    func next(
        of birthday: EventDate,
        today: LocalDate,
        at now: Date,
        skipping: Set<Int>,
        occurrence: (LocalDate, Int?) -> Occurrence?
    ) -> Occurrence? {
        var day = birthday.nextOccurrence(onOrAfter: today, leapDay: leapDay)
        // Skips are this year's and the next's at most: a few tries reach a year that is not skipped.
        for _ in 0..<(skipping.count + 2) {
            // As occurrence(of:in:zone:): nothing before a known year of birth.
            if !skipping.contains(day.year), birthday.year.map({ $0 <= day.year }) ?? true,
                let occurrence = occurrence(birthday.occurrence(in: day.year, leapDay: leapDay), birthday.age(in: day.year)),
                occurrence.ends > now
            {
                return occurrence
            }
            day = birthday.nextOccurrence(onOrAfter: LocalDate(unchecked: day.year + 1, 1, 1), leapDay: leapDay)
        }
        return nil
    }

    /// What `occurrence` is at `now`: not due yet, on time, late (still their day) or missed (their day has ended).
    public func timing(of occurrence: Occurrence, at now: Date) -> Timing {
        if now < occurrence.instant { return .notYet }
        if now >= occurrence.ends { return .missed }
        return now.timeIntervalSince(occurrence.instant) <= lateAfter.timeInterval ? .onTime : .late
    }

    /// What the delivery engine does with a greeting's ledger row at `now`:
    ///
    /// - the friend is no longer greeted (the greeting removed, or they are
    ///   excluded or deceased since: `greeting` is `nil`), or the year is
    ///   skipped (`greet skip`, `skipped`): it is dismissed, never sent;
    /// - before its instant it waits; on time or late while it is still
    ///   their day it is sent (``timing(of:at:)``); once their day has ended
    ///   it is missed, never sent;
    /// - a retry stops at the end of their day (``DueDecision/expire``).
    ///
    /// `occurrence` is the greeting of the row's day in their zone; `nil`
    /// (a day Foundation cannot represent) is dismissed.
    public func decision(for entry: DeliveryEntry, occurrence: Occurrence?, greeted: Bool, skipped: Bool, now: Date) -> DueDecision {
        guard greeted else { return .dismiss(reason: "no longer greeted: the greeting was removed, or the friend is excluded or deceased") }
        if skipped { return .dismiss(reason: "skipped with birthdays greet skip") }
        guard let occurrence else { return .dismiss(reason: "its day cannot be represented in the friend's zone") }
        if entry.state == .retrying {
            return now >= occurrence.ends ? .expire : .deliver(late: entry.late || timing(of: occurrence, at: now) == .late)
        }
        switch timing(of: occurrence, at: now) {
        case .notYet: return .wait(until: occurrence.instant)
        case .onTime: return .deliver(late: false)
        case .late: return .deliver(late: true)
        case .missed: return .missed
        }
    }
}

extension GreetingPlan {
    /// Many friends' next greetings at one instant (a reschedule plans one
    /// per greeted friend): each the same as ``GreetingPlan/next(of:zone:at:skipping:)``,
    /// with each zone's today and each day's instants in each zone worked out
    /// once, as thousands of friends share a few hundred days (issue 44).
    public struct Batch {
        public let plan: GreetingPlan
        public let now: Date
        private var todays: [TimeZone: LocalDate] = [:]
        private var moments: [DayInZone: Moments?] = [:]

        private struct DayInZone: Hashable {
            var day: LocalDate
            var zone: TimeZone
        }

        private struct Moments {
            var instant: Date
            var begins: Date
            var ends: Date
        }

        public init(plan: GreetingPlan, now: Date) {
            self.plan = plan
            self.now = now
        }

        /// The next greeting of a birthday on `birthday` for someone in `zone`, passing over the years in `skipping`.
        public mutating func next(of birthday: EventDate, zone: TimeZone, skipping: Set<Int> = []) -> Occurrence? {
            let today = todays[zone] ?? LocalDate.today(at: now, in: zone)
            todays[zone] = today
            let plan = plan
            return plan.next(of: birthday, today: today, at: now, skipping: skipping) { day, age in
                let key = DayInZone(day: day, zone: zone)
                let known =
                    moments[key]
                    ?? plan.occurrence(on: day, age: nil, zone: zone).map { Moments(instant: $0.instant, begins: $0.begins, ends: $0.ends) }
                moments[key] = known
                return known.map { Occurrence(day: day, instant: $0.instant, begins: $0.begins, ends: $0.ends, age: age, timeZone: zone) }
            }
        }
    }

    /// The day of the friend's greeting that the owner's reminder `entry`
    /// may skip, or `nil`: a reminder of the Gregorian birthday itself (not
    /// another calendar's date, a labelled date, an anniversary, a digest
    /// or a room's message), the day before or on the day, whose birthday
    /// is `greetingDay`: the day of the greeting that has not gone yet
    /// (planned, due or being retried; `nil` when there is none, or it has gone).
    public static func skippable(_ entry: DeliveryEntry, greetingDay: LocalDate?) -> LocalDate? {
        guard let greetingDay, case .reminder(let occasion) = entry.deliveryKind, entry.kind == .birthday,
            occasion.calendar == nil, occasion.label == nil,
            entry.timing == .dayBefore || entry.timing == .dayOf, entry.occurrenceDate == greetingDay
        else { return nil }
        return greetingDay
    }
}

extension Greeting {
    /// What every greeting's pending request and ledger row id starts with.
    public static let idPrefix = "greet:"

    /// The pending request's id and the ledger's for the greeting of `personID`: `greet:ID`.
    public static func notificationID(personID: String) -> String { idPrefix + personID }
}

extension GreetingPlan.Occurrence {
    /// The pending request of this greeting to `personID` (``DeliveryKind/greeting(personID:)``),
    /// due at ``instant``, about ``day``; `title` and `body` are what `pending` shows.
    public func request(personID: String, title: String, body: String) -> NotificationRequest {
        var request = NotificationRequest(
            personID: personID,
            kind: .birthday,
            timing: .dayOf,
            fireAt: instant,
            occurrenceDate: day,
            title: title,
            body: body,
            deliveryKind: .greeting(personID: personID),
            userInfo: ["when": NotificationRequest.Timing.dayOf.rawValue, "occurrence": day.description]
        )
        request.id = Greeting.notificationID(personID: personID)
        return request
    }
}
