import BirthdayCore
import Foundation

/// One entry of `birthdays pending --json`.
struct PendingOutput: Encodable {
    var id: String
    var person_id: String
    var kind: String
    var when: String
    var fire_at: String
    var title: String
    var body: String

    init(_ request: NotificationRequest, zone: TimeZone) {
        id = request.id
        person_id = request.personID
        kind = request.kind.rawValue
        when = request.timing.rawValue
        fire_at = ISOInstant.format(request.fireAt, in: zone)
        title = request.title
        body = request.body
    }

    /// One line per request under a header; the title and body are as they were planned.
    static func table(_ requests: [NotificationRequest], zone: TimeZone, in localizer: Localizer) -> String {
        let (dayOf, dayBefore) = (localizer(.pendingDayOf), localizer(.pendingDayBefore))
        return Table.render(
            requests.map { [Wording.wallClock($0.fireAt, zone: zone), $0.timing == .dayOf ? dayOf : dayBefore, $0.title, $0.body] },
            header: [localizer(.pendingFires), localizer(.pendingWhen), localizer(.pendingTitle), localizer(.pendingBody)]
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
        guard result.status.allowsScheduling else {
            return "Notifications are not enabled (\(result.status.rawValue)); no reminders pending. "
                + "Turn them on with: birthdays notifications enable"
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
