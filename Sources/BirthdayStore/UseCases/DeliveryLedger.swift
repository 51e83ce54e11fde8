import BirthdayCore
import Foundation
import GRDB

/// A reminder a user named (``DeliveryLedger/resolve(_:)``): its stored id
/// and whether they named its snooze.
package struct ReminderReference: Sendable, Hashable {
    /// The stored id of the reminder, without `-snooze`.
    package var id: String
    /// Whether the snoozed copy (`<id>-snooze`) was named, rather than the reminder.
    package var snooze: Bool
    /// The person the reminder is about.
    package var personID: String

    package init(id: String, snooze: Bool, personID: String) {
        self.id = id
        self.snooze = snooze
        self.personID = personID
    }

    /// The stored notification id named: `<id>` or `<id>-snooze`.
    package var notificationID: String { snooze ? id + DeliveryLedger.snoozeSuffix : id }
}

/// What an id a user typed stands for.
package enum ReminderLookup: Sendable, Equatable {
    case found(ReminderReference)
    /// A short id that starts more than one reminder's public id; those ids, sorted.
    case ambiguous([String])
    case unknown
}

/// When a snooze ends.
package enum SnoozeTarget: Sendable, Equatable {
    /// This long after the start: now, or the reminder's own fire time when it has not fired yet.
    case after(Duration)
    /// At this instant, which must come after the start.
    case at(Date)
}

/// What ``DeliveryLedger/snooze(_:to:now:)`` did.
package enum SnoozeResult: Sendable, Equatable {
    /// The snooze is queued. `postponed`: the reminder had not fired, so it
    /// now fires only as its snooze, counted from its own fire time.
    case snoozed(DeliveryEntry, postponed: Bool)
    /// Neither pending nor in the ledger.
    case notFound
    /// The target is not after this instant (the reminder's own fire time,
    /// or now): a snooze never brings a reminder forward.
    case notAfter(Date)
}

/// The user's actions on reminders, recorded in the delivery ledger:
/// snooze and dismiss. The running daemon picks them up on its next pass
/// (the CLI sends it SIGHUP; the desktop channel's buttons go straight to
/// the daemon).
///
/// ## Naming a reminder (``resolve(_:)``)
/// A reminder is named by its stored id (`ada-birthday-dayof`, as in
/// `pending --json` and the command channel's `BIRTHDAYS_ID`), its public id
/// (`r-` and 16 hex digits, as in logs and `status`), or a prefix of the
/// public id of at least 4 hex digits (`r-3f9c`, as `pending` shows it).
/// `-snooze` after any of them names the snoozed copy instead.
///
/// ## Snoozing
/// - A reminder that has fired (delivered, failed, missed…) is shown again
///   at the target: `<id>-snooze`, a one-shot ledger row for the same
///   occurrence with the same title and body. It lives in the ledger, not
///   among the pending requests, so a reschedule does not remove it.
///   Snoozing again moves it.
/// - A reminder that has not fired yet is **postponed**: a duration counts
///   from its own fire time, a target must come after it, and the reminder
///   itself is recorded as `snoozed` so that only its copy fires. A snooze
///   never makes a reminder fire earlier than it would have.
///
/// ## Dismissing
/// Dismissing a reminder stops it and its snooze for the occurrence;
/// dismissing its snooze (`…-snooze`) stops only the snooze.
package struct DeliveryLedger: Sendable {
    /// The suffix of a snoozed copy's notification id: `<id>-snooze`.
    package static let snoozeSuffix = DeliveryEntry.snoozeSuffix
    /// The fewest hex digits a short public id may have.
    package static let shortIDDigits = 4

    package let database: AppDatabase

    package init(database: AppDatabase) {
        self.database = database
    }

    /// The reminder id without a `-snooze` suffix.
    package static func baseID(_ id: String) -> String {
        id.hasSuffix(snoozeSuffix) ? String(id.dropLast(snoozeSuffix.count)) : id
    }

    /// What `typed` names: a stored id, a public id or a short public id,
    /// each optionally followed by `-snooze` (see the type's documentation).
    package func resolve(_ typed: String) async throws(StoreError) -> ReminderLookup {
        try await database.read { db in try Self.resolve(typed, db) }
    }

    static func resolve(_ typed: String, _ db: Database) throws -> ReminderLookup {
        let text = typed.trimmingCharacters(in: .whitespaces)
        let snooze = text.hasSuffix(snoozeSuffix)
        let base = baseID(text)
        let known = try Self.known(db)
        if let personID = known[base] { return .found(ReminderReference(id: base, snooze: snooze, personID: personID)) }
        let lowered = base.lowercased()
        let digits = lowered.dropFirst(2)
        guard lowered.hasPrefix("r-"), (shortIDDigits...16).contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return .unknown }
        let ids = try SettingRecord.publicIDs(db)
        let matches = known.keys.filter { ids.reminder($0).hasPrefix(lowered) }
        switch matches.count {
        case 0: return .unknown
        case 1: return .found(ReminderReference(id: matches[0], snooze: snooze, personID: known[matches[0]] ?? ""))
        default: return .ambiguous(matches.map { ids.reminder($0) }.sorted())
        }
    }

    /// Every reminder id a user can name (pending or in the ledger, without
    /// `-snooze`), with its person's id.
    static func known(_ db: Database) throws -> [String: String] {
        var known: [String: String] = [:]
        for (id, personID) in try DeliveryRecord.reminderIDs(db) { known[baseID(id)] = personID }
        for (id, personID) in try PendingNotificationRecord.reminderIDs(db) { known[id] = personID }
        return known
    }

    /// Snoozes the reminder `reminder` names until `target` (see the type's
    /// documentation for when it counts from its own fire time).
    package func snooze(_ reminder: ReminderReference, to target: SnoozeTarget, now: Date) async throws(StoreError) -> SnoozeResult {
        try await database.write { db -> SnoozeResult in
            let id = reminder.id
            let pending = try PendingNotificationRecord.request(id: id, db)
            let latest = try DeliveryRecord.latest(id: id, db)
            // Not fired yet: still pending, or held in the ledger for a later instant.
            let unfiredAt: Date? =
                if let pending { pending.fireAt } else if let latest, latest.state == .snoozed || latest.state == .queued { latest.fireAt } else {
                    nil
                }
            let start = max(now, unfiredAt ?? now)
            let postponed = start > now
            let until: Date
            switch target {
            case .after(let duration): until = start.addingTimeInterval(duration.timeInterval)
            case .at(let instant): until = instant
            }
            guard until > start else { return .notAfter(start) }
            guard var entry = pending.map({ DeliveryEntry(queued: $0, at: now) }) ?? latest else { return .notFound }
            if postponed {
                // The reminder itself never fires now; its copy does.
                var original = entry
                original.state = .snoozed
                original.updatedAt = now
                if pending != nil {
                    if try !DeliveryRecord.insertIfAbsent(original, db) { _ = try DeliveryRecord.finish(original, from: [.queued], db) }
                    try PendingNotificationRecord.remove(ids: [id], db)
                } else {
                    _ = try DeliveryRecord.finish(original, from: [.queued], db)
                }
            }
            entry.notificationID = id + Self.snoozeSuffix
            entry.fireAt = until
            entry.state = .queued
            entry.late = false
            entry.attempts = 0
            entry.nextAttemptAt = nil
            entry.channels = nil
            entry.lastError = nil
            entry.deliveredAt = nil
            entry.updatedAt = now
            if try !DeliveryRecord.insertIfAbsent(entry, db) {
                try DeliveryRecord.requeue(entry, now: now, db)
            }
            return .snoozed(entry, postponed: postponed)
        }
    }

    /// Snoozes the reminder `id` names (any form ``resolve(_:)`` reads) for
    /// `duration`; `nil` when no reminder has that id, or it names several.
    @discardableResult
    package func snooze(id: String, for duration: Duration, now: Date) async throws(StoreError) -> SnoozeResult? {
        guard case .found(let reminder) = try await resolve(id) else { return nil }
        return try await snooze(reminder, to: .after(duration), now: now)
    }

    /// Marks the reminder `reminder` names dismissed for its latest
    /// occurrence: it is not sent, retried or snoozed any more. A reminder
    /// still pending is recorded as dismissed and removed from pending, so no
    /// reschedule brings it back for that occurrence. Its snooze goes with
    /// it; a snooze named on its own (``ReminderReference/snooze``) goes alone.
    ///
    /// - Returns: how many ledger rows it changed or added (0: nothing to dismiss).
    @discardableResult
    package func dismiss(_ reminder: ReminderReference, now: Date) async throws(StoreError) -> Int {
        try await database.write { db -> Int in
            let base = reminder.id
            if reminder.snooze { return try DeliveryRecord.dismiss(ids: [base + Self.snoozeSuffix], now: now, db) }
            var changed = 0
            if let pending = try PendingNotificationRecord.request(id: base, db) {
                var entry = DeliveryEntry(queued: pending, at: now)
                entry.state = .dismissed
                if try DeliveryRecord.insertIfAbsent(entry, db) { changed += 1 }
                try PendingNotificationRecord.remove(ids: [base], db)
            }
            changed += try DeliveryRecord.dismiss(ids: [base, base + Self.snoozeSuffix], now: now, db)
            return changed
        }
    }

    /// Dismisses the reminder `id` names (any form ``resolve(_:)`` reads);
    /// 0 when no reminder has that id, or it names several.
    @discardableResult
    package func dismiss(id: String, now: Date) async throws(StoreError) -> Int {
        guard case .found(let reminder) = try await resolve(id) else { return 0 }
        return try await dismiss(reminder, now: now)
    }
}
