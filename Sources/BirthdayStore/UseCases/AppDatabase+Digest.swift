import BirthdayCore

extension AppDatabase {
    /// The digest of `period` as the daemon would write it now: the events
    /// `upcoming` lists on its days, named per the `names` setting.
    package func digest(of period: DigestPeriod, settings: Settings) async throws(StoreError) -> Digest {
        try await read { db in try NotificationScheduler.digest(db, period: period, settings: settings) }
    }
}
