import BirthdayCore
import Foundation
import GRDB

extension AppDatabase {
    /// Records `birthdays exclude --label TEXT` (`included: false`) or
    /// `include --label TEXT` (`true`): whether the dates under that label
    /// (compared as ``LabelledDate/key(_:)`` does) get reminders, feed events
    /// and `upcoming` entries, whatever the `labelled-dates` setting
    /// (``LabelRules``). Imports and syncs never change it. The data
    /// revision moves, and with a `scheduler` the reminders are rescheduled
    /// in the same transaction.
    ///
    /// - Returns: the settings with the new rules, and how many stored dates carry the label.
    package func setLabelRule(
        _ label: String,
        included: Bool,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> (settings: Settings, dates: Int) {
        try await write(at: now) { db in
            var settings = try SettingRecord.settings(db)
            settings.labelRules.choose(label, included: included)
            try SettingRecord.set(settings.labelRules.storedValue, for: LabelRules.storedKey, db)
            if let scheduler { _ = try scheduler.reschedule(db) }
            let key = LabelledDate.key(label)
            let dates = try LabelledDateRecord.datesByPerson(db).values.reduce(0) { $0 + $1.filter { $0.key == key }.count }
            return (settings, dates)
        }
    }
}

extension AppDatabase {
    /// Records `birthdays name-days off PERSON` (`.off`), `name-days set
    /// PERSON MM-DD` (`.day`), or forgets the choice (`nil`: the lists decide
    /// again) for the person with `id`; imports and syncs never change it.
    /// Rescheduled in the same transaction when a `scheduler` is given.
    package func setNameDayChoice(
        _ choice: NameDayChoice?,
        personID id: String,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> Settings {
        try await write(at: now) { db in
            try NameDayChoiceRecord.set(choice, personID: id, db)
            if let scheduler { _ = try scheduler.reschedule(db) }
            return try SettingRecord.settings(db)
        }
    }
}

extension AppDatabase {
    /// Stores `list` as the list of your own under its code (`birthdays
    /// name-days import FILE --country CODE`), replacing one imported before
    /// and winning over a shipped list of that code, and adds the code to the
    /// `name-days` setting; one transaction, rescheduled when a `scheduler` is given.
    package func importNameDayList(
        _ list: NameDayList,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError)
        -> Settings
    {
        try await write(at: now) { db in
            try NameDayListRecord.store(list, db)
            var settings = try SettingRecord.settings(db)
            if !settings.nameDays.contains(list.country) {
                settings.nameDays.append(list.country)
                try SettingRecord.set(settings.text(for: .nameDays), for: SettingKey.nameDays.rawValue, db)
            }
            if let scheduler { _ = try scheduler.reschedule(db) }
            return settings
        }
    }
}

extension AppDatabase {
    /// What name days are made of under `settings` (``NameDaySetup``): the
    /// lists its `name-days` setting names and the user's choices; nothing is
    /// read when name days are off.
    package func nameDays(for settings: Settings) async throws(StoreError) -> NameDaySetup {
        guard !settings.nameDays.isEmpty else { return NameDaySetup() }
        return try await read { db in try NameDayListRecord.setup(for: settings, db) }
    }
}
