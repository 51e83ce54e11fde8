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
    /// How many days before the event it is: the day itself, the day before, a week before.
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
    /// The digest's frequency when this is a digest of the days ahead
    /// (``Digest``: no person, a title naming the first people, one body
    /// line per event); `nil` for a reminder about one event.
    public var digest: DigestFrequency?
    /// The ways to reach the person, preferred first (``ContactLink``); the
    /// engine sets them when it delivers. The desktop offers the first one a
    /// handler exists for as a button.
    public var contactLinks: [ContactLink] = []
    /// Whether the added channels (ntfy, Gotify, e-mail, Apprise) may carry
    /// a link: the `contact-links` setting, off by default.
    public var sharesContactLinks = false
    /// The person's note as a line in the reminder's language ("Note: likes
    /// orchids", ``PersonNote``); the engine sets it when it delivers. The
    /// desktop shows it; the added channels only with ``sharesNote``.
    public var noteLine: String?
    /// Whether the added channels (ntfy, Gotify, e-mail, Apprise) may carry
    /// the note: the `notes-on-channels` setting, off by default.
    public var sharesNote = false
    /// The person's own zone (``NotificationRequest/zone``), the command's
    /// `BIRTHDAYS_ZONE`; `nil` for your own zone and for a digest.
    public var personZone: PersonZone?
    /// The day of the friend's greeting (`birthdays greet`) that this
    /// reminder may skip: the engine sets it on the day-before and day-of
    /// reminders of a birthday whose greeting has not gone yet
    /// (``GreetingPlan/skippable(_:greetingDay:)``); the desktop offers a
    /// "Skip greeting" button for it. `nil` otherwise.
    public var skippableGreeting: LocalDate?

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
        logID: String = "r-unknown",
        digest: DigestFrequency? = nil
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
        self.digest = digest
    }

    /// What `kind` a channel shows (`BIRTHDAYS_KIND`, the log line's
    /// `kind=`): `birthday`, `anniversary`, or `digest`.
    public var kindName: String { digest == nil ? kind.rawValue : "digest" }

    /// The body as a channel writes it: one line for a reminder (a line
    /// break in a name becomes a space), and a digest's lines, each made
    /// safe the same way, joined by line feeds.
    public var safeBody: String {
        guard digest != nil else { return SafeText.line(body) }
        return body.split(separator: "\n", omittingEmptySubsequences: false).map { SafeText.line($0) }.joined(separator: "\n")
    }

    /// ``safeBody`` as the added channels send it: a digest without its
    /// notes' lines (``Digest/noteMarker``) unless ``sharesNote``.
    public var sharedBody: String {
        guard digest != nil, !sharesNote else { return safeBody }
        return safeBody.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(Digest.noteMarker) }.joined(separator: "\n")
    }

    /// The link the added channels carry: the first of ``contactLinks`` when
    /// ``sharesContactLinks`` is on and the reminder is about one person.
    public var sharedContactLink: ContactLink? { sharesContactLinks && digest == nil ? contactLinks.first : nil }

    /// The note line the added channels carry: ``noteLine`` when ``sharesNote``
    /// is on and the reminder is about one person.
    public var sharedNoteLine: String? { sharesNote && digest == nil ? noteLine.map { SafeText.line($0) } : nil }

    /// ``sharedContactLink`` as the line an e-mail or Apprise body carries:
    /// "Write to Ada: mailto:ada@example.org?subject=Happy%20birthday%21".
    public var contactLine: String? { sharedContactLink.map { SafeText.line($0.label + ": " + $0.uri) } }

    /// The local day the reminder is for: the occurrence less ``when``'s days
    /// (the occurrence itself for ``NotificationRequest/Timing/dayOf``).
    public var dueDay: LocalDate { occurrenceDate.adding(days: -when.daysBefore) }

    /// ``fireAt`` as ISO 8601 with the numeric offset of ``timeZone`` at that
    /// instant, such as `2026-03-10T09:00:00+01:00` (UTC prints as `+00:00`, never `Z`).
    public var fireAtISO8601: String { ISOInstant.format(fireAt, in: timeZone) }
}
