import Foundation

/// The time zone a person lives in, from their card's `TZ` or the user's
/// `birthdays zone` choice: where their birthday begins and ends.
///
/// ## What a card may say
/// - vCard 3.0: `TZ:-05:00` (a UTC offset, `±hh:mm`, `±hhmm` or `±hh`), or
///   as some writers do, a zone name (`TZ:Asia/Tokyo`).
/// - vCard 4.0: `TZ;VALUE=text:America/New_York` (an IANA name),
///   `TZ;VALUE=utc-offset:-0500`, or `TZ;VALUE=uri:…` (not a zone: ignored).
///
/// A name Foundation does not know, or an offset beyond −12:00 … +14:00, is
/// no zone (the reader reports it; the person is kept without one). A
/// fixed offset has no daylight saving time: the card says nothing more.
public struct PersonZone: Hashable, Sendable {
    /// The zone itself.
    public let timeZone: TimeZone
    /// The IANA name (`Asia/Tokyo`), or `nil` for a fixed offset.
    public let name: String?
    /// What is stored: the IANA name, or the offset as `±hh:mm` (kept, not
    /// made again: the planner keys its moments by it for every zoned row).
    public let storedValue: String

    /// A zone by IANA name; `nil` when Foundation does not know it.
    public init?(name: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        // Foundation also accepts abbreviations ("EST") and offsets by name; only a known region name is a zone here.
        // It names UTC "GMT", which is therefore read too: what is stored must read back.
        guard trimmed.contains("/") || trimmed == "UTC" || trimmed == "GMT", let zone = TimeZone(identifier: trimmed) else { return nil }
        timeZone = zone
        self.name = zone.identifier
        storedValue = zone.identifier
    }

    /// A fixed offset from UTC, in seconds east; `nil` outside −12:00 … +14:00.
    public init?(secondsFromGMT seconds: Int) {
        guard (-12 * 3600...14 * 3600).contains(seconds), seconds % 60 == 0, let zone = TimeZone(secondsFromGMT: seconds) else { return nil }
        timeZone = zone
        name = nil
        let minutes = abs(seconds) / 60
        func two(_ n: Int) -> String { (n < 10 ? "0" : "") + String(n) }
        storedValue = (seconds < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// The value of a card's `TZ` property: an offset (`-05:00`, `-0500`,
    /// `+09`, `Z`) or a zone name; `nil` when it is neither (a URI, text).
    public init?(cardValue value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Self.offset(text) {
            self.init(secondsFromGMT: seconds)
        } else {
            self.init(name: text)
        }
    }

    /// `±hh:mm`, `±hhmm`, `±hh` or `Z`, in seconds east of UTC.
    static func offset(_ text: String) -> Int? {
        if text == "Z" || text == "z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" || sign == "\u{2212}" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits.count == 2 || digits.count == 4 else { return nil }
        let hours = Int(digits.prefix(2))!
        let minutes = digits.count == 4 ? Int(digits.suffix(2))! : 0
        guard hours <= 14, minutes < 60 else { return nil }
        let seconds = (hours * 60 + minutes) * 60
        return sign == "+" ? seconds : -seconds
    }

    /// How the zone is named to the user: the city of an IANA name
    /// (`America/New_York` → "New York"), or `UTC−05:00` for an offset.
    public var displayName: String {
        if let name {
            return String(name.split(separator: "/").last ?? Substring(name)).replacingOccurrences(of: "_", with: " ")
        }
        let seconds = timeZone.secondsFromGMT()
        let minutes = abs(seconds) / 60
        func two(_ n: Int) -> String { (n < 10 ? "0" : "") + String(n) }
        return "UTC" + (seconds < 0 ? "\u{2212}" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

}

/// The user's choice of a person's zone, `birthdays zone PERSON ZONE|local`:
/// it wins over the card's `TZ` and outlasts every import, as an exclusion
/// does, until `birthdays zone PERSON --default` gives the card its say again.
public enum ZoneChoice: Hashable, Sendable {
    /// `birthdays zone Mei Asia/Tokyo` (or an offset, `+09:00`).
    case zone(PersonZone)
    /// `birthdays zone Mei local`: your own zone, whatever the card says.
    case local

    /// What is stored: `local`, or the zone's ``PersonZone/storedValue``.
    public var storedValue: String {
        switch self {
        case .zone(let zone): zone.storedValue
        case .local: "local"
        }
    }

    /// Reads ``storedValue`` (or what the user typed); `nil` when it is no zone.
    public init?(storedValue value: String) {
        if value.trimmingCharacters(in: .whitespaces).lowercased() == "local" {
            self = .local
        } else if let zone = PersonZone(cardValue: value) {
            self = .zone(zone)
        } else {
            return nil
        }
    }

    /// The zone this choice gives: `nil` is yours.
    public var zone: PersonZone? {
        switch self {
        case .zone(let zone): zone
        case .local: nil
        }
    }
}

/// When the day-of reminder of someone in another zone comes, on your clock.
///
/// ## The rule
/// Their birthday lasts from the first moment of their day in their zone
/// to the first moment of the next one (23 or 25 hours across their DST
/// change). The day-of reminder comes at the **first moment of that span
/// that is at or after your delivery time and before `quiet-after`, on your
/// own clock** (your zone, your DST): each of your local days offers the
/// window [delivery time, quiet-after), and the earliest window that
/// overlaps their day gives the moment (its start, or the start of their
/// day when that falls inside the window). Reminders for other days count
/// back from the local day of that moment, at the delivery time.
///
/// With you in Europe/Berlin, delivery at 09:00, quiet-after 21:00 and a
/// birthday on 10 December: a friend in Asia/Tokyo is reminded on
/// 9 December at 16:00 (their day begins then); one in America/New_York on
/// 10 December at 09:00; one in Europe/Helsinki on 10 December at 09:00
/// (their day begins at 23:00 on the 9th, after quiet-after).
///
/// Someone in your own zone (or with no zone) gets exactly the usual
/// reminder: the delivery time on the day. A quiet-after at or before the
/// delivery time ends the window at midnight instead. When no window
/// overlaps their day (a window under an hour long against a 23-hour day),
/// the usual reminder on their date is kept.
public struct ZonedDayOf: Hashable, Sendable {
    /// When the day-of reminder fires.
    public let instant: Date
    /// Your local day of ``instant``: the day other reminder days count back from.
    public let localDay: LocalDate
    /// The first moment of their birthday (in their zone), for the words "since 16:00 here".
    public let began: Date
    /// The first moment of the day after their birthday (in their zone).
    public let ended: Date

    /// Whether this differs from the usual reminder: their day did not begin at your midnight of their date.
    public let elsewhere: Bool

    /// Whether the reminder comes while it is their birthday where they are
    /// (and elsewhere than yours): its words then say so ("It is Mei's
    /// birthday in Tokyo (since 16:00 here)"). Not so when no window of yours
    /// overlaps their day and the usual reminder is kept.
    public var duringTheirDay: Bool { elsewhere && instant >= began && instant < ended }

    /// The day-of moment of a birthday on `date` for someone in `theirs`,
    /// for you in `mine` with `delivery` and `quietAfter` (the rule above).
    public static func moment(
        of date: LocalDate,
        theirs: TimeZone,
        mine: TimeZone,
        delivery: TimeOfDay,
        quietAfter: TimeOfDay
    ) -> ZonedDayOf? {
        moment(of: date, theirs: gregorian(theirs), mine: gregorian(mine), delivery: delivery, quietAfter: quietAfter)
    }

    /// A Gregorian calendar in `zone`.
    static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// ``moment(of:theirs:mine:delivery:quietAfter:)`` with Gregorian calendars
    /// already set to each zone (the planner keeps one per zone: making a
    /// calendar costs more than the arithmetic).
    static func moment(
        of date: LocalDate,
        theirs: Calendar,
        mine: Calendar,
        delivery: TimeOfDay,
        quietAfter: TimeOfDay
    ) -> ZonedDayOf? {
        func day(_ instant: Date) -> LocalDate {
            let c = mine.dateComponents([.year, .month, .day], from: instant)
            return LocalDate(unchecked: c.year ?? 1970, c.month ?? 1, c.day ?? 1)
        }
        guard let usual = FireTime.instant(on: date, at: delivery, calendar: mine) else { return nil }
        let midnight = TimeOfDay(hour: 0, minute: 0)!
        guard let start = FireTime.instant(on: date, at: midnight, calendar: theirs),
            let end = FireTime.instant(on: date.adding(days: 1), at: midnight, calendar: theirs),
            let myStart = FireTime.instant(on: date, at: midnight, calendar: mine)
        else { return nil }
        if start == myStart {
            // Their day begins when yours does (the same zone, or the same offset that day).
            return ZonedDayOf(instant: usual, localDay: date, began: start, ended: end, elsewhere: false)
        }
        // Your local days that overlap their day: the one it begins in, and the one after (a day lasts at most 25 hours).
        let first = day(start)
        for candidate in [first, first.adding(days: 1)] {
            guard let open = FireTime.instant(on: candidate, at: delivery, calendar: mine) else { continue }
            let close: Date? =
                quietAfter > delivery
                ? FireTime.instant(on: candidate, at: quietAfter, calendar: mine)
                : FireTime.instant(on: candidate.adding(days: 1), at: midnight, calendar: mine)
            guard let close else { continue }
            let from = max(open, start)
            if from < close, from < end {
                return ZonedDayOf(instant: from, localDay: day(from), began: start, ended: end, elsewhere: true)
            }
        }
        return ZonedDayOf(instant: usual, localDay: date, began: start, ended: end, elsewhere: true)
    }
}
