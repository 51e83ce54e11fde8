import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging

extension SourceSync {
    /// How `birthdays` syncs its sources, in the daemon and on the command
    /// line: files and vdirs in this process (``LocalSourceReader``), CardDAV
    /// books through the `birthdays-network` helper (``NetworkHelper``),
    /// which inherits `environment` and runs the password commands.
    ///
    /// - Parameters:
    ///   - systemLocale: the environment's locale, for the words of the reminders a sync reschedules.
    ///   - password: a password already read from a source's command (by
    ///     `sources add`, for discovery), so a password manager is not asked twice.
    ///   - reporting: how the helper's outcome comes back: the daemon reads
    ///     only its exit status (``NetworkHelper/Reporting``); the helper logs
    ///     at `logger`'s level.
    package static func standard(
        database: AppDatabase,
        environment: [String: String],
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String?,
        logger: Logger,
        password: String? = nil,
        reporting: NetworkHelper.Reporting = .report
    ) -> SourceSync {
        let path = database.path
        let level = logger.logLevel.rawValue
        return SourceSync(
            database: database,
            readers: SourceReaders { kind in kind.isLocal ? LocalSourceReader() : nil },
            delegates: { kind in
                kind == .carddav
                    ? NetworkHelper(database: path, environment: environment, password: password, reporting: reporting, logLevel: level) : nil
            },
            now: now,
            systemTimeZone: systemTimeZone,
            systemLocale: systemLocale,
            logger: logger
        )
    }
}
