import BirthdayCore
import Foundation

/// HTTP dates ([RFC 9110 §5.6.7](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7)),
/// always in GMT and to the second.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The preferred format, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let day = LocalDate(dayNumber: days)
        let weekday = ((days % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday
        return weekdays[weekday] + ", " + two(day.day) + " " + months[day.month - 1] + " " + String(day.year) + " "
            + two(time / 3600) + ":" + two(time / 60 % 60) + ":" + two(time % 60) + " GMT"
    }

    /// Parses all three formats a recipient must accept: IMF-fixdate,
    /// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`). The weekday is not checked.
    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        let day: Substring
        let month: Substring
        let year: Substring
        let time: Substring
        if fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT" {
            (day, month, year, time) = (fields[1], fields[2], fields[3], fields[4])
        } else if fields.count == 4, fields[0].hasSuffix(","), fields[3] == "GMT" {
            let parts = fields[1].split(separator: "-")
            guard parts.count == 3, parts[2].count == 2 else { return nil }
            (day, month, year, time) = (parts[0], parts[1], parts[2], fields[2])
        } else if fields.count == 5 {
            (day, month, year, time) = (fields[2], fields[1], fields[4], fields[3])
        } else {
            return nil
        }
        let clock = time.split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let monthIndex = months.firstIndex(where: { $0 == month }),
            let d = Int(day), let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]),
            var y = Int(year), year.count == 4 || year.count == 2,
            h < 24, m < 60, s < 61
        else { return nil }
        if year.count == 2 { y += y < 70 ? 2000 : 1900 }
        guard let date = LocalDate(year: y, month: monthIndex + 1, day: d) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(date.dayNumber * 86_400 + h * 3600 + m * 60 + s))
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }
}
