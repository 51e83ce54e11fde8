import Foundation
import GRDB

extension AppDatabase {
    /// Everyone in the store, ordered by name then id.
    public func people() throws(StoreError) -> [Person] {
        try read { db in
            try PersonRecord.order(PersonRecord.Columns.name.collating(.localizedCaseInsensitiveCompare), PersonRecord.Columns.id)
                .fetchAll(db)
                .map(\.person)
        }
    }

    /// The person with `id`, or `nil`.
    public func person(id: String) throws(StoreError) -> Person? {
        try read { db in try PersonRecord.fetchOne(db, key: id)?.person }
    }

    /// How many people the store holds.
    public func peopleCount() throws(StoreError) -> Int {
        try read { db in try PersonRecord.fetchCount(db) }
    }

    /// The change counter and the time of the last change to people or to
    /// settings that shape reminders and feeds.
    public func revision() throws(StoreError) -> (value: Int64, changedAt: Date) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT value, changedAt FROM revision WHERE id = 1")
            return (row?["value"] ?? 0, Date(timeIntervalSince1970: row?["changedAt"] ?? 0))
        }
    }

    static func bumpRevision(_ db: Database, now: Date) throws {
        try db.execute(sql: "UPDATE revision SET value = value + 1, changedAt = ? WHERE id = 1", arguments: [now.timeIntervalSince1970])
    }
}

extension AppDatabase {
    /// The stored settings, with defaults for what was never set.
    public func settings() throws(StoreError) -> Settings {
        Settings(stored: try storedSettings())
    }

    /// The raw stored values, by key.
    public func storedSettings() throws(StoreError) -> [String: String] {
        try read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM setting").map { ($0["key"] as String, $0["value"] as String) })
        }
    }

    /// Validates and stores a setting; returns the new settings.
    ///
    /// - Throws: ``SettingsError`` for a value the setting does not accept
    ///   (nothing is written), ``StoreError`` when the database fails.
    @discardableResult
    public func setSetting(_ key: SettingKey, to value: String, now: Date) throws -> Settings {
        var probe = Settings()
        try probe.set(key, to: value)
        return try write { db in
            try AppDatabase.setSetting(key, to: value, db: db, now: now)
        }
    }

    /// Removes a stored setting so its default applies again; returns the new settings.
    @discardableResult
    public func resetSetting(_ key: SettingKey, now: Date) throws(StoreError) -> Settings {
        try write { db in
            try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key.rawValue])
            try AppDatabase.bumpRevision(db, now: now)
            return try AppDatabase.settings(db)
        }
    }

    static func settings(_ db: Database) throws -> Settings {
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM setting")
        return Settings(stored: Dictionary(uniqueKeysWithValues: rows.map { ($0["key"] as String, $0["value"] as String) }))
    }

    static func setSetting(_ key: SettingKey, to value: String, db: Database, now: Date) throws -> Settings {
        var settings = try settings(db)
        try settings.set(key, to: value)
        try db.execute(
            sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key.rawValue, settings.text(for: key)]
        )
        try bumpRevision(db, now: now)
        return settings
    }

    /// A value kept in the settings table that is not a user setting
    /// (the feed token, the onboarding step, the permission status).
    public func internalValue(_ key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: ["internal." + key]) }
    }

    /// Stores an internal value (see ``internalValue(_:)``); `nil` removes it.
    public func setInternalValue(_ value: String?, for key: String) throws(StoreError) {
        try write { db in
            if let value {
                try db.execute(
                    sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: ["internal." + key, value]
                )
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: ["internal." + key])
            }
        }
    }
}

extension AppDatabase {
    /// Everyone who is not excluded and has a birthday or an anniversary,
    /// ordered by id, with only id, name and dates (source and name parts empty).
    public func peopleWithDates() throws(StoreError) -> [Person] {
        try read { db in try AppDatabase.datedPeople(db) }
    }
}

extension AppDatabase {
    /// The upcoming events of everyone not excluded, straight from the rows:
    /// dates are compared as integers first, and an id and a name are read
    /// only for events inside `withinDays`, which keeps `birthdays upcoming`
    /// fast enough for a shell prompt over tens of thousands of people.
    public func upcoming(_ upcoming: UpcomingEvents, withinDays: Int? = nil, limit: Int? = nil) throws(StoreError) -> [Occurrence] {
        try read { db in
            var selector = NearestSelector(limit: limit)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay, id, name
                FROM person
                WHERE excluded = 0 AND (birthdayMonth IS NOT NULL OR anniversaryMonth IS NOT NULL)
                """)
            while let row = try rows.next() {
                var id: String?
                var name: String?
                for kind in EventKind.allCases {
                    guard kind == .birthday || upcoming.includeAnniversaries else { continue }
                    let base = kind == .birthday ? 0 : 3
                    guard let date = PersonRecord.date(row[base], row[base + 1], row[base + 2]) else { continue }
                    let next = date.nextOccurrence(onOrAfter: upcoming.today, leapDay: upcoming.leapDay)
                    if let withinDays, upcoming.today.days(to: next) > withinDays { continue }
                    if id == nil {
                        id = row[6]
                        name = row[7]
                    }
                    selector.insert(upcoming.occurrence(of: date, kind: kind, personID: id ?? "", name: name ?? ""))
                }
            }
            return selector.sorted()
        }
    }
}
