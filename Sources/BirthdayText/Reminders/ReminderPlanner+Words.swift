import BirthdayCore
import Foundation

extension NotificationContent {
    /// Title and body for what the planner decided (``ReminderSubject``), in `localizer`'s language.
    public static func make(_ subject: ReminderSubject, in localizer: Localizer = .english) -> (title: String, body: String) {
        make(
            name: subject.name,
            kind: subject.kind,
            timing: subject.timing,
            age: subject.age,
            calendar: subject.calendar,
            memorial: subject.memorial,
            theirDay: subject.theirDay,
            labelled: subject.labelled,
            in: localizer
        )
    }
}

extension ReminderPlanner {
    /// A planner whose requests are worded in `localizer`'s language (``NotificationContent``).
    package init(
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        localizer: Localizer = .english,
        capacity: Int = NotificationRequest.pendingLimit
    ) {
        self.init(settings: settings, timeZone: timeZone, now: now, capacity: capacity, nameDayLabel: localizer(.plain(.nameDayLabel))) {
            NotificationContent.make($0, in: localizer)
        }
    }
}
