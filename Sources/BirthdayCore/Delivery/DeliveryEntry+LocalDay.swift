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
    /// Never send it: it is no longer wanted (a greeting removed or skipped
    /// since it was planned, ``GreetingPlan/decision(for:occurrence:greeted:skipped:now:)``).
    case dismiss(reason: String)
}

extension DeliveryEntry {
    /// The suffix of a snoozed copy's notification id: `<id>-snooze`.
    public static let snoozeSuffix = "-snooze"

    /// Whether the row is a snooze: a one-shot at an instant the user chose.
    public var isSnooze: Bool { notificationID.hasSuffix(Self.snoozeSuffix) }

    /// The local day the reminder belongs to, whatever zone it was scheduled
    /// in: the occurrence itself for a day-of reminder, the day before for a
    /// day-before one, a week before for a 7-days-before one. A snooze (and
    /// an invitation's message, ``InvitationNotice``) belongs to the day its instant falls on in `timeZone`. A reminder
    /// moved off a weekend (``NotificationRequest/movedTo``) belongs to the
    /// Friday it was moved to. A reminder of someone with a zone of their own
    /// (``NotificationRequest/zone``) counts back from the local day of their
    /// day-of moment (``ZonedDayOf``) in `timeZone`, with `deliveryTime` and
    /// `quietAfter`: judged again in the zone in force, so it follows travel.
    public func localDay(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> LocalDate {
        localMoment(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter).day
    }

    /// The instant the reminder is meant for in `timeZone`: the delivery time
    /// on its local day (``FireTime``'s DST rules), a zoned day-of reminder's
    /// own moment (``ZonedDayOf``), or a snooze's own instant.
    public func localFireAt(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> Date {
        localMoment(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter).instant
    }

    /// ``localDay(in:deliveryTime:quietAfter:)`` and ``localFireAt(in:deliveryTime:quietAfter:)``
    /// together, a zoned reminder's ``ZonedDayOf`` worked out once for both.
    func localMoment(in timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay) -> (day: LocalDate, instant: Date) {
        // A snooze is due at the instant the user chose.
        if isSnooze { return (LocalDate.today(at: fireAt, in: timeZone), fireAt) }
        let occasion: DeliveryKind.Occasion
        switch deliveryKind {
        case .reminder(let reminder): occasion = reminder
        // The owner's message that an invitation was answered: due at its own instant.
        // A greeting to a friend: due at its own instant, their greeting-time in their zone (``GreetingPlan``).
        case .invitationNotice, .greeting: return (LocalDate.today(at: fireAt, in: timeZone), fireAt)
        // A digest and a room's message belong to their day, at the delivery time.
        case .digest, .announcement: occasion = DeliveryKind.Occasion()
        }
        let day: LocalDate
        if let moved = occasion.movedTo {
            day = moved
        } else if let zone = occasion.zone,
            let zoned = ZonedDayOf.moment(of: occurrenceDate, theirs: zone.timeZone, mine: timeZone, delivery: deliveryTime, quietAfter: quietAfter)
        {
            if timing == .dayOf { return (zoned.localDay, zoned.instant) }
            day = zoned.localDay.adding(days: -timing.daysBefore)
        } else {
            day = occurrenceDate.adding(days: -timing.daysBefore)
        }
        return (day, FireTime.instant(on: day, at: deliveryTime, in: timeZone) ?? fireAt)
    }

    /// The person's own zone (``NotificationRequest/zone``); `nil` is the user's.
    public var personZone: PersonZone? { deliveryKind.occasion?.zone }

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
        let (day, moment) = localMoment(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter)
        let isLate = late || now.timeIntervalSince(moment) > lateAfter.timeInterval
        if state == .retrying {
            return now >= RetryPolicy.deadline(dueDay: day, in: timeZone) ? .expire : .deliver(late: isLate)
        }
        if day < today { return .missed }
        if now < moment { return .wait(until: moment) }
        return .deliver(late: isLate)
    }
}
