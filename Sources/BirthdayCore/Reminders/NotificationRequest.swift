import Foundation

/// One pending reminder: what the local notification center holds, the
/// equivalent of a `UNNotificationRequest` with a one-shot calendar trigger.
///
/// The ``id`` is deterministic (``identifier(personID:kind:timing:)``), so
/// scheduling the same reminder twice replaces it instead of doubling it.
public struct NotificationRequest: Hashable, Sendable {
    /// The most requests that can be pending at once, as on iOS: the soonest 64 are kept.
    public static let pendingLimit = 64

    /// When the reminder fires relative to the event: a whole number of days
    /// before it, at the delivery time. Stored and shown as its raw value:
    /// `day-of` (0), `day-before` (1), `7-days-before` (any other number), the
    /// values `BIRTHDAYS_WHEN` and `pending --json` carry; the early reminder
    /// of a round birthday (the `round-birthdays` setting) is `round-14-days-before`.
    public struct Timing: Hashable, Sendable, Codable, Comparable, RawRepresentable, CustomStringConvertible {
        /// Days between the reminder's day and the event's day: 0 is the day itself.
        public let daysBefore: Int
        /// The early reminder of a round birthday, on top of the reminder days.
        public let round: Bool

        public init(daysBefore: Int, round: Bool = false) {
            self.daysBefore = max(0, daysBefore)
            self.round = round
        }

        /// On the day itself.
        public static let dayOf = Timing(daysBefore: 0)
        /// The day before.
        public static let dayBefore = Timing(daysBefore: 1)

        /// `day-of`, `day-before`, `7-days-before`.
        public var rawValue: String {
            if round { return "round-" + String(daysBefore) + "-days-before" }
            return switch daysBefore {
            case 0: "day-of"
            case 1: "day-before"
            default: String(daysBefore) + "-days-before"
            }
        }

        /// Parses ``rawValue``; `nil` for anything else (a value written by a
        /// newer version is not guessed).
        public init?(rawValue: String) {
            if rawValue.hasPrefix("round-") {
                guard let plain = Timing(rawValue: String(rawValue.dropFirst("round-".count))) else {
                    // `round-0-days-before` and `round-1-days-before` are written like any other.
                    let days = rawValue.dropFirst("round-".count).dropLast("-days-before".count)
                    guard rawValue.hasSuffix("-days-before"), let number = Int(days), number >= 0, String(number) == days else { return nil }
                    self.init(daysBefore: number, round: true)
                    return
                }
                self.init(daysBefore: plain.daysBefore, round: true)
                return
            }
            switch rawValue {
            case "day-of": self = .dayOf
            case "day-before": self = .dayBefore
            default:
                guard rawValue.hasSuffix("-days-before"), let days = Int(rawValue.dropLast("-days-before".count)), days >= 2,
                    String(days) == rawValue.dropLast("-days-before".count)
                else { return nil }
                self.init(daysBefore: days)
            }
        }

        /// The last part of a reminder id: `dayof`, `daybefore`, `7daysbefore`.
        public var idSuffix: String {
            if round { return "round" }
            return switch daysBefore {
            case 0: "dayof"
            case 1: "daybefore"
            default: String(daysBefore) + "daysbefore"
            }
        }

        public var description: String { rawValue }

        /// Earlier reminders first: a week before, then the day before, then the day of.
        public static func < (lhs: Timing, rhs: Timing) -> Bool {
            lhs.daysBefore != rhs.daysBefore ? lhs.daysBefore > rhs.daysBefore : (lhs.round && !rhs.round)
        }
    }

    /// `<personID>-<kind>-<dayof|daybefore|Ndaysbefore>`, e.g. `c-1a2b3c4d5e6f7a8b-birthday-dayof`;
    /// for a date in another calendar `<personID>-<calendar>-<kind>-…`,
    /// e.g. `ada-chinese-birthday-dayof`; for a labelled date
    /// `<personID>-date-<label hash>-…` (``identifier(personID:kind:timing:calendar:labelID:)``).
    public var id: String
    public var personID: String
    public var kind: EventKind
    /// What it is: a reminder of one person's occasion, a digest, a room's
    /// message, an invitation's notice (``DeliveryKind``).
    public var deliveryKind: DeliveryKind
    public var timing: Timing
    /// The one instant it fires at.
    public var fireAt: Date
    /// The day of the birthday or anniversary it is about (not the day it fires).
    public var occurrenceDate: LocalDate
    public var title: String
    public var body: String
    /// The desktop's hints, what a tap on the notification needs:
    /// `person_id`, `kind`, `when` and `occurrence` for a reminder. What the
    /// request is lives in ``deliveryKind``, never here.
    public var userInfo: [String: String]

    /// A reminder of one person's occasion: of a date in `calendar`, moved
    /// by a weekend rule to `movedTo`, planned in the person's own `zone`, of
    /// a labelled date (its label and its part of the id).
    public init(
        personID: String,
        kind: EventKind,
        timing: Timing,
        fireAt: Date,
        occurrenceDate: LocalDate,
        title: String,
        body: String,
        calendar: CalendarSystem? = nil,
        movedTo: LocalDate? = nil,
        zone: PersonZone? = nil,
        labelled: (label: String, id: String)? = nil
    ) {
        self.init(
            personID: personID,
            kind: kind,
            timing: timing,
            fireAt: fireAt,
            occurrenceDate: occurrenceDate,
            title: title,
            body: body,
            deliveryKind: .reminder(
                DeliveryKind.Occasion(calendar: calendar, label: labelled?.label, labelID: labelled?.id, movedTo: movedTo, zone: zone)
            )
        )
    }

    /// A request of any kind; `userInfo` `nil` gives a reminder's hints
    /// (`person_id`, `kind`, `when`, `occurrence`).
    public init(
        personID: String,
        kind: EventKind,
        timing: Timing,
        fireAt: Date,
        occurrenceDate: LocalDate,
        title: String,
        body: String,
        deliveryKind: DeliveryKind,
        userInfo: [String: String]? = nil
    ) {
        let occasion = deliveryKind.occasion
        self.id = NotificationRequest.identifier(
            personID: personID,
            kind: kind,
            timing: timing,
            calendar: occasion?.calendar,
            labelID: occasion?.labelID
        )
        self.personID = personID
        self.kind = kind
        self.deliveryKind = deliveryKind
        self.timing = timing
        self.fireAt = fireAt
        self.occurrenceDate = occurrenceDate
        self.title = title
        self.body = body
        self.userInfo =
            userInfo ?? [
                "person_id": personID,
                "kind": kind.rawValue,
                "when": timing.rawValue,
                "occurrence": occurrenceDate.description,
            ]
    }

    /// The calendar of the date it is about; `nil` for a Gregorian date and for what is not a reminder.
    public var calendar: CalendarSystem? { deliveryKind.occasion?.calendar }

    /// The label of a labelled date's reminder; `nil` for the other kinds.
    public var label: String? { deliveryKind.occasion?.label }

    /// The deterministic identifier: `<personID>-<kind>-<timing>`, as
    /// `<personID>-birthday-dayof`, `<personID>-birthday-daybefore`,
    /// `<personID>-birthday-7daysbefore`, and `-anniversary-` likewise
    /// (``Timing/idSuffix``); with a calendar its name comes after the
    /// person's id: `<personID>-chinese-birthday-dayof`.
    ///
    /// A labelled date (``EventKind/labelled``) is named by its label, not its
    /// kind: `<personID>-date-<8 hex digits>-<timing>`, the digits a stable
    /// hash (FNV-1a) of the label compared without case
    /// (``LabelledDate/key(_:)``), and `-2`, `-3`, … after them for the
    /// second and later dates of one person with the same label, in
    /// ``LabelledDate`` order: `johnny-date-1f2e3d4c-dayof`. So a changed
    /// date keeps its ids, and a renamed label gets new ones.
    public static func identifier(
        personID: String,
        kind: EventKind,
        timing: Timing,
        calendar: CalendarSystem? = nil,
        labelID: String? = nil
    ) -> String {
        if kind == .labelled, let labelID { return personID + "-" + labelID + "-" + timing.idSuffix }
        return personID + "-" + (calendar.map { $0.rawValue + "-" } ?? "") + kind.rawValue + "-" + timing.idSuffix
    }

    /// The person's zone the reminder was planned for; `nil` is the user's own.
    public var zone: PersonZone? { deliveryKind.occasion?.zone }

    /// The day the reminder was moved to by its person's weekend rule
    /// (``WeekendRule``); `nil` when not moved.
    public var movedTo: LocalDate? { deliveryKind.occasion?.movedTo }

    /// The local day the reminder is for: the day it was moved to, else its
    /// event's day less the timing's days. For someone with a zone of their
    /// own (``zone``) the ledger's ``DeliveryEntry/localDay(in:deliveryTime:quietAfter:)``
    /// is the day, which may be a day earlier.
    public var dueDay: LocalDate { movedTo ?? occurrenceDate.adding(days: -timing.daysBefore) }

    /// The order of pending requests, soonest first: by fire instant, then by
    /// the event's day (so at one instant the day-of of a nearer event comes
    /// before the day-before of a later one), birthdays before anniversaries,
    /// then person id, then timing. It is total, so the 64 kept never depend
    /// on the order requests were added in.
    public static func firesBefore(_ a: NotificationRequest, _ b: NotificationRequest) -> Bool {
        if a.fireAt != b.fireAt { return a.fireAt < b.fireAt }
        if a.occurrenceDate != b.occurrenceDate { return a.occurrenceDate < b.occurrenceDate }
        if a.kind != b.kind { return a.kind < b.kind }
        if a.personID != b.personID { return a.personID < b.personID }
        if a.timing != b.timing { return a.timing < b.timing }
        return a.id < b.id
    }
}
