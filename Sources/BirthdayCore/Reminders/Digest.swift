import Foundation

/// How often a digest of the days ahead is sent: the `digest` setting.
public enum DigestFrequency: String, Sendable, CaseIterable, Codable {
    /// No digest (the default).
    case off
    /// Every week on the `digest-day`, listing that day and the six after it.
    case weekly
    /// On the 1st of every month, listing the whole month.
    case monthly
}

/// A day of the week, as the `digest-day` setting names it.
public enum Weekday: String, Sendable, CaseIterable, Codable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// ISO 8601's number: 1 for Monday to 7 for Sunday.
    public var isoNumber: Int { Self.allCases.firstIndex(of: self)! + 1 }

    /// The weekday `date` falls on.
    public init(of date: LocalDate) {
        // Day number 0 (1970-01-01) was a Thursday, ISO 4.
        let iso = ((date.dayNumber % 7) + 7 + 3) % 7 + 1
        self = Self.allCases[iso - 1]
    }

    /// Reads `monday` or `mon`, in any case; `nil` for anything else.
    public init?(parsing text: String) {
        let value = text.trimmingWhitespace().lowercased()
        guard value.count >= 3, let day = Self.allCases.first(where: { $0.rawValue == value || String($0.rawValue.prefix(3)) == value }) else {
            return nil
        }
        self = day
    }
}

extension LocalDate {
    /// The day of the week of this date.
    public var weekday: Weekday { Weekday(of: self) }
}

/// The days one digest covers, and the day it is sent: its first day, at
/// the delivery time.
///
/// Rules:
/// - Weekly: sent on the `digest-day` (default Monday), it lists that day
///   and the six after it.
/// - Monthly: sent on the 1st, it lists the whole month.
/// - The next digest is the first whose day is `firstDay` or later, where
///   `firstDay` is today while today's delivery time is ahead, else
///   tomorrow: a digest day whose delivery time has passed waits for the
///   next period, as a reminder does.
/// - A period is identified by its frequency and its first day (the ledger's
///   key), so a reschedule never sends one twice.
public struct DigestPeriod: Hashable, Sendable {
    public var frequency: DigestFrequency
    /// The day it is sent, and the first day it lists.
    public var first: LocalDate
    /// The last day it lists.
    public var last: LocalDate

    public init(frequency: DigestFrequency, first: LocalDate, last: LocalDate) {
        self.frequency = frequency
        self.first = first
        self.last = max(first, last)
    }

    /// How many days it lists.
    public var days: Int { first.days(to: last) + 1 }

    /// The pending reminder's id and the ledger's: `digest-weekly`, `digest-monthly`.
    public var notificationID: String { "digest-" + frequency.rawValue }

    /// The next period of `frequency` whose first day is `firstDay` or later;
    /// `nil` when the digest is off.
    public static func next(_ frequency: DigestFrequency, day: Weekday, onOrAfter firstDay: LocalDate) -> DigestPeriod? {
        switch frequency {
        case .off:
            return nil
        case .weekly:
            let ahead = (day.isoNumber - firstDay.weekday.isoNumber + 7) % 7
            let first = firstDay.adding(days: ahead)
            return DigestPeriod(frequency: .weekly, first: first, last: first.adding(days: 6))
        case .monthly:
            var (year, month) = (firstDay.year, firstDay.month)
            if firstDay.day != 1 {
                (year, month) = month == 12 ? (year + 1, 1) : (year, month + 1)
            }
            return DigestPeriod(
                frequency: .monthly,
                first: LocalDate(unchecked: year, month, 1),
                last: LocalDate(unchecked: year, month, LocalDate.daysIn(month: month, year: year))
            )
        }
    }

    /// The next digest of `frequency` under `settings` at `now` in
    /// `timeZone`: its period and the instant it is sent (the delivery time
    /// on its first day, which is today while that time is ahead, else a
    /// later day); `nil` when `frequency` is off.
    public static func next(
        _ frequency: DigestFrequency,
        settings: Settings,
        now: Date,
        timeZone: TimeZone
    ) -> (period: DigestPeriod, fireAt: Date)? {
        let firstDay = FireTime.firstDay(at: now, time: settings.deliveryTime, in: timeZone)
        guard let period = next(frequency, day: settings.digestDay, onOrAfter: firstDay),
            let fireAt = FireTime.instant(on: period.first, at: settings.deliveryTime, in: timeZone), fireAt > now
        else { return nil }
        return (period, fireAt)
    }

    /// Whether it covers exactly one calendar month.
    var isWholeMonth: Bool {
        first.day == 1 && first.year == last.year && first.month == last.month && last.day == LocalDate.daysIn(month: last.month, year: last.year)
    }
}

/// One digest: the birthdays and anniversaries of a ``DigestPeriod``, as one
/// message (pure; the store finds the events, ``UpcomingEvents`` decides
/// which are listed).
///
/// - The events are those `upcoming` lists on the period's days, in its
///   order (soonest first; birthdays before anniversaries on a day); a
///   date in another calendar (a lunar birthday) is on its Gregorian day.
/// - Each line: the day ("Mon 30 Nov", marked today or tomorrow as seen on
///   the day it is read: the message sent, on its first day; the preview of
///   `birthdays digest`, on the day it is run), the name, and what it is
///   with the age or years when the year is known ("birthday, turns 37").
/// - The title names the first three people and counts the others (a
///   person with two dates in the period counts once), so an
///   inbox or a lock screen shows who: "Birthdays in the week ahead: Ada,
///   Bob, Cy +2 more".
/// - A period without events has no digest (``request(fireAt:in:)`` is `nil`).
/// - The title says "birthdays", or "birthdays and anniversaries" when the
///   period holds an anniversary.
/// - Changing the frequency or the digest day starts the new schedule at
///   its next period, and the ledger tells periods apart by their first
///   day: a weekly digest sent on Monday 30 November followed by a switch to
///   monthly sends December's on the 1st (its first days appear twice), and a
///   switch in mid-month leaves the rest of that month to the day's reminders.
public struct Digest: Sendable {
    public var period: DigestPeriod
    /// The events of the period, soonest first; their ``Occurrence/daysUntil`` counts from the period's first day.
    public var events: [Occurrence]
    /// The notes of the people (``PersonNote``), by person id: each is a line
    /// of its own under the person's line, starting with ``noteMarker``, so
    /// that the added channels can leave them out (``Reminder/sharedBody``).
    public var notes: [String: String] = [:]

    /// How a note's line starts in the digest's body.
    public static let noteMarker = "\u{21B3} "

    /// How many names the title shows before it counts the others.
    public static let namesInTitle = 3

    public init(period: DigestPeriod, events: [Occurrence]) {
        self.period = period
        self.events = events
    }

    /// The title: the period and the first names.
    public func title(in localizer: Localizer) -> String {
        // People, not events: a lunar and a Gregorian birthday of one person name her once.
        var seen = Set<String>()
        let people = events.filter { seen.insert($0.personID).inserted }
        let names = people.prefix(Self.namesInTitle).map { SafeText.line($0.name).isEmpty ? localizer(.upcomingNoName) : SafeText.line($0.name) }
        var list = names.joined(separator: localizer(.listSeparator))
        if people.count > names.count { list += " " + localizer(.digestMore(people.count - names.count)) }
        // Anniversaries and labelled dates ("Started work": an anniversary too) make it "birthdays and anniversaries".
        let anniversaries = events.contains { $0.kind != .birthday }
        switch period.frequency {
        case .weekly where period.days == 7:
            return localizer(.digestWeekTitle(list, anniversaries: anniversaries))
        case .monthly where period.isWholeMonth:
            return localizer(.digestMonthTitle(localizer.monthName(period.first), list, anniversaries: anniversaries))
        default:
            let dates = localizer.shortDates()
            return localizer(.digestSpanTitle(dates(period.first), dates(period.last), list, anniversaries: anniversaries))
        }
    }

    /// One line per event (see the type's rules); names on one line each.
    ///
    /// - Parameter readOn: the day the lines are read, which "(today)" and
    ///   "(tomorrow)" are counted from: the period's first day for the
    ///   message sent, today for a preview.
    public func lines(in localizer: Localizer, readOn: LocalDate) -> [String] {
        let dates = localizer.shortDates()
        var words = OccurrenceWords(localizer)
        let line = localizer.template(.digestLine)
        let marked = localizer.template(.digestLineMarked)
        let today = localizer(.today)
        let tomorrow = localizer(.tomorrow)
        return events.flatMap { event in
            let name = SafeText.line(event.name).isEmpty ? localizer(.upcomingNoName) : SafeText.line(event.name)
            let what = words.what(event)
            let date = dates(event.date)
            let text: String
            switch readOn.days(to: event.date) {
            case 0: text = marked.render([.text(date), .text(today), .text(name), .text(what)])
            case 1: text = marked.render([.text(date), .text(tomorrow), .text(name), .text(what)])
            default: text = line.render([.text(date), .text(name), .text(what)])
            }
            guard let note = notes[event.personID] else { return [text] }
            return [text, Self.noteMarker + localizer(.showNote(SafeText.line(note)))]
        }
    }

    /// The pending reminder that sends it at `fireAt`: id
    /// ``DigestPeriod/notificationID``, no person, its occurrence the
    /// period's first day, its kind ``DeliveryKind/digest(_:)`` with the
    /// frequency (which ``Reminder/digest`` reads back); `nil` for an empty period.
    public func request(fireAt: Date, in localizer: Localizer) -> NotificationRequest? {
        guard !events.isEmpty else { return nil }
        var request = NotificationRequest(
            personID: "",
            kind: .birthday,
            timing: .dayOf,
            fireAt: fireAt,
            occurrenceDate: period.first,
            title: title(in: localizer),
            body: lines(in: localizer, readOn: period.first).joined(separator: "\n"),
            deliveryKind: .digest(period.frequency),
            userInfo: [
                "when": NotificationRequest.Timing.dayOf.rawValue,
                "occurrence": period.first.description,
                "last": period.last.description,
                "events": String(events.count),
            ]
        )
        request.id = period.notificationID
        return request
    }
}

extension DeliveryKind {
    /// The digest's frequency when this is a digest (``Digest``); `nil` for anything else.
    public var digest: DigestFrequency? {
        switch self {
        case .digest(let frequency): frequency
        case .reminder, .announcement, .invitationNotice: nil
        }
    }
}

extension NotificationRequest {
    /// The digest's frequency when this is a digest (``Digest``); `nil` for a reminder about one event.
    public var digest: DigestFrequency? { deliveryKind.digest }
}
