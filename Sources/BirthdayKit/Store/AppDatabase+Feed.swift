import Foundation
import GRDB

extension AppDatabase {
    static let feedTokenKey = "feed.token"

    /// The feed's secret token, created (128 random bits) on first use.
    public func feedToken() throws(StoreError) -> String {
        try write { db in
            if let token = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: ["internal." + AppDatabase.feedTokenKey]) {
                return token
            }
            let token = FeedToken.generate()
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?)", arguments: ["internal." + AppDatabase.feedTokenKey, token])
            return token
        }
    }

    /// Replaces the feed token; the old URL stops working at once. Returns the new token.
    @discardableResult
    public func rotateFeedToken() throws(StoreError) -> String {
        let token = FeedToken.generate()
        try setInternalValue(token, for: AppDatabase.feedTokenKey)
        return token
    }

    /// Everything the calendar feed is built from, read in one transaction so
    /// the people, the settings and the revision agree.
    public func feedContents() throws(StoreError) -> (people: [Person], settings: Settings, revision: Int64, changedAt: Date) {
        try read { db in
            let settings = try AppDatabase.settings(db)
            let row = try Row.fetchOne(db, sql: "SELECT value, changedAt FROM revision WHERE id = 1")
            let people = try PersonRecord
                .filter(PersonRecord.Columns.excluded == false)
                .order(PersonRecord.Columns.id)
                .fetchAll(db)
                .map(\.person)
                .filter { $0.birthday != nil || $0.anniversary != nil }
            return (people, settings, row?["value"] ?? 0, Date(timeIntervalSince1970: row?["changedAt"] ?? 0))
        }
    }
}
