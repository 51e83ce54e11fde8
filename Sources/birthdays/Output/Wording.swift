import BirthdayCore
import Foundation

/// How dates and distances read in tables and messages.
enum Wording {
    /// "today", "tomorrow", "in 5 days".
    static func when(_ days: Int) -> String {
        switch days {
        case 0: "today"
        case 1: "tomorrow"
        default: "in \(days) days"
        }
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sat 21 Nov".
    static func shortDate(_ date: LocalDate) -> String {
        // 1970-01-01 was a Thursday.
        let weekday = ((date.dayNumber % 7) + 11) % 7
        return weekdays[weekday] + " " + (date.day < 10 ? " " : "") + String(date.day) + " " + months[date.month - 1]
    }

    /// "2026-03-11 09:00", an instant on the wall clock of `zone`.
    static func wallClock(_ instant: Date, zone: TimeZone) -> String {
        let iso = ISOInstant.format(instant, in: zone)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// "1990-05-12", or "05-12" without a year.
    static func date(_ date: EventDate) -> String {
        date.year == nil ? String(date.description.dropFirst(2)) : date.description
    }

    /// "3 problems", "1 problem".
    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
    }
}
