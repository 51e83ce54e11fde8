import BirthdayCore
import Foundation
import GRDB
import GRDBSQLite

/// A row of the `pendingNotification` table (migration `v2-notifications`):
/// one reminder waiting for its instant, as a phone's notification center
/// holds it. Its SQL is here and nowhere else.
struct PendingNotificationRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pendingNotification"

    var id: String
    var personId: String
    var kind: EventKind
    var whenKind: NotificationRequest.Timing
    /// Unix seconds.
    var fireAt: Double
    /// `YYYY-MM-DD` of the birthday or anniversary.
    var occurrenceDate: String
    var title: String
    var body: String
    /// The desktop's hints: a JSON object of strings.
    var userInfo: [String: String]
    /// What it is (``DeliveryKind/storedValue``; migration `v31-delivery-kind`).
    var deliveryKind: String

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let fireAt = Column(CodingKeys.fireAt)
    }
}

extension PendingNotificationRecord {
    init(_ request: NotificationRequest) {
        id = request.id
        personId = request.personID
        kind = request.kind
        whenKind = request.timing
        fireAt = request.fireAt.timeIntervalSince1970
        occurrenceDate = request.occurrenceDate.description
        title = request.title
        body = request.body
        userInfo = request.userInfo
        deliveryKind = request.deliveryKind.storedValue
    }
}

/// The columns a pending request and a ledger row share: what a reminder
/// says and when, as one ``NotificationRequest``.
protocol StoredRequest {
    var requestID: String { get }
    var personId: String { get }
    var kind: EventKind { get }
    var whenKind: NotificationRequest.Timing { get }
    var fireAt: Double { get }
    var occurrenceDate: String { get }
    var title: String { get }
    var body: String { get }
    var userInfo: [String: String] { get }
    var deliveryKind: String { get }
}

extension StoredRequest {
    /// The request; `nil` for a row whose occurrence date or kind does not
    /// parse (a kind written by a newer version).
    var request: NotificationRequest? {
        guard let day = LocalDate(iso: occurrenceDate), let deliveryKind = DeliveryKind(storedValue: deliveryKind) else { return nil }
        var request = NotificationRequest(
            personID: personId,
            kind: kind,
            timing: whenKind,
            fireAt: Date(timeIntervalSince1970: fireAt),
            occurrenceDate: day,
            title: title,
            body: body,
            deliveryKind: deliveryKind,
            userInfo: userInfo
        )
        request.id = requestID
        return request
    }
}

extension PendingNotificationRecord: StoredRequest {
    var requestID: String { id }
}

// MARK: - Queries

extension PendingNotificationRecord {
    /// Every pending request, soonest first (``NotificationRequest/firesBefore(_:_:)``).
    static func requests(_ db: Database) throws -> [NotificationRequest] {
        try fetchAll(db).compactMap(\.request).sorted(by: NotificationRequest.firesBefore)
    }

    /// Inserts or replaces (same id) one request.
    static func save(_ request: NotificationRequest, _ db: Database) throws {
        try PendingNotificationRecord(request).save(db)
    }

    /// Makes the pending requests `requests` (by id, no two alike), writing
    /// only what differs from the rows there: a reschedule whose plan equals
    /// what is pending writes nothing, so its transaction commits no page.
    ///
    /// Thousands of greetings are pending beside the 64 reminders (issue 44),
    /// so no row goes through Codable: the rows there are read as stored and
    /// compared column by column with what each request writes
    /// (``storedValues(userInfo:)``, each distinct `userInfo` encoded once),
    /// and only the requests that differ are written, through one statement.
    ///
    /// With `keepingGreetings`, the greetings pending are neither compared
    /// nor removed (their plan was kept: ``GreetingPlan/Stamp``); `requests`
    /// hold none then, and only the other rows are read.
    static func replaceAll(with requests: [NotificationRequest], keepingGreetings: Bool = false, _ db: Database) throws {
        var userInfos: [[String: String]: String] = [:]
        var planned: [(values: [DatabaseValue], stored: Bool)] = []
        planned.reserveCapacity(requests.count)
        var byID: [String: Int] = [:]
        byID.reserveCapacity(requests.count)
        for request in requests {
            let record = PendingNotificationRecord(request)
            let userInfo = try userInfos[record.userInfo] ?? userInfoJSON(record.userInfo)
            userInfos[record.userInfo] = userInfo
            byID[record.id] = planned.count
            planned.append((record.storedValues(userInfo: userInfo), false))
        }
        // The rows there, read in place: a row is not made into values unless it is to go.
        var gone: [String] = []
        let all = "SELECT \(storedColumns.joined(separator: ", ")) FROM pendingNotification"
        let statement = try db.cachedStatement(sql: keepingGreetings ? othersSQL : all)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            let id: String = row[0]
            guard let index = byID[id] else {
                gone.append(id)
                continue
            }
            planned[index].stored = isStored(planned[index].values, statement.sqliteStatement)
        }
        var upsert: Statement?
        for (values, stored) in planned where !stored {
            if upsert == nil { upsert = try db.cachedStatement(sql: upsertSQL) }
            try upsert?.execute(arguments: StatementArguments(values))
        }
        if !gone.isEmpty { _ = try deleteAll(db, keys: gone) }
    }

    /// Makes the pending greetings of the friends `personIDs` (a few: those
    /// a reschedule plans again while the rest of the plan holds,
    /// ``GreetingPlan/Stamp/Verdict/replan(_:cards:)``) those of `requests`,
    /// each a greeting of one of them, leaving every other row as it is; a
    /// row that stays as it was is not written again. Returns how many of
    /// theirs were pending before and how many are now.
    static func replaceGreetings(of personIDs: [String], with requests: [NotificationRequest], _ db: Database) throws -> (before: Int, after: Int) {
        let ids = personIDs.map(Greeting.notificationID(personID:))
        var before = 0
        var stored: [String: [DatabaseValue]] = [:]
        let columns = storedColumns.joined(separator: ", ")
        for chunk in ids.chunked(900) {
            let marks = databaseQuestionMarks(count: chunk.count)
            let statement = try db.cachedStatement(sql: "SELECT \(columns) FROM pendingNotification WHERE id IN (\(marks))")
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(Array(chunk)))
            while let row = try rows.next() {
                before += 1
                stored[row[0]] = Array(row.databaseValues)
            }
        }
        var planned: Set<String> = []
        for request in requests {
            let record = PendingNotificationRecord(request)
            let values = record.storedValues(userInfo: try userInfoJSON(record.userInfo))
            planned.insert(record.id)
            if stored[record.id] != values { try db.cachedStatement(sql: upsertSQL).execute(arguments: StatementArguments(values)) }
        }
        let gone = ids.filter { stored[$0] != nil && !planned.contains($0) }
        if !gone.isEmpty { _ = try deleteAll(db, keys: gone) }
        return (before, planned.count)
    }

    /// The soonest and the latest instant of the greetings pending, each
    /// found along the `fireAt` index (most rows are greetings, so neither
    /// goes far).
    static func greetingSpan(_ db: Database) throws -> (first: Date?, last: Date?) {
        func edge(_ order: String) throws -> Date? {
            try Double.fetchOne(
                db,
                sql: "SELECT fireAt FROM pendingNotification WHERE deliveryKind LIKE ? ORDER BY fireAt \(order) LIMIT 1",
                arguments: [greetingPrefix + "%"]
            ).map(Date.init(timeIntervalSince1970:))
        }
        return (try edge("ASC"), try edge("DESC"))
    }

    /// Whether the row `handle` stands on holds `values` (``storedColumns``),
    /// each as GRDB reads it back: text for a string, a number for a number
    /// (an integer equal to a double is equal, as for ``DatabaseValue``).
    private static func isStored(_ values: [DatabaseValue], _ handle: SQLiteStatement) -> Bool {
        for (column, value) in values.enumerated() {
            let column = CInt(column)
            switch value.storage {
            case .string(var text):
                guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return false }
                let count = Int(sqlite3_column_bytes(handle, column))
                let same = text.withUTF8 { utf8 in
                    guard utf8.count == count else { return false }
                    guard count > 0 else { return true }
                    // No text for a stored length above zero (out of memory): not known to be the same, so written again.
                    guard let stored = sqlite3_column_text(handle, column), let planned = utf8.baseAddress else { return false }
                    return memcmp(stored, planned, count) == 0
                }
                if !same { return false }
            case .double(let number):
                switch sqlite3_column_type(handle, column) {
                case SQLITE_FLOAT: if sqlite3_column_double(handle, column) != number { return false }
                case SQLITE_INTEGER: if Double(sqlite3_column_int64(handle, column)) != number { return false }
                default: return false
                }
            case .int64, .blob, .null:
                // No column of the record is written so.
                return false
            }
        }
        return true
    }

    /// The table's columns, in the order of ``storedValues(userInfo:)``.
    static let storedColumns = ["id", "personId", "kind", "whenKind", "fireAt", "occurrenceDate", "title", "body", "userInfo", "deliveryKind"]

    /// Inserts a row of ``storedColumns`` or replaces the one with its id, as GRDB's `save` does.
    static let upsertSQL: String = {
        let updated = storedColumns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return """
            INSERT INTO pendingNotification (\(storedColumns.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: storedColumns.count)))
            ON CONFLICT(id) DO UPDATE SET \(updated)
            """
    }()

    /// What the record writes in each of ``storedColumns``, as its Codable
    /// encoding writes it (``databaseDictionary``), `userInfo` being the
    /// JSON text of ``userInfo`` (``userInfoJSON(_:)``).
    func storedValues(userInfo: String) -> [DatabaseValue] {
        [
            id.databaseValue, personId.databaseValue, kind.databaseValue, whenKind.databaseValue, fireAt.databaseValue,
            occurrenceDate.databaseValue, title.databaseValue, body.databaseValue, userInfo.databaseValue, deliveryKind.databaseValue,
        ]
    }

    /// `userInfo` as the JSON text the Codable encoding stores: GRDB's JSON encoder for the column.
    static func userInfoJSON(_ userInfo: [String: String]) throws -> String {
        String(decoding: try databaseJSONEncoder(for: "userInfo").encode(userInfo), as: UTF8.self)
    }

    static func remove(ids: [String], _ db: Database) throws {
        _ = try deleteAll(db, keys: ids)
    }

    /// Removes the requests `isDue` selects and returns them. A greeting is
    /// due at its own instant (``DeliveryEntry/localFireAt(in:deliveryTime:quietAfter:)``),
    /// so the greetings after `now` (one per greeted friend, beside the at
    /// most 64 others) are left unread: `isDue` is asked only about the rest.
    static func takeDue(now: Date, _ db: Database, isDue: (NotificationRequest) -> Bool) throws -> [NotificationRequest] {
        let candidates = try PendingNotificationRecord.fetchAll(db, sql: dueSQL, arguments: [now.timeIntervalSince1970])
        let due = candidates.compactMap(\.request).filter(isDue)
        _ = try deleteAll(db, keys: due.map(\.id))
        return due
    }

    /// How a greeting's stored ``DeliveryKind`` begins (`{"greeting":"ana"}`).
    static let greetingPrefix = #"{"greeting":"#

    /// The rows that are no greeting: at most 64 and a few rooms' messages
    /// beside one greeting per greeted friend. Written as the partial index
    /// `pendingNotification_others` (migration `v36-pending-others`) says
    /// it, text for text, so that SQLite reads them along that index
    /// instead of every greeting: a reschedule of 10,000 greeted friends
    /// read all their rows to find the 64 (3.5 to 7 ms of SQLite's time).
    static let notGreeting = #"deliveryKind NOT LIKE '{"greeting":%'"#

    /// Every stored column of the rows that are no greeting (``notGreeting``).
    static let othersSQL = "SELECT \(storedColumns.joined(separator: ", ")) FROM pendingNotification WHERE \(notGreeting)"

    /// What ``takeDue(now:_:isDue:)`` reads, each half along its own index:
    /// the rows due by the instant given (`fireAt`), and those that are no greeting.
    static let dueSQL = "SELECT \(storedColumns.joined(separator: ", ")) FROM pendingNotification WHERE fireAt <= ? UNION " + othersSQL

    /// The ids of the pending requests.
    static func ids(_ db: Database) throws -> [String] {
        try String.fetchAll(db, select(Columns.id))
    }

    /// The pending request with `id`, if any.
    static func request(id: String, _ db: Database) throws -> NotificationRequest? {
        try fetchOne(db, key: id)?.request
    }

    /// Each pending request's id with its person's id.
    static func reminderIDs(_ db: Database) throws -> [(id: String, personID: String)] {
        try Row.fetchAll(db, select(Columns.id, Column(CodingKeys.personId))).map { ($0[0], $0[1]) }
    }

    /// The day (`occurrenceDate`) of each pending request of `ids` that exists, by id.
    static func days(ids: [String], _ db: Database) throws -> [String: LocalDate] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, select(Columns.id, Column(CodingKeys.occurrenceDate)).filter(ids.contains(Columns.id)))
        var days: [String: LocalDate] = [:]
        for row in rows { days[row[0]] = LocalDate(iso: row[1] as String) }
        return days
    }

    /// The soonest fire instant.
    static func soonestFireAt(_ db: Database) throws -> Date? {
        try Double.fetchOne(db, select(min(Columns.fireAt))).map(Date.init(timeIntervalSince1970:))
    }
}
