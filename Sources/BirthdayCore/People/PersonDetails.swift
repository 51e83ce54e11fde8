import Foundation

/// What `birthdays show` prints and what a click on a desktop notification
/// shows: a person's dates, their next occurrences and the age turned.
public enum PersonDetails {
    /// Lines such as `Birthday: 1990-03-10; next 2026-03-10 (today), turns 36`.
    /// A missing year gives no age; Feb 29 follows `leapDay` in common years.
    public static func lines(for person: Person, today: LocalDate, leapDay: LeapDayPolicy, anniversaries: Bool = true) -> [String] {
        let upcoming = UpcomingEvents(today: today, leapDay: leapDay, includeAnniversaries: anniversaries)
        var lines: [String] = []
        for occurrence in upcoming.occurrences(of: person) {
            let label = occurrence.kind == .birthday ? "Birthday" : "Anniversary"
            let when: String =
                switch occurrence.daysUntil {
                case 0: "today"
                case 1: "tomorrow"
                default: "in \(occurrence.daysUntil) days"
                }
            var line = "\(label): \(occurrence.eventDate); next \(occurrence.date) (\(when))"
            if let age = occurrence.age {
                line += occurrence.kind == .birthday ? ", turns \(age)" : ", \(age) years"
            }
            lines.append(line)
        }
        if person.excluded { lines.append("Excluded from reminders and the feed.") }
        return lines
    }
}
