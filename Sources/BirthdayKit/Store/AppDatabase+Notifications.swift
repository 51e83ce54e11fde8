import Foundation
import GRDB

/// Database access for the notification center, usable inside a caller's
/// transaction (the scheduler's reschedule is one write transaction).
extension AppDatabase {
    static let authorizationKey = "notifications.authorization"
    static let onboardingStepKey = "onboarding.step"

    static func internalValue(_ key: String, db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: ["internal." + key])
    }

    static func setInternalValue(_ value: String?, for key: String, db: Database) throws {
        if let value {
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: ["internal." + key, value]
            )
        } else {
            try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: ["internal." + key])
        }
    }

    static func authorizationStatus(_ db: Database) throws -> AuthorizationStatus {
        try internalValue(authorizationKey, db: db).flatMap(AuthorizationStatus.init(rawValue:)) ?? .notDetermined
    }

    static func setAuthorizationStatus(_ status: AuthorizationStatus, db: Database) throws {
        try setInternalValue(status.rawValue, for: authorizationKey, db: db)
    }

    /// Pending requests, soonest first (``NotificationRequest/firesBefore(_:_:)``).
    static func pendingRequests(_ db: Database) throws -> [NotificationRequest] {
        try PendingNotificationRecord.fetchAll(db).compactMap(\.request).sorted(by: NotificationRequest.firesBefore)
    }

    static func pendingCount(_ db: Database) throws -> Int {
        try PendingNotificationRecord.fetchCount(db)
    }

    /// Inserts or replaces (same id) one request; the cap is the caller's business.
    static func savePending(_ request: NotificationRequest, db: Database) throws {
        try PendingNotificationRecord(request).upsert(db)
    }

    static func removePending(ids: [String], db: Database) throws {
        _ = try PendingNotificationRecord.deleteAll(db, keys: ids)
    }

    static func removeAllPending(_ db: Database) throws {
        _ = try PendingNotificationRecord.deleteAll(db)
    }

    /// Feeds every non-excluded person's birthday (and anniversary, when
    /// `anniversaries`) to `planner`, reading only the date columns for most
    /// rows: the id and name are read only for rows the planner may keep.
    static func offerDatedPeople(_ db: Database, anniversaries: Bool, to planner: inout ReminderPlanner) throws {
        let sql = anniversaries
            ? """
            SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay
            FROM person WHERE excluded = 0 AND (birthdayMonth IS NOT NULL OR anniversaryMonth IS NOT NULL)
            """
            : """
            SELECT id, name, birthdayYear, birthdayMonth, birthdayDay
            FROM person WHERE excluded = 0 AND birthdayMonth IS NOT NULL
            """
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            if let month = row[3] as Int?, let day = row[4] as Int?, let date = EventDate(year: row[2], month: month, day: day) {
                planner.offer(date, kind: .birthday) { (row[0], row[1]) }
            }
            if anniversaries, let month = row[6] as Int?, let day = row[7] as Int?, let date = EventDate(year: row[5], month: month, day: day) {
                planner.offer(date, kind: .anniversary) { (row[0], row[1]) }
            }
        }
    }
}
