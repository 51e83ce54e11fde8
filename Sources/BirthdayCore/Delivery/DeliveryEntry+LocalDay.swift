import Foundation

/// What the engine does with a ledger row that may be due.
public enum DueDecision: Sendable, Equatable {
    /// Its local day has ended: record it as missed, never send it.
    case missed
    /// Its local moment has not come yet (the zone moved west, or a snooze
    /// runs): move it to this instant and wait.
    case wait(until: Date)
    /// Send it now; `late` when more than the late margin after its local moment.
    case deliver(late: Bool)
    /// A retry whose local day has ended: record it as failed.
    case expire
}

extension DeliveryEntry {
    /// The suffix of a snoozed copy's notification id: `<id>-snooze`.
    public static let snoozeSuffix = "-snooze"

    /// Whether the row is a snooze: a one-shot at an instant the user chose.
    public var isSnooze: Bool { notificationID.hasSuffix(Self.snoozeSuffix) }

    /// The local day the reminder belongs to, whatever zone it was scheduled
    /// in: the occurrence itself for a day-of reminder, the day before for a
    /// day-before one, a week before for a 7-days-before one. A snooze
    /// belongs to the day its instant falls on in `timeZone`. A reminder
    /// moved off a weekend (``NotificationRequest/movedTo``) belongs to the
    /// Friday it was moved to.
    public func localDay(in timeZone: TimeZone) -> LocalDate {
        if isSnooze { return LocalDate.today(at: fireAt, in: timeZone) }
        if let moved = userInfo[NotificationRequest.movedToKey].flatMap({ LocalDate(iso: $0) }) { return moved }
        return occurrenceDate.adding(days: -timing.daysBefore)
    }

    /// The instant the reminder is meant for in `timeZone`: the delivery time
    /// on its local day (``FireTime``'s DST rules), or a snooze's own instant.
    public func localFireAt(in timeZone: TimeZone, deliveryTime: TimeOfDay) -> Date {
        if isSnooze { return fireAt }
        return FireTime.instant(on: localDay(in: timeZone), at: deliveryTime, in: timeZone) ?? fireAt
    }

    /// What to do with this row at `now` in `timeZone`.
    ///
    /// ## Reminders belong to a local day
    /// A reminder is judged by its local day in the zone in force now, not
    /// by the instant it was scheduled for in an earlier zone, so travel never
    /// sends a greeting on the wrong day:
    /// - a queued row whose local day has ended is missed;
    /// - one whose local day (or, on that day, whose delivery time) has not
    ///   come yet waits for its new local instant, never missed (westward);
    /// - on its local day after the delivery time it is sent, late when more
    ///   than `lateAfter` after it (eastward, or after a suspend);
    /// - a retry stops at the end of its local day.
    ///
    /// Exactly once still holds: the ledger is keyed by reminder id and
    /// occurrence, which no zone changes.
    public func decision(now: Date, timeZone: TimeZone, deliveryTime: TimeOfDay, lateAfter: Duration) -> DueDecision {
        let today = LocalDate.today(at: now, in: timeZone)
        let day = localDay(in: timeZone)
        let moment = localFireAt(in: timeZone, deliveryTime: deliveryTime)
        let isLate = late || now.timeIntervalSince(moment) > lateAfter.timeInterval
        if state == .retrying {
            return now >= RetryPolicy.deadline(dueDay: day, in: timeZone) ? .expire : .deliver(late: isLate)
        }
        if day < today { return .missed }
        if now < moment { return .wait(until: moment) }
        return .deliver(late: isLate)
    }
}
