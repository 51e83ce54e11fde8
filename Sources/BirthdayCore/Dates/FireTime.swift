import Foundation

/// When a reminder fires: a wall-clock time on a calendar day in the user's
/// time zone, turned into one instant (a one-shot trigger, never a repeating one).
///
/// ## Daylight saving time
/// The instant comes from calendar components (year, month, day, hour,
/// minute) in the zone, as iOS resolves a `UNCalendarNotificationTrigger`:
/// - A time that does not exist on a spring-forward day fires as far after
///   the gap's start as it was meant to be: 02:30 in Europe/Berlin on the last
///   Sunday of March fires at 03:30 CEST (the first valid instant after it in
///   wall-clock terms). It is never skipped, unlike a systemd `OnCalendar=` timer.
/// - A time that occurs twice on a fall-back day fires at its first
///   occurrence: 02:30 on the last Sunday of October in Berlin is 02:30 CEST (+02:00).
///
/// `Calendar.date(from:)` on the Gregorian calendar does exactly this on
/// Linux and Darwin; `nextDate(after:matching:matchingPolicy:)` does not
/// (it gives 03:00 in the gap) and is not used.
///
/// ## February 29
/// The day passed in has already had ``LeapDayPolicy`` applied
/// (``EventDate/occurrence(in:leapDay:)``), so a Feb 29 birthday fires on
/// Feb 28 or Mar 1 in common years, never on a day that does not exist.
public enum FireTime {
    /// The instant `time` on `day` in `timeZone`, with the DST rules above;
    /// `nil` only if Foundation cannot represent the day.
    public static func instant(on day: LocalDate, at time: TimeOfDay, in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return instant(on: day, at: time, calendar: calendar)
    }

    /// The first day whose `time` is still ahead at `now` in `timeZone`:
    /// today while today's instant is in the future, else tomorrow. Nothing
    /// fires on a day before it (reminders and digests alike).
    public static func firstDay(at now: Date, time: TimeOfDay, in timeZone: TimeZone) -> LocalDate {
        let today = LocalDate.today(at: now, in: timeZone)
        return instant(on: today, at: time, in: timeZone).map { $0 > now } == true ? today : today.adding(days: 1)
    }

    /// Minutes after local midnight of `instant` on the wall clock of `timeZone`.
    public static func minutes(of instant: Date, in timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute], from: instant)
        return (c.hour ?? 0) * 60 + (c.minute ?? 0)
    }

    /// `HH:MM`, the wall-clock time of `instant` in `timeZone` ("since 16:00 here").
    public static func clock(of instant: Date, in timeZone: TimeZone) -> String {
        let minutes = minutes(of: instant, in: timeZone)
        func two(_ n: Int) -> String { (n < 10 ? "0" : "") + String(n) }
        return two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// Same as ``instant(on:at:in:)`` with a prepared Gregorian calendar (its zone is the user's).
    static func instant(on day: LocalDate, at time: TimeOfDay, calendar: Calendar) -> Date? {
        calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: time.hour, minute: time.minute, second: 0))
    }
}

/// ISO 8601 instants in a given zone with its numeric offset:
/// `2026-03-11T09:00:00+01:00` (never `Z`, so the user's zone stays visible).
public enum ISOInstant {
    public static func format(_ instant: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        let offset = timeZone.secondsFromGMT(for: instant)
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        func two(_ n: Int) -> String { (n < 10 ? "0" : "") + String(n) }
        let day = LocalDate(unchecked: c.year ?? 1970, c.month ?? 1, c.day ?? 1).description
        return day + "T" + two(c.hour ?? 0) + ":" + two(c.minute ?? 0) + ":" + two(c.second ?? 0) + sign + two(minutes / 60) + ":" + two(minutes % 60)
    }
}
