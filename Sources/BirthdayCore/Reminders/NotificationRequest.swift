import Foundation

/// One pending reminder: what the local notification center holds, the
/// equivalent of a `UNNotificationRequest` with a one-shot calendar trigger.
///
/// The ``id`` is deterministic (``identifier(personID:kind:timing:)``), so
/// scheduling the same reminder twice replaces it instead of doubling it.
public struct NotificationRequest: Hashable, Sendable {
    /// The most requests that can be pending at once, as on iOS: the soonest 64 are kept.
    public static let pendingLimit = 64

    /// When the reminder fires relative to the event.
    public enum Timing: String, Sendable, CaseIterable, Codable, Comparable {
        case dayBefore = "day-before"
        case dayOf = "day-of"

        public static func < (lhs: Timing, rhs: Timing) -> Bool { lhs == .dayBefore && rhs == .dayOf }
    }

    /// `<personID>-<kind>-<dayof|daybefore>`, e.g. `c-1a2b3c4d5e6f7a8b-birthday-dayof`;
    /// for a date in another calendar `<personID>-<calendar>-<kind>-…`,
    /// e.g. `ada-chinese-birthday-dayof`.
    public var id: String
    public var personID: String
    public var kind: EventKind
    /// The calendar of the date it is about; `nil` for a Gregorian date.
    public var calendar: CalendarSystem?
    public var timing: Timing
    /// The one instant it fires at.
    public var fireAt: Date
    /// The day of the birthday or anniversary it is about (not the day it fires).
    public var occurrenceDate: LocalDate
    public var title: String
    public var body: String
    /// What a tap on the notification needs: `person_id`, `kind`, `when`,
    /// `occurrence`, and `calendar` for a date in another calendar.
    public var userInfo: [String: String]

    public init(
        personID: String,
        kind: EventKind,
        timing: Timing,
        fireAt: Date,
        occurrenceDate: LocalDate,
        title: String,
        body: String,
        calendar: CalendarSystem? = nil,
        userInfo: [String: String]? = nil
    ) {
        self.id = NotificationRequest.identifier(personID: personID, kind: kind, timing: timing, calendar: calendar)
        self.personID = personID
        self.kind = kind
        self.calendar = calendar
        self.timing = timing
        self.fireAt = fireAt
        self.occurrenceDate = occurrenceDate
        self.title = title
        self.body = body
        var info =
            userInfo ?? [
                "person_id": personID,
                "kind": kind.rawValue,
                "when": timing.rawValue,
                "occurrence": occurrenceDate.description,
            ]
        if userInfo == nil, let calendar { info["calendar"] = calendar.rawValue }
        self.userInfo = info
    }

    /// The deterministic identifier: `<personID>-birthday-dayof`,
    /// `<personID>-birthday-daybefore`, `<personID>-anniversary-dayof`,
    /// `<personID>-anniversary-daybefore`; with a calendar its name comes
    /// after the person's id: `<personID>-chinese-birthday-dayof`.
    public static func identifier(personID: String, kind: EventKind, timing: Timing, calendar: CalendarSystem? = nil) -> String {
        personID + "-" + (calendar.map { $0.rawValue + "-" } ?? "") + kind.rawValue + "-" + (timing == .dayOf ? "dayof" : "daybefore")
    }

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
