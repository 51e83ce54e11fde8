import BirthdayCore
import Foundation

/// What `birthdays show` prints and what a click on a desktop notification
/// shows: a person's dates, their next occurrences and the age turned.
public enum PersonDetails {
    /// Lines such as `Birthday: 1990-03-10; next 2026-03-10 (today), turns 36`,
    /// in the localizer's language (dates stay ISO 8601: `1990-03-10`, `--12-25`).
    /// A missing year gives no age, nor does a death date; Feb 29 follows
    /// `leapDay` in common years. Every date is shown, the dates of excluded
    /// and deceased people too (anniversaries only while `anniversaries` is
    /// on), followed by what sets the person apart: nickname, death date,
    /// reminder days of their own, exclusion, groups, and the rule of a group
    /// or source that applies to them (``RulePrecedence``). A date in another
    /// calendar is written in words after the calendar's name, as `upcoming`
    /// names it: `Birthday (lunar): 1st day of the 11th month; next
    /// 2026-12-09 (in 40 days), turns 41` (``CalendarDate/words(in:)``).
    /// A labelled date (``LabelledDate``) is shown under its label, with an
    /// age when the label says birthday and a count of years otherwise:
    /// `Started work: 2019-03-03; next 2027-03-03 (in 95 days), 8 years`.
    public static func lines(
        for person: Person,
        today: LocalDate,
        leapDay: LeapDayPolicy,
        anniversaries: Bool = true,
        in localizer: Localizer = .english
    ) -> [String] {
        let upcoming = UpcomingEvents(today: today, leapDay: leapDay, includeAnniversaries: anniversaries)
        var lines: [String] = []
        for kind in EventKind.allCases {
            guard kind == .birthday || anniversaries, let eventDate = person.date(of: kind) else { continue }
            let occurrence = upcoming.occurrence(of: eventDate, kind: kind, personID: person.id, name: person.name)
            let date = occurrence.eventDate?.description ?? ""
            let next = occurrence.date.description
            let when = localizer(.days(occurrence.daysUntil))
            let age = person.isDeceased ? nil : occurrence.age
            switch occurrence.kind {
            case .birthday: lines.append(localizer(.showBirthday(date: date, next: next, when: when, turning: age)))
            case .anniversary: lines.append(localizer(.showAnniversary(date: date, next: next, when: when, years: age)))
            case .labelled: break
            }
        }
        for alternate in person.alternateDates where alternate.kind == .birthday || anniversaries {
            guard let next = alternate.date.nextOccurrence(onOrAfter: today) else { continue }
            let occurrence = upcoming.occurrence(of: alternate.date, next: next, kind: alternate.kind, personID: person.id, name: person.name)
            let message = Message.showCalendarDate(
                kind: occurrence.kind,
                date: alternate.date.words(in: localizer),
                next: occurrence.date.description,
                when: localizer(.days(occurrence.daysUntil)),
                age: person.isDeceased ? nil : occurrence.age,
                calendar: localizer(alternate.date.calendar.nameKey)
            )
            lines.append(localizer(message))
        }
        if person.isUndated { lines.append(localizer(.showUndated)) }
        if let note = person.note { lines.append(localizer(.showNote(SafeText.line(note)))) }
        for labelled in person.labelledDates {
            let occurrence = upcoming.occurrence(of: labelled.date, kind: .labelled, personID: person.id, name: person.name)
            let message = Message.showLabelled(
                label: SafeText.line(labelled.label),
                date: labelled.date.description,
                next: occurrence.date.description,
                when: localizer(.days(occurrence.daysUntil)),
                years: person.isDeceased && labelled.isBirthday ? nil : occurrence.age,
                birthday: labelled.isBirthday
            )
            lines.append(localizer(message))
        }
        if !person.nickname.isEmpty { lines.append(localizer(.showNickname(SafeText.line(person.nickname)))) }
        if let died = person.deathDate { lines.append(localizer(.showDeceased(SafeText.line(died)))) }
        if let days = person.reminderDays { lines.append(localizer(.showReminderDays(days))) }
        if let channels = person.channels { lines.append(localizer(.showChannels(channels))) }
        if person.weekend == .friday { lines.append(localizer(.showWeekendFriday)) }
        if person.excluded { lines.append(localizer(.showExcluded)) }
        if !person.groups.isEmpty { lines.append(localizer(.showGroups(person.groups.map { SafeText.line($0) }))) }
        // Which rule of a group or a source applies (``RulePrecedence``), when one does.
        let decision = person.decision
        if case .shared(let scope) = decision.exclusionBy,
            decision.excluded || person.sharedRules.contains(where: { $0.exclusion == .exclude })
        {
            lines.append(localizer(.showSharedExclusion(scope.safe, excluded: decision.excluded)))
        }
        if let days = decision.reminderDays, !decision.reminderDaysBy.isEmpty {
            lines.append(localizer(.showReminderDaysShared(days, from: decision.reminderDaysBy.map { SafeText.line($0.name) })))
        }
        return lines
    }
}
