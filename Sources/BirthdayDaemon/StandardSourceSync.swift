import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging

extension SourceSync {
    /// How `birthdays` syncs its sources, in the daemon and on the command
    /// line: files and vdirs in this process (``LocalSourceReader``), CardDAV
    /// books through the `birthdays-carddav` helper (``CardDAVHelper``),
    /// which inherits `environment` and runs the password commands.
    ///
    /// - Parameter password: a password already read from a source's command
    ///   (by `sources add`, for discovery), so a password manager is not asked twice.
    public static func standard(
        database: AppDatabase,
        environment: [String: String],
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        logger: Logger,
        password: String? = nil
    ) -> SourceSync {
        let path = database.path
        return SourceSync(
            database: database,
            readers: SourceReaders { kind in kind.isLocal ? LocalSourceReader() : nil },
            delegates: { kind in kind == .carddav ? CardDAVHelper(database: path, environment: environment, password: password) : nil },
            now: now,
            systemTimeZone: systemTimeZone,
            logger: logger
        )
    }
}
