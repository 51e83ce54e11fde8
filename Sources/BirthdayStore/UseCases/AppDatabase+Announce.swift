import BirthdayCore
import BirthdayText
import Foundation
import GRDB

/// One room as `announce list` shows it.
package struct AnnounceRoomSummary: Sendable, Hashable {
    package var room: AnnounceRoom
    /// How the room fared (``ChannelStatus``); `nil` before its first message or test.
    package var status: ChannelStatus?
    /// How many people are left out of it (`exclude PERSON --announce NAME`).
    package var excluded: Int
    /// Its next message, when a day with birthdays lies ahead.
    package var next: Announcement?
}

/// The team rooms (`birthdays announce`): their rows, who is left out of
/// each, and the next message of each, which ``NotificationScheduler``
/// plans as a pending request like a digest.
extension AppDatabase {
    /// Every room, oldest first.
    package func announceRooms() async throws(StoreError) -> [AnnounceRoom] {
        try await read { db in try AnnounceRoomRecord.all(db) }
    }

    /// Adds `room`; false when a room of that name exists (nothing is written then).
    package func addAnnounceRoom(_ room: AnnounceRoom, now: Date) async throws(StoreError) -> Bool {
        try await write { db in try AnnounceRoomRecord.add(room, now: now, db) }
    }

    /// Removes room `name` with who it leaves out, its state and its pending
    /// message (its ledger rows stay); whether there was one.
    package func removeAnnounceRoom(named name: String) async throws(StoreError) -> Bool {
        try await write { db in try AnnounceRoomRecord.remove(named: name, db) }
    }

    /// Leaves `personID` out of room `room` (or takes them back in), and
    /// reschedules in the same transaction; `nil` when there is no such
    /// room, else whether anything changed.
    package func setAnnounceExclusion(
        room: String,
        personID: String,
        excluded: Bool,
        rescheduling scheduler: NotificationScheduler
    ) async throws(StoreError) -> Bool? {
        try await write { db -> Bool? in
            guard try AnnounceRoomRecord.fetchOne(db, key: room) != nil else { return nil }
            let changed = try AnnounceExclusionRecord.set(room: room, personID: personID, excluded: excluded, db)
            if changed { _ = try scheduler.reschedule(db) }
            return changed
        }
    }

    /// Every room with its state, who it leaves out and its next message
    /// from `now` on (today's unless the ledger holds it: ``AnnouncePlanner/firstDay(at:in:announcedToday:)``).
    package func announceSummaries(now: Date, systemTimeZone: TimeZone) async throws(StoreError) -> [AnnounceRoomSummary] {
        try await read { db in
            let settings = try SettingRecord.settings(db)
            let zone = settings.resolvedTimeZone(system: systemTimeZone)
            let rooms = try AnnounceRoomRecord.all(db)
            let next = try Self.announcements(db, rooms: rooms, settings: settings, firstDay: try Self.firstDays(db, now: now, timeZone: zone))
            let states = try ChannelStateRecord.all(db)
            let excluded = try AnnounceExclusionRecord.counts(db)
            return rooms.map { room in
                AnnounceRoomSummary(room: room, status: states[room.stateName], excluded: excluded[room.name] ?? 0, next: next[room.name])
            }
        }
    }

    /// The message room `name` sends on `day` (`announce test`): who of its
    /// group has a birthday announced that day; `nil` when there is no such room.
    package func announcement(room name: String, on day: LocalDate) async throws(StoreError) -> Announcement?? {
        try await read { db -> Announcement?? in
            guard let room = try AnnounceRoomRecord.fetchOne(db, key: name)?.room else { return .none }
            let settings = try SettingRecord.settings(db)
            // From the day before the weekend before it: whoever the room announces on `day`.
            let found = try Self.announcements(db, rooms: [room], settings: settings, firstDay: { _ in day })[name]
            return .some(found.flatMap { $0.day == day ? $0 : nil })
        }
    }

    /// Each room's next message from `firstDay` on (``AnnouncePlanner``), by
    /// room name; a room whose group has no birthdays has none. The people
    /// are read once for every room.
    static func announcements(
        _ db: Database,
        rooms: [AnnounceRoom],
        settings: Settings,
        firstDay: (AnnounceRoom) -> LocalDate
    ) throws -> [String: Announcement] {
        guard !rooms.isEmpty else { return [:] }
        var planners: [(planner: AnnouncePlanner, members: Set<String>)] = []
        for room in rooms {
            let members = Set(try PersonGroupRecord.members(of: room.group, db)).subtracting(try AnnounceExclusionRecord.people(room: room.name, db))
            planners.append((AnnouncePlanner(room: room, firstDay: firstDay(room), leapDay: settings.leapDay), members))
        }
        let everyone = planners.reduce(into: Set<String>()) { $0.formUnion($1.members) }
        guard !everyone.isEmpty else { return [:] }
        let rules = settings.treatmentRules
        // The groups' people alone, by id: a room costs its group, not the whole address book.
        try PersonRecord.forEachBirthday(ids: everyone.sorted(), db) { date, traits, id, name in
            guard let treatment = rules.treatment(of: .birthday, for: traits), !treatment.memorial else { return }
            for index in planners.indices where planners[index].members.contains(id) {
                planners[index].planner.offer(date, personID: id, name: name)
            }
        }
        var result: [String: Announcement] = [:]
        for (planner, _) in planners {
            if let next = planner.announcement() { result[planner.room.name] = next }
        }
        return result
    }

    /// Each room's first day at `now` (``AnnouncePlanner/firstDay(at:in:announcedToday:)``):
    /// today, unless the ledger holds its message for today.
    static func firstDays(_ db: Database, now: Date, timeZone: TimeZone) throws -> (AnnounceRoom) -> LocalDate {
        let announced = try DeliveryRecord.announcedRooms(on: LocalDate.today(at: now, in: timeZone), db)
        return { room in AnnouncePlanner.firstDay(at: now, in: timeZone, announcedToday: announced.contains(room.name)) }
    }

    /// The pending requests of every room's next message (see
    /// ``NotificationScheduler``): on its day at the delivery time, in the
    /// room's language (else the `language` setting). Today's is planned
    /// even once the delivery time has passed, unless the ledger holds it:
    /// it is due at once, sent late today or recorded as missed after it,
    /// as a reminder is (``AnnouncePlanner``).
    static func announceRequests(
        _ db: Database,
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        systemLocale: String?
    ) throws -> [NotificationRequest] {
        let rooms = try AnnounceRoomRecord.all(db)
        guard !rooms.isEmpty else { return [] }
        let found = try announcements(db, rooms: rooms, settings: settings, firstDay: try firstDays(db, now: now, timeZone: timeZone))
        return rooms.compactMap { room -> NotificationRequest? in
            guard let next = found[room.name], let fireAt = FireTime.instant(on: next.day, at: settings.deliveryTime, in: timeZone) else {
                return nil
            }
            return next.request(fireAt: fireAt, in: room.localizer(settings: settings, systemLocale: systemLocale))
        }
    }
}
