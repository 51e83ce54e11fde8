import BirthdayCore
import BirthdayText
import Foundation

/// How dates and distances read in tables and messages. Words a user reads
/// in lists come from the ``Localizer``; what stays here is language-neutral
/// (ISO dates, wall-clock times) or English by design (import reports,
/// `status`, errors).
enum Wording {
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
