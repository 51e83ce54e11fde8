import BirthdayCore
import Foundation
import GRDB

/// What is due at the start of a delivery pass (``AppDatabase/collectDue(now:systemTimeZone:)``).
package struct DueWork: Sendable {
    package var settings: Settings
    /// The permission as stored.
    package var status: AuthorizationStatus
    /// Rows added to the ledger because their instant came.
    package var queued: Int
    /// Ledger rows that are queued or retrying and due, soonest first.
    package var entries: [DeliveryEntry]
    /// The keyed hash for the ids logs show.
    package var publicIDs: PublicID
    /// The channels the user added that deliver now (on, and not paused).
    package var remoteChannels: [RemoteChannel]
    /// The channels chosen for the people of ``entries`` who chose any
    /// (`birthdays remind PERSON --channels`), by person id.
    package var personChannels: [String: [String]] = [:]
    /// The ways to reach the people of ``entries`` who have any, and their
    /// notes, by person id: read as the reminder goes out, so a changed card
    /// or note is heard.
    package var reach: [String: PersonReach] = [:]
    /// The team rooms (`birthdays announce`), for the rows that are their messages.
    package var rooms: [AnnounceRoom] = []
    /// The friends of the rows that are greetings (`birthdays greet`), read as they go out, by person id.
    package var greetings: [String: GreetingDue] = [:]
    /// The day of the greeting not sent yet of each person of the rows that
    /// are birthday reminders, for those who have one (a greeted friend),
    /// by person id: their reminder of that day may skip it.
    package var unsentGreetings: [String: LocalDate] = [:]
}

/// What the delivery engine's next wakeup depends on (``AppDatabase/wakeupInputs()``).
package struct WakeupInputs: Sendable {
    package var settings: Settings
    /// The soonest pending request's instant.
    package var pending: Date?
    /// The soonest queued, retrying or snoozed ledger row's instant.
    package var ledger: Date?
}

/// The delivery engine's transactions (the engine itself, with its loop, is
/// the daemon's): each is one transaction over the pending requests, the
/// ledger and the settings, with the rules of the engine's documentation.
extension AppDatabase {
    /// Moves every pending request whose instant has come into the ledger
    /// (as `queued`, in one transaction with its removal from pending), and
    /// reads what is to be handled now, in the same transaction.
    package func collectDue(now: Date, systemTimeZone: TimeZone) async throws(StoreError) -> DueWork {
        try await write { db in
            let settings = try SettingRecord.settings(db)
            let queued = try NotificationScheduler.queueDue(
                now: now,
                timeZone: settings.resolvedTimeZone(system: systemTimeZone),
                deliveryTime: settings.deliveryTime,
                quietAfter: settings.quietAfter,
                db
            )
            let entries = try DeliveryRecord.workable(now: now, db)
            return DueWork(
                settings: settings,
                status: try SettingRecord.authorizationStatus(db),
                queued: queued,
                entries: entries,
                publicIDs: try SettingRecord.publicIDs(db),
                remoteChannels: try ChannelRecord.delivering(db),
                personChannels: try PersonRecord.channelChoices(ids: Array(Set(entries.map(\.personID))), db),
                reach: try ContactPointRecord.reach(ids: Array(Set(entries.map(\.personID))), db),
                rooms: entries.contains { $0.announceRoom != nil } ? try AnnounceRoomRecord.all(db) : [],
                greetings: try GreetingDue.read(personIDs: Array(Set(entries.compactMap(\.deliveryKind.greetedPersonID))).sorted(), db),
                unsentGreetings: try GreetingDue.unsentDays(
                    personIDs: Array(
                        Set(entries.filter { if case .reminder = $0.deliveryKind { $0.kind == .birthday } else { false } }.map(\.personID))
                    ).sorted(),
                    db
                )
            )
        }
    }

    /// Marks rows left in `sending` (a daemon died while handing them over) as
    /// `interrupted`; how many.
    package func interruptSending(now: Date) async throws(StoreError) -> Int {
        try await write { db in try DeliveryRecord.interruptSending(now: now, db) }
    }

    /// Claims `entry` for sending (`queued` or `retrying` → `sending`); whether
    /// this caller got it (another engine may have claimed it first).
    package func claimDelivery(_ entry: DeliveryEntry, now: Date) async throws(StoreError) -> Bool {
        try await write { db in try DeliveryRecord.claim(entry, now: now, db) }
    }

    /// Saves `entry` if its row is still in one of `states`; whether it was.
    package func finishDelivery(_ entry: DeliveryEntry, from states: [DeliveryEntry.State]) async throws(StoreError) -> Bool {
        try await write { db in try DeliveryRecord.finish(entry, from: states, db) }
    }

    /// Moves a row whose local day or time has not come yet (the zone moved west) to `instant`.
    package func moveDelivery(_ entry: DeliveryEntry, to instant: Date, now: Date) async throws(StoreError) {
        try await write { db in try DeliveryRecord.move(entry, to: instant, now: now, db) }
    }

    /// Stores `authorized` if the permission is still `provisional`; whether it did.
    package func authorizeIfProvisional() async throws(StoreError) -> Bool {
        try await write { db -> Bool in
            guard try SettingRecord.authorizationStatus(db) == .provisional else { return false }
            try SettingRecord.set(AuthorizationStatus.authorized.rawValue, for: .authorization, db)
            return true
        }
    }

    /// The settings and the soonest pending and ledger instants, read together.
    package func wakeupInputs() async throws(StoreError) -> WakeupInputs {
        try await read { db in
            WakeupInputs(
                settings: try SettingRecord.settings(db),
                pending: try PendingNotificationRecord.soonestFireAt(db),
                ledger: try DeliveryRecord.nextWork(db)
            )
        }
    }
}
