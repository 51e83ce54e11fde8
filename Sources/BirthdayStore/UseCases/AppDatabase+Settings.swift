import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// The stored settings, with defaults for what was never set.
    public func settings() async throws(StoreError) -> Settings {
        try await read { db in try SettingRecord.settings(db) }
    }

    /// Validates and stores a setting, and returns the new settings.
    ///
    /// - Throws: ``SettingsError`` for a value the setting does not accept
    ///   (nothing is written), ``StoreError`` when the database fails.
    @discardableResult
    public func setSetting(_ key: SettingKey, to value: String, now: Date) async throws -> Settings {
        var settings = try await self.settings()
        try settings.set(key, to: value)
        let stored = settings.text(for: key)
        return try await write { db in
            var current = try SettingRecord.settings(db)
            try current.set(key, to: stored)
            try SettingRecord.set(stored, for: key.rawValue, db)
            try RevisionRecord.bump(now: now, db)
            return current
        }
    }

    /// Removes a stored setting so its default applies again; returns the new settings.
    @discardableResult
    public func resetSetting(_ key: SettingKey, now: Date) async throws(StoreError) -> Settings {
        try await write { db in
            try SettingRecord.set(nil, for: key.rawValue, db)
            try RevisionRecord.bump(now: now, db)
            return try SettingRecord.settings(db)
        }
    }
}
