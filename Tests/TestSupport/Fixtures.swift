import BirthdayCore
import Foundation

/// A day that exists (tests only: it traps on an impossible date).
public func date(_ y: Int, _ m: Int, _ d: Int) -> LocalDate { LocalDate(year: y, month: m, day: d)! }

/// A birthday or anniversary that exists (tests only).
public func event(_ y: Int?, _ m: Int, _ d: Int) -> EventDate { EventDate(year: y, month: m, day: d)! }

/// A reminder with the given id and text, due 2026-03-10 09:00 in Berlin.
public func sampleReminder(
    id: String = "r-1",
    personID: String = "p-1",
    title: String = "Ada's birthday",
    body: String = "Ada turns 37 today",
    when: NotificationRequest.Timing = .dayOf,
    late: Bool = false,
    zone: String = "Europe/Berlin"
) -> Reminder {
    let timeZone = TimeZone(identifier: zone)!
    let fireAt = ReferenceTime.parse("2026-03-10T09:00", timeZone: timeZone)!
    return Reminder(
        id: id,
        personID: personID,
        kind: .birthday,
        when: when,
        fireAt: fireAt,
        timeZone: timeZone,
        title: title,
        body: body,
        late: late,
        occurrenceDate: when == .dayOf ? date(2026, 3, 10) : date(2026, 3, 11),
        logID: id
    )
}

/// The namespace of the delivery tests, so `swift test --filter Delivery` runs them all.
public enum DeliveryTests {}
