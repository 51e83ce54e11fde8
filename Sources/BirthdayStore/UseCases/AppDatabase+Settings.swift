import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// The stored settings, with defaults for what was never set.
    package func settings() async throws(StoreError) -> Settings {
        try await read { db in try SettingRecord.settings(db) }
    }

    /// Validates and stores a setting, and returns the new settings.
    ///
    /// The alias `day-before` is stored as the `reminders` it changes
    /// (``SettingKey/storedKey``): `off` removes 1 from the reminder days, `on` adds it.
    ///
    /// - Throws: ``SettingsError`` for a value the setting does not accept
    ///   (nothing is written), ``StoreError`` when the database fails.
    @discardableResult
    package func setSetting(_ key: SettingKey, to value: String, now: Date) async throws -> Settings {
        // A list of your own may make a `name-days` code valid: that one is checked against the stored settings below.
        if key != .nameDays {
            var check = Settings()
            try check.set(key, to: value)
        }
        // A value refused in the transaction comes out as itself, not as a database error.
        let outcome = try await write(at: now) { db -> Result<Settings, SettingsError> in
            var current = try SettingRecord.settings(db)
            do throws(SettingsError) {
                try current.set(key, to: value)
            } catch {
                return .failure(error)
            }
            let stored = key.storedKey
            try SettingRecord.set(current.text(for: stored), for: stored.rawValue, db)
            return .success(current)
        }
        return try outcome.get()
    }

    /// Removes a stored setting so its default applies again; returns the new
    /// settings. Resetting the alias `day-before` adds the day before back to
    /// the `reminders` days, as its default (`on`) says.
    @discardableResult
    package func resetSetting(_ key: SettingKey, now: Date) async throws(StoreError) -> Settings {
        try await write(at: now) { db in
            if key.storedKey != key {
                var current = try SettingRecord.settings(db)
                current.dayBefore = true
                try SettingRecord.set(current.text(for: key.storedKey), for: key.storedKey.rawValue, db)
            } else {
                try SettingRecord.set(nil, for: key.rawValue, db)
            }
            // The default of the channels: the desktop and every added channel on.
            if key == .channels { try ChannelRecord.setOn(Set(try ChannelRecord.all(db).map(\.name)), db) }
            return try SettingRecord.settings(db)
        }
    }
}
