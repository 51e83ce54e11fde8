import BirthdayCore
import Foundation
import GRDB

/// One of the choices `birthdays remind` makes: left as it is, or set
/// (`nil` being "follow the default").
package enum ChoiceChange<Value: Sendable>: Sendable {
    case keep
    case set(Value?)

    /// `value` changed as this says.
    func applied(to value: Value?) -> Value? {
        switch self {
        case .keep: value
        case .set(let new): new
        }
    }
}

/// What a choice about one person changed.
package struct PersonChoiceResult: Sendable {
    /// The person as now stored.
    package var person: Person
    /// The reschedule that followed, in the same transaction; `nil` without a scheduler.
    package var rescheduled: RescheduleResult?
}

extension AppDatabase {
    /// Records `birthdays exclude` (`.exclude`) or `birthdays include`
    /// (`.include`) for the person with `id`. The choice outlasts imports and
    /// wins over the card's `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR` (``Exclusion``).
    ///
    /// The feed's revision is bumped, and when a `scheduler` is given the
    /// reminders are rescheduled in the same transaction, so an excluded
    /// person's pending reminders are gone when this returns.
    ///
    /// - Returns: `nil` when no person has `id` (nothing is written).
    package func setExclusion(
        _ choice: Exclusion.Choice,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> PersonChoiceResult? {
        try await changeChoices(personID: id, now: now, scheduler: scheduler) { $0.exclusion.choice = choice }
    }

    /// Records `birthdays remind PERSON --days …` (`days`) or `--default`
    /// (`nil`: the `reminders` setting applies again) for the person with
    /// `id`; imports never change it. Rescheduled like ``setExclusion(_:personID:now:rescheduling:)``.
    ///
    /// - Returns: `nil` when no person has `id` (nothing is written).
    package func setReminderDays(
        _ days: ReminderDays?,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> PersonChoiceResult? {
        try await changeChoices(personID: id, now: now, scheduler: scheduler) { $0.reminderDays = days }
    }

    /// Records `birthdays remind PERSON` with any of `--days`, `--channels`
    /// and `--weekend` (each `.keep` when not given; `.set(nil)` goes back to
    /// the default: the `reminders` setting, every channel, no move), for the
    /// person with `id`, in one transaction; imports and syncs never change
    /// them. The channel names are stored as given: the caller checks they
    /// exist. Rescheduled like ``setExclusion(_:personID:now:rescheduling:)``.
    ///
    /// - Returns: `nil` when no person has `id` (nothing is written).
    package func setReminderChoices(
        days: ChoiceChange<ReminderDays>,
        channels: ChoiceChange<[String]>,
        weekend: ChoiceChange<WeekendRule>,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> PersonChoiceResult? {
        try await changeChoices(personID: id, now: now, scheduler: scheduler) { person in
            person.reminderDays = days.applied(to: person.reminderDays)
            person.channels = channels.applied(to: person.channels).flatMap { $0.isEmpty ? nil : $0 }
            person.weekend = weekend.applied(to: person.weekend)
        }
    }

    /// Records `birthdays zone PERSON ZONE|local` (`choice`) or `--default`
    /// (`nil`: the card's `TZ` decides again) for the person with `id`;
    /// imports and syncs never change it. Rescheduled like
    /// ``setExclusion(_:personID:now:rescheduling:)``: the day-of reminder
    /// moves to the first moment of their day (``ZonedDayOf``).
    ///
    /// - Returns: `nil` when no person has `id` (nothing is written).
    package func setZoneChoice(
        _ choice: ZoneChoice?,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> PersonChoiceResult? {
        try await changeChoices(personID: id, now: now, scheduler: scheduler) { $0.zoneChoice = choice }
    }

    /// The channels chosen by everyone who chose any (`remind --channels`), by person id.
    package func channelChoices() async throws(StoreError) -> [String: [String]] {
        try await read { db in try PersonRecord.channelChoices(db) }
    }

    /// Keeps `note` as the person's note (``PersonNote``), or clears it
    /// (`nil`); the person as they are now, or `nil` when there is nobody
    /// with `id`. The reschedule (in the same transaction) writes the
    /// pending digest's body again, which carries the note.
    package func setNote(
        _ note: String?,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> Person? {
        let result = try await write(at: now) { db -> (Person, RescheduleResult?)? in
            guard try PersonRecord.setNote(note, id: id, db),
                let person = try PersonRecord.person(id: id, db)
            else { return nil }
            try PersonRecord.clearUnmadeChoicesOnCards(of: id, db)
            return (person, try scheduler?.reschedule(db))
        }
        if let rescheduled = result?.1 { scheduler?.log(rescheduled) }
        return result?.0
    }

    private func changeChoices(
        personID id: String,
        now: Date,
        scheduler: NotificationScheduler?,
        _ change: @escaping @Sendable (inout Person) -> Void
    ) async throws(StoreError) -> PersonChoiceResult? {
        let result = try await write(at: now) { db -> PersonChoiceResult? in
            guard var person = try PersonRecord.fetchOne(db, key: id)?.person else { return nil }
            change(&person)
            try PersonRecord.saveChoices(of: person, db)
            // A choice cleared on a linked person is cleared on their cards too (issue 43): none comes back at a relink.
            try PersonRecord.clearUnmadeChoicesOnCards(of: id, db)
            return PersonChoiceResult(person: person, rescheduled: try scheduler?.reschedule(db))
        }
        if let rescheduled = result?.rescheduled { scheduler?.log(rescheduled) }
        return result
    }
}
