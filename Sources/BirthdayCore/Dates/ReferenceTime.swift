import Foundation

/// Reads the `BIRTHDAYS_NOW` override: an ISO 8601 date-time that every
/// command uses instead of the real clock, for previews and reproducible runs.
public enum ReferenceTime {
    /// Accepts `2026-03-10T08:00:00Z`, `2026-03-10T08:00:00+01:00`,
    /// `2026-03-10T08:00` and `2026-03-10T08:00:00` (local time in `timeZone`),
    /// and `2026-03-10` (local midnight).
    public static func parse(_ text: String, timeZone: TimeZone) -> Date? {
        let value = text.trimmingWhitespace()
        let withZone = ISO8601DateFormatter()
        withZone.formatOptions = [.withInternetDateTime]
        if let date = withZone.date(from: value) { return date }
        withZone.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withZone.date(from: value) { return date }
        let parts = value.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard let day = LocalDate(iso: parts[0]) else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        if parts.count == 2 {
            let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            let time = fields.compactMap { Int($0) }
            guard (2...3).contains(time.count), time.count == fields.count else { return nil }
            hour = time[0]
            minute = time[1]
            second = time.count == 3 ? time[2] : 0
            guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute, second: second))
    }
}
