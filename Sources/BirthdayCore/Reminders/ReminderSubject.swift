/// What one reminder is about, before it is put in words: the planner
/// (``ReminderPlanner``) decides it, and BirthdayText's
/// `NotificationContent.make(_:in:)` writes its title and body in the
/// user's language.
public struct ReminderSubject: Hashable, Sendable {
    /// Where someone's day has begun, for the words of a day-of reminder
    /// sent while it is their day in their zone and not yet in yours.
    public struct TheirDay: Hashable, Sendable {
        /// Their place: the city of their zone ("Tokyo"), or `UTC+09:00`.
        public var place: String
        /// When their day began on the user's clock, `HH:MM`.
        public var since: String
        /// Whether that was on the day before the reminder's, on the user's
        /// clock: "since 23:00 yesterday here".
        public var yesterday: Bool

        public init(place: String, since: String, yesterday: Bool = false) {
            self.place = place
            self.since = since
            self.yesterday = yesterday
        }
    }

    /// The person's name as the `names` setting chose it (not yet on one line).
    public var name: String
    public var kind: EventKind
    /// How far ahead it fires (a weekend move's lead already in it).
    public var timing: NotificationRequest.Timing
    /// The age turned (or years married); `nil` when the year is unknown.
    public var age: Int?
    /// The other calendar of the date, when it is in one (``CalendarSystem``).
    public var calendar: CalendarSystem?
    /// In memory of someone who has died (``EventTreatment/memorial``).
    public var memorial: Bool
    /// Set for a zoned day-of reminder sent during their day (``ZonedDayOf/duringTheirDay``).
    public var theirDay: TheirDay?
    /// The labelled date it is about, for a ``EventKind/labelled`` event.
    public var labelled: LabelledDate?

    public init(
        name: String,
        kind: EventKind,
        timing: NotificationRequest.Timing,
        age: Int?,
        calendar: CalendarSystem? = nil,
        memorial: Bool = false,
        theirDay: TheirDay? = nil,
        labelled: LabelledDate? = nil
    ) {
        self.name = name
        self.kind = kind
        self.timing = timing
        self.age = age
        self.calendar = calendar
        self.memorial = memorial
        self.theirDay = theirDay
        self.labelled = labelled
    }
}
