import Foundation

/// What `birthdays show` prints and what a click on a desktop notification
/// shows: a person's dates, their next occurrences and the age turned.
public enum PersonDetails {
    /// Lines such as `Birthday: 1990-03-10; next 2026-03-10 (today), turns 36`,
    /// in the localizer's language (dates stay ISO 8601: `1990-03-10`, `--12-25`).
    /// A missing year gives no age; Feb 29 follows `leapDay` in common years.
    public static func lines(
        for person: Person,
        today: LocalDate,
        leapDay: LeapDayPolicy,
        anniversaries: Bool = true,
        in localizer: Localizer = .english
    ) -> [String] {
        let upcoming = UpcomingEvents(today: today, leapDay: leapDay, includeAnniversaries: anniversaries)
        var lines: [String] = []
        for occurrence in upcoming.occurrences(of: person) {
            let date = occurrence.eventDate.description
            let next = occurrence.date.description
            let when = localizer(.days(occurrence.daysUntil))
            switch occurrence.kind {
            case .birthday: lines.append(localizer(.showBirthday(date: date, next: next, when: when, turning: occurrence.age)))
            case .anniversary: lines.append(localizer(.showAnniversary(date: date, next: next, when: when, years: occurrence.age)))
            }
        }
        if person.excluded { lines.append(localizer(.showExcluded)) }
        return lines
    }
}
