import BirthdayKit
import Foundation
import Logging

extension Context {
    /// A logger on standard error; `BIRTHDAYS_LOG_LEVEL` (trace … critical) sets its level, default `level`.
    func logger(_ label: String, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = environment["BIRTHDAYS_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? level
        return logger
    }

    /// The scheduler over this context's database, clock and system zone.
    func scheduler() -> NotificationScheduler {
        let now = self.now
        let zone = systemTimeZone
        return NotificationScheduler(database: database, now: { now }, systemTimeZone: { zone }, logger: logger("birthdays.scheduler"))
    }

    /// The pending-notification store.
    var notificationCenter: PendingNotificationStore { PendingNotificationStore(database: database) }

    /// The channel probe for permission requests.
    var channelProbe: any NotificationChannelProbe { DBusNotificationChannelProbe(environment: environment) }
}
