import BirthdayCore
import Foundation
import GRDB

/// A row of the `delivery` table (migration `v3-delivery`): the delivery
/// ledger, one row per reminder occurrence that came due (or was snoozed or
/// dismissed), keyed by notification id and occurrence date. The rules are
/// documented on the daemon's `DeliveryEngine`; the SQL is here and nowhere else.
struct DeliveryRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "delivery"

    var notificationId: String
    var occurrenceDate: String
    var personId: String
    var kind: EventKind
    var whenKind: NotificationRequest.Timing
    /// Unix seconds: the instant it was due.
    var fireAt: Double
    var title: String
    var body: String
    /// The desktop's hints: a JSON object of strings.
    var userInfo: [String: String]
    /// What it is (``DeliveryKind/storedValue``; migration `v31-delivery-kind`).
    var deliveryKind: String
    var state: DeliveryEntry.State
    var late: Bool
    var attempts: Int
    var nextAttemptAt: Double?
    /// Comma list of the channels still to deliver to while retrying (`nil`: all).
    var channels: String?
    var lastError: String?
    var deliveredAt: Double?
    var updatedAt: Double

    enum Columns {
        static let notificationId = Column(CodingKeys.notificationId)
        static let occurrenceDate = Column(CodingKeys.occurrenceDate)
        static let state = Column(CodingKeys.state)
        static let fireAt = Column(CodingKeys.fireAt)
        static let nextAttemptAt = Column(CodingKeys.nextAttemptAt)
        static let deliveredAt = Column(CodingKeys.deliveredAt)
        static let updatedAt = Column(CodingKeys.updatedAt)
        static let lastError = Column(CodingKeys.lastError)
        static let late = Column(CodingKeys.late)
        static let attempts = Column(CodingKeys.attempts)
        static let channels = Column(CodingKeys.channels)
        static let personId = Column(CodingKeys.personId)
    }
}

extension DeliveryRecord: StoredRequest {
    var requestID: String { notificationId }

    init(_ entry: DeliveryEntry) {
        notificationId = entry.notificationID
        occurrenceDate = entry.occurrenceDate.description
        personId = entry.personID
        kind = entry.kind
        whenKind = entry.timing
        fireAt = entry.fireAt.timeIntervalSince1970
        title = entry.title
        body = entry.body
        userInfo = entry.userInfo
        deliveryKind = entry.deliveryKind.storedValue
        state = entry.state
        late = entry.late
        attempts = entry.attempts
        nextAttemptAt = entry.nextAttemptAt?.timeIntervalSince1970
        channels = entry.channels?.joined(separator: ",")
        lastError = entry.lastError
        deliveredAt = entry.deliveredAt?.timeIntervalSince1970
        updatedAt = entry.updatedAt.timeIntervalSince1970
    }

    /// The entry; `nil` for a row whose occurrence date or kind does not parse.
    var entry: DeliveryEntry? {
        guard let request else { return nil }
        var entry = DeliveryEntry(queued: request, at: Date(timeIntervalSince1970: updatedAt))
        entry.state = state
        entry.late = late
        entry.attempts = attempts
        entry.nextAttemptAt = nextAttemptAt.map(Date.init(timeIntervalSince1970:))
        entry.channels = channels.map { $0.split(separator: ",").map(String.init) }
        entry.lastError = lastError
        entry.deliveredAt = deliveredAt.map(Date.init(timeIntervalSince1970:))
        return entry
    }

    /// The row of `entry`'s key.
    static func row(of entry: DeliveryEntry) -> QueryInterfaceRequest<DeliveryRecord> {
        filter(Columns.notificationId == entry.notificationID && Columns.occurrenceDate == entry.occurrenceDate.description)
    }
}

// MARK: - Queries

extension DeliveryRecord {
    /// Inserts `entry` unless a row with its key exists; whether it did.
    static func insertIfAbsent(_ entry: DeliveryEntry, _ db: Database) throws -> Bool {
        try DeliveryRecord(entry).insert(db, onConflict: .ignore)
        return db.changesCount == 1
    }

    /// The rooms whose message for `day` the ledger holds, in any state
    /// (sent, failed, missed, dismissed, on its way), by room name.
    static func announcedRooms(on day: LocalDate, _ db: Database) throws -> Set<String> {
        let ids = try String.fetchAll(
            db,
            select(Columns.notificationId).filter(
                Columns.occurrenceDate == day.description && Columns.notificationId.like(AnnounceRoom.idPrefix + "%")
            )
        )
        return Set(ids.map { String($0.dropFirst(AnnounceRoom.idPrefix.count)) })
    }

    /// Each friend's latest greeting row (`greet:ID`, ``Greeting/notificationID(personID:)``): its day and state, by person id.
    static func latestGreetings(_ db: Database) throws -> [String: (day: LocalDate, state: DeliveryEntry.State)] {
        let rows = try filter(Columns.notificationId.like(Greeting.idPrefix + "%")).order(Columns.occurrenceDate).fetchAll(db)
        var found: [String: (day: LocalDate, state: DeliveryEntry.State)] = [:]
        for row in rows {
            guard let day = LocalDate(iso: row.occurrenceDate) else { continue }
            found[String(row.notificationId.dropFirst(Greeting.idPrefix.count))] = (day, row.state)
        }
        return found
    }

    /// ``latestGreetings(_:)`` of the friends `personIDs` alone (a few: those a reschedule plans again).
    static func latestGreetings(personIDs: [String], _ db: Database) throws -> [String: (day: LocalDate, state: DeliveryEntry.State)] {
        var found: [String: (day: LocalDate, state: DeliveryEntry.State)] = [:]
        for chunk in personIDs.chunked(900) {
            let ids = chunk.map(Greeting.notificationID(personID:))
            let rows = try Row.fetchAll(
                db,
                select(Columns.notificationId, Columns.occurrenceDate, Columns.state).filter(ids.contains(Columns.notificationId))
                    .order(Columns.occurrenceDate)
            )
            for row in rows {
                guard let day = LocalDate(iso: row[1] as String), let state = row[2] as DeliveryEntry.State? else { continue }
                found[String((row[0] as String).dropFirst(Greeting.idPrefix.count))] = (day, state)
            }
        }
        return found
    }

    /// Those of `requests` (a few) whose occurrence the ledger holds, by their ledger keys (`id|YYYY-MM-DD`).
    static func keys(of requests: [NotificationRequest], _ db: Database) throws -> Set<String> {
        var found: Set<String> = []
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM delivery WHERE notificationId = ? AND occurrenceDate = ?")
        for request in requests {
            let day = request.occurrenceDate.description
            if try Bool.fetchOne(statement, arguments: [request.id, day]) != nil { found.insert(request.id + "|" + day) }
        }
        return found
    }

    /// The day of each row of `ids` that is still to be sent (queued or
    /// retrying), by id; the latest day when an id has several.
    static func unsentDays(ids: [String], _ db: Database) throws -> [String: LocalDate] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            select(Columns.notificationId, Columns.occurrenceDate)
                .filter(ids.contains(Columns.notificationId) && [DeliveryEntry.State.queued, .retrying].contains(Columns.state))
                .order(Columns.occurrenceDate)
        )
        var days: [String: LocalDate] = [:]
        for row in rows { days[row[0]] = LocalDate(iso: row[1] as String) }
        return days
    }

    /// The ledger keys (`id|YYYY-MM-DD`) of occurrences on or after `since`.
    static func keys(since: LocalDate, _ db: Database) throws -> Set<String> {
        let rows = try Row.fetchAll(db, select(Columns.notificationId, Columns.occurrenceDate).filter(Columns.occurrenceDate >= since.description))
        return Set(rows.map { ($0[0] as String) + "|" + ($0[1] as String) })
    }

    /// Rows to work on now, oldest first: every queued reminder (the engine
    /// judges it by its local day, which a zone change can bring forward), a
    /// queued snooze whose instant has come, and retrying ones whose next
    /// attempt has come.
    static func workable(now: Date, _ db: Database) throws -> [DeliveryEntry] {
        let t = now.timeIntervalSince1970
        let isSnooze = Columns.notificationId.like("%" + DeliveryEntry.snoozeSuffix)
        return try filter(
            (Columns.state == DeliveryEntry.State.queued && (Columns.fireAt <= t || !isSnooze))
                || (Columns.state == DeliveryEntry.State.retrying && Columns.nextAttemptAt <= t)
        )
        .order(Columns.fireAt, Columns.notificationId)
        .fetchAll(db)
        .compactMap(\.entry)
    }

    /// Claims a row for sending: `queued`/`retrying` → `sending`. Only the
    /// caller that changed the row may send it.
    static func claim(_ entry: DeliveryEntry, now: Date, _ db: Database) throws -> Bool {
        let changed = try row(of: entry)
            .filter([DeliveryEntry.State.queued, .retrying].contains(Columns.state))
            .updateAll(db, Columns.state.set(to: DeliveryEntry.State.sending), Columns.updatedAt.set(to: now.timeIntervalSince1970))
        return changed == 1
    }

    /// Saves `entry` if its row is still in one of `states`; whether it was.
    static func finish(_ entry: DeliveryEntry, from states: [DeliveryEntry.State], _ db: Database) throws -> Bool {
        let record = DeliveryRecord(entry)
        let changed = try row(of: entry)
            .filter(states.contains(Columns.state))
            .updateAll(
                db,
                Columns.state.set(to: record.state),
                Columns.fireAt.set(to: record.fireAt),
                Columns.late.set(to: record.late),
                Columns.attempts.set(to: record.attempts),
                Columns.nextAttemptAt.set(to: record.nextAttemptAt),
                Columns.channels.set(to: record.channels),
                Columns.lastError.set(to: record.lastError),
                Columns.deliveredAt.set(to: record.deliveredAt),
                Columns.updatedAt.set(to: record.updatedAt)
            )
        return changed == 1
    }

    /// Turns every `sending` row into `interrupted`; how many.
    static func interruptSending(now: Date, _ db: Database) throws -> Int {
        try filter(Columns.state == DeliveryEntry.State.sending).updateAll(
            db,
            Columns.state.set(to: DeliveryEntry.State.interrupted),
            Columns.updatedAt.set(to: now.timeIntervalSince1970),
            Columns.lastError.set(to: "birthdays stopped while delivering it; not sent again (at most once)")
        )
    }

    /// The soonest instant a row needs work: a queued (snoozed) row's instant or a retry.
    static func nextWork(_ db: Database) throws -> Date? {
        let queued = try Double.fetchOne(db, filter(Columns.state == DeliveryEntry.State.queued).select(min(Columns.fireAt)))
        let retry = try Double.fetchOne(db, filter(Columns.state == DeliveryEntry.State.retrying).select(min(Columns.nextAttemptAt)))
        return [queued, retry].compactMap { $0 }.min().map(Date.init(timeIntervalSince1970:))
    }

    /// Rows changed at or after `since`, oldest first.
    static func entries(updatedSince since: Date, _ db: Database) throws -> [DeliveryEntry] {
        try filter(Columns.updatedAt >= since.timeIntervalSince1970).order(Columns.updatedAt, Columns.notificationId).fetchAll(db).compactMap(\.entry)
    }

    /// The last delivered row.
    static func lastDelivered(_ db: Database) throws -> DeliveryEntry? {
        try filter(Columns.state == DeliveryEntry.State.delivered).order(Columns.deliveredAt.desc).fetchOne(db)?.entry
    }

    /// Every notification id in the ledger, once each.
    static func notificationIDs(_ db: Database) throws -> [String] {
        try String.fetchAll(db, select(Columns.notificationId).distinct())
    }

    /// Every notification id in the ledger with its person's id, once each.
    static func reminderIDs(_ db: Database) throws -> [(id: String, personID: String)] {
        try Row.fetchAll(db, select(Columns.notificationId, Columns.personId).distinct()).map { ($0[0], $0[1]) }
    }

    /// The snoozes waiting for their instant, soonest first.
    static func queuedSnoozes(_ db: Database) throws -> [DeliveryEntry] {
        try filter(Columns.state == DeliveryEntry.State.queued && Columns.notificationId.like("%" + DeliveryEntry.snoozeSuffix))
            .order(Columns.fireAt, Columns.notificationId)
            .fetchAll(db)
            .compactMap(\.entry)
    }

    /// The most recent row for a notification id.
    static func latest(id: String, _ db: Database) throws -> DeliveryEntry? {
        try filter(Columns.notificationId == id).order(Columns.occurrenceDate.desc, Columns.updatedAt.desc).fetchOne(db)?.entry
    }

    /// Moves a queued row to `instant` (its local moment after a zone change).
    static func move(_ entry: DeliveryEntry, to instant: Date, now: Date, _ db: Database) throws {
        _ = try row(of: entry).filter(Columns.state == DeliveryEntry.State.queued).updateAll(
            db,
            Columns.fireAt.set(to: instant.timeIntervalSince1970),
            Columns.updatedAt.set(to: now.timeIntervalSince1970)
        )
    }

    /// Queues `entry`'s row again at its ``DeliveryEntry/fireAt`` (a snooze
    /// moved), unless a daemon is sending it right now.
    static func requeue(_ entry: DeliveryEntry, now: Date, _ db: Database) throws {
        _ = try row(of: entry).filter(Columns.state != DeliveryEntry.State.sending).updateAll(
            db,
            Columns.state.set(to: DeliveryEntry.State.queued),
            Columns.fireAt.set(to: entry.fireAt.timeIntervalSince1970),
            Columns.late.set(to: false),
            Columns.attempts.set(to: 0),
            Columns.nextAttemptAt.set(to: nil),
            Columns.channels.set(to: nil),
            Columns.lastError.set(to: nil),
            Columns.deliveredAt.set(to: nil),
            Columns.updatedAt.set(to: now.timeIntervalSince1970)
        )
    }

    /// Marks the rows of `ids` for their latest occurrence dismissed, unless
    /// being sent or already dismissed; how many changed.
    static func dismiss(ids: [String], now: Date, _ db: Database) throws -> Int {
        guard let latest = try String.fetchOne(db, filter(ids.contains(Columns.notificationId)).select(max(Columns.occurrenceDate))) else { return 0 }
        return try filter(ids.contains(Columns.notificationId) && Columns.occurrenceDate == latest)
            .filter(![DeliveryEntry.State.sending, .dismissed].contains(Columns.state))
            .updateAll(
                db,
                Columns.state.set(to: DeliveryEntry.State.dismissed),
                Columns.nextAttemptAt.set(to: nil),
                Columns.updatedAt.set(to: now.timeIntervalSince1970)
            )
    }

    /// Marks the rows of the people `personIDs` that are still to be sent
    /// (queued or retrying) dismissed: those people left the store. The rows
    /// stay, as the history of what was due.
    static func dismissOpen(personIDs: [String], reason: String, now: Date, _ db: Database) throws -> Int {
        var count = 0
        for chunk in personIDs.chunked(900) {
            count += try filter(chunk.contains(Column("personId")))
                .filter([DeliveryEntry.State.queued, .retrying].contains(Columns.state))
                .updateAll(
                    db,
                    Columns.state.set(to: DeliveryEntry.State.dismissed),
                    Columns.nextAttemptAt.set(to: nil),
                    Columns.lastError.set(to: reason),
                    Columns.updatedAt.set(to: now.timeIntervalSince1970)
                )
        }
        return count
    }
}
