import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

/// One entry of `birthdays pending --json`.
struct PendingOutput: Encodable {
    var id: String
    var short_id: String
    var person_id: String
    var kind: String
    /// `gregorian`, or the calendar of a date in another one (`chinese`).
    var calendar: String
    var when: String
    var fire_at: String
    var snoozed: Bool
    var title: String
    var body: String
    /// The person's zone when they have one (``NotificationRequest/zone``): an IANA name or an offset.
    var zone: String?

    init(_ reminder: PendingReminder, zone: TimeZone) {
        let request = reminder.request
        id = request.id
        short_id = reminder.shortID
        person_id = request.personID
        switch request.deliveryKind {
        case .digest: kind = "digest"
        case .greeting: kind = "greeting"
        // A room's message and an invitation's notice show the kind they were always stored with.
        case .reminder, .announcement, .invitationNotice: kind = request.kind.rawValue
        }
        calendar = request.calendar?.rawValue ?? "gregorian"
        when = request.timing.rawValue
        fire_at = ISOInstant.format(request.fireAt, in: zone)
        snoozed = reminder.snoozed
        title = request.title
        body = request.body
        self.zone = request.zone?.storedValue
    }

    /// One line per reminder under a header: its short id, when it fires,
    /// how long before the day (the day of, the day before, N days before),
    /// snoozed or a digest (``Message/pendingWhen(_:snoozed:)``), and the
    /// title and body as they were planned.
    static func table(_ reminders: [PendingReminder], zone: TimeZone, in localizer: Localizer) -> String {
        Table.render(
            reminders.map { reminder in
                let request = reminder.request
                return [
                    reminder.shortID,
                    Wording.wallClock(request.fireAt, zone: zone),
                    localizer(.pendingWhen(request, snoozed: reminder.snoozed)),
                    request.title,
                    // A digest's lines on one line.
                    request.digest == nil ? request.body : request.body.replacingOccurrences(of: "\n", with: " · "),
                ]
            },
            header: [localizer(.pendingID), localizer(.pendingFires), localizer(.pendingWhen), localizer(.pendingTitle), localizer(.pendingBody)],
            shrinkable: [3, 4]
        )
    }
}

/// `birthdays reschedule --json`.
struct RescheduleOutput: Encodable {
    var scheduled: Int
    var people: Int
    var first: String?
    var last: String?

    init(_ result: RescheduleResult) {
        scheduled = result.scheduled
        people = result.people
        first = result.first.map { ISOInstant.format($0, in: result.timeZone) }
        last = result.last.map { ISOInstant.format($0, in: result.timeZone) }
    }

    static func text(_ result: RescheduleResult) -> String {
        guard result.delivers else {
            return result.status == .denied
                ? "Notifications are off (denied); no reminders pending. Turn them on with: birthdays notifications enable"
                : "No channel delivers (notifications \(result.status.rawValue), no channel added); no reminders pending. "
                    + "Turn the desktop on with: birthdays notifications enable, or add a channel: birthdays channels add"
        }
        guard let first = result.first, let last = result.last else { return "No reminders to schedule." }
        return "Scheduled \(Wording.count(result.scheduled, "reminder")) for \(Wording.count(result.people, "person", "people")); "
            + "first \(ISOInstant.format(first, in: result.timeZone)), last \(ISOInstant.format(last, in: result.timeZone))."
    }
}

/// `birthdays notifications enable|disable --json`.
struct PermissionOutput: Encodable {
    var status: String
    var scheduled: Int

    init(_ result: RescheduleResult) {
        status = result.status.rawValue
        scheduled = result.scheduled
    }
}
