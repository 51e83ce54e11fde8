import Foundation

/// One reminder, ready for a channel to deliver: what to say, about whom,
/// and when it was due.
///
/// The scheduler builds reminders from its pending requests; channels only
/// read them. ``title`` and ``body`` contain the person's name and may contain
/// an age, so only channels that show them to the user (desktop, the user's
/// own command) use them; logs use ``logID``, ``kind``, ``when``, ``fireAt`` and
/// ``late`` only.
public struct Reminder: Hashable, Sendable {
    /// The notification id; the same id replaces an earlier notification.
    public var id: String
    /// The person's ``PersonID``.
    public var personID: String
    public var kind: EventKind
    /// Whether the reminder is for the day itself or the day before.
    public var when: NotificationRequest.Timing
    /// The instant the reminder was scheduled for.
    public var fireAt: Date
    /// The zone ``fireAt`` was computed in; used to print it with its offset.
    public var timeZone: TimeZone
    /// The notification title, such as "Ada's birthday".
    public var title: String
    /// The notification body, such as "Ada turns 37 today".
    public var body: String
    /// Whether it is delivered after ``fireAt`` (the daemon was not running,
    /// the machine was asleep, or an earlier attempt failed).
    public var late: Bool
    /// The day of the birthday or anniversary itself.
    public var occurrenceDate: LocalDate
    /// The id as logs show it: the ``PublicID`` of ``id`` (the engine sets
    /// it), so a log line says nothing about whose reminder it was.
    public var logID: String

    public init(
        id: String,
        personID: String,
        kind: EventKind,
        when: NotificationRequest.Timing,
        fireAt: Date,
        timeZone: TimeZone,
        title: String,
        body: String,
        late: Bool,
        occurrenceDate: LocalDate,
        logID: String = "r-unknown"
    ) {
        self.id = id
        self.personID = personID
        self.kind = kind
        self.when = when
        self.fireAt = fireAt
        self.timeZone = timeZone
        self.title = title
        self.body = body
        self.late = late
        self.occurrenceDate = occurrenceDate
        self.logID = logID
    }

    /// The local day the reminder is for: the occurrence itself for
    /// ``NotificationRequest/Timing/dayOf``, the day before it for ``NotificationRequest/Timing/dayBefore``.
    public var dueDay: LocalDate { when == .dayOf ? occurrenceDate : occurrenceDate.adding(days: -1) }

    /// ``fireAt`` as ISO 8601 with the numeric offset of ``timeZone`` at that
    /// instant, such as `2026-03-10T09:00:00+01:00` (UTC prints as `+00:00`, never `Z`).
    public var fireAtISO8601: String { ISOInstant.format(fireAt, in: timeZone) }
}
