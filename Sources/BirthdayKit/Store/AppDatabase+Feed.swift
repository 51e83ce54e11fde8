import Foundation
import GRDB

extension AppDatabase {
    static let feedTokenKey = "feed.token"

    /// The feed's secret token, created (128 random bits) on first use.
    public func feedToken() throws(StoreError) -> String {
        if let token = try internalValue(AppDatabase.feedTokenKey) { return token }
        return try write { db in
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
    ///
    /// The people are those not excluded that have a birthday or an
    /// anniversary, ordered by id. They carry only what the feed uses: id,
    /// name and the two dates (no name parts, source or invalid dates).
    public func feedContents() throws(StoreError) -> (people: [Person], settings: Settings, revision: Int64, changedAt: Date) {
        try read { db in
            let settings = try AppDatabase.settings(db)
            let row = try Row.fetchOne(db, sql: "SELECT value, changedAt FROM revision WHERE id = 1")
            return (try AppDatabase.datedPeople(db), settings, row?["value"] ?? 0, Date(timeIntervalSince1970: row?["changedAt"] ?? 0))
        }
    }

    /// People with dates (not excluded), ordered by id, through a raw cursor over the eight columns it needs:
    /// several times faster than decoding whole `PersonRecord`s with Codable.
    /// A date needs both month and day, as in ``PersonRecord/date(_:_:_:)``.
    static func datedPeople(_ db: Database) throws -> [Person] {
        var people: [Person] = []
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, name, birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay
            FROM person
            WHERE excluded = 0
              AND ((birthdayMonth IS NOT NULL AND birthdayDay IS NOT NULL) OR (anniversaryMonth IS NOT NULL AND anniversaryDay IS NOT NULL))
            ORDER BY id
            """)
        let noSource = ContactSource(file: "", index: 0, line: 0)
        while let row = try rows.next() {
            people.append(Person(
                id: row[0],
                name: row[1],
                source: noSource,
                birthday: PersonRecord.date(row[2], row[3], row[4]),
                anniversary: PersonRecord.date(row[5], row[6], row[7])
            ))
        }
        return people
    }
}
