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
    /// Friday it was moved to. A reminder of someone with a zone of their own
    /// (``NotificationRequest/zone``) counts back from the local day of their
    /// day-of moment (``ZonedDayOf``) in `timeZone`, with `deliveryTime` and
    /// `quietAfter`: judged again in the zone in force, so it follows travel.
    public func localDay(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> LocalDate {
        if isSnooze { return LocalDate.today(at: fireAt, in: timeZone) }
        if let moved = userInfo[NotificationRequest.movedToKey].flatMap({ LocalDate(iso: $0) }) { return moved }
        let base = zonedDayOf(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter)?.localDay ?? occurrenceDate
        return base.adding(days: -timing.daysBefore)
    }

    /// The instant the reminder is meant for in `timeZone`: the delivery time
    /// on its local day (``FireTime``'s DST rules), a zoned day-of reminder's
    /// own moment (``ZonedDayOf``), or a snooze's own instant.
    public func localFireAt(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> Date {
        if isSnooze { return fireAt }
        if timing == .dayOf, userInfo[NotificationRequest.movedToKey] == nil,
            let zoned = zonedDayOf(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter)
        {
            return zoned.instant
        }
        return FireTime.instant(on: localDay(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter), at: deliveryTime, in: timeZone)
            ?? fireAt
    }

    /// The day-of moment of a person with a zone of their own, for the user in `timeZone`.
    private func zonedDayOf(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> ZonedDayOf? {
        guard let zone = userInfo[NotificationRequest.zoneKey].flatMap({ PersonZone(cardValue: $0) }) else { return nil }
        return ZonedDayOf.moment(of: occurrenceDate, theirs: zone.timeZone, mine: timeZone, delivery: deliveryTime, quietAfter: quietAfter)
    }

    /// What to do with this row at `now` in `timeZone`.
    ///
    /// ## Reminders belong to a local day
    /// A reminder is judged by its local day in the zone in force now, not
    /// by the instant it was scheduled for in an earlier zone, so travel never
    /// sends a greeting on the wrong day:
    /// - a queued row whose local day has ended is missed;
    /// - one whose local day (or, on that day, whose moment) has not
    ///   come yet waits for its new local instant, never missed (westward);
    /// - on its local day after its moment it is sent, late when more
    ///   than `lateAfter` after it (eastward, or after a suspend);
    /// - a retry stops at the end of its local day.
    ///
    /// The moment is the delivery time, or for the day-of reminder of
    /// someone with a zone of their own the first moment of their day in
    /// the window up to `quietAfter` (``ZonedDayOf``), computed again in the
    /// zone in force.
    ///
    /// Exactly once still holds: the ledger is keyed by reminder id and
    /// occurrence, which no zone changes.
    public func decision(
        now: Date,
        timeZone: TimeZone,
        deliveryTime: TimeOfDay,
        quietAfter: TimeOfDay,
        lateAfter: Duration
    ) -> DueDecision {
        let today = LocalDate.today(at: now, in: timeZone)
        let day = localDay(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter)
        let moment = localFireAt(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter)
        let isLate = late || now.timeIntervalSince(moment) > lateAfter.timeInterval
        if state == .retrying {
            return now >= RetryPolicy.deadline(dueDay: day, in: timeZone) ? .expire : .deliver(late: isLate)
        }
        if day < today { return .missed }
        if now < moment { return .wait(until: moment) }
        return .deliver(late: isLate)
    }
}
