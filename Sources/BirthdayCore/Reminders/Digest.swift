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
    package var isWholeMonth: Bool {
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
/// - A period without events has no digest (BirthdayText's `request(fireAt:in:)` is `nil`).
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
}

extension DeliveryKind {
    /// The digest's frequency when this is a digest (``Digest``); `nil` for anything else.
    public var digest: DigestFrequency? {
        switch self {
        case .digest(let frequency): frequency
        case .reminder, .announcement, .invitationNotice, .greeting: nil
        }
    }
}

extension NotificationRequest {
    /// The digest's frequency when this is a digest (``Digest``); `nil` for a reminder about one event.
    public var digest: DigestFrequency? { deliveryKind.digest }
}
