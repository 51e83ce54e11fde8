import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// How `birthdays` publishes to a CalDAV target, on the command line
/// (`publish add`, `publish sync`) and in the daemon (``PublishFollower``):
/// the target's password command, then the `birthdays-network publish`
/// helper (``NetworkHelper``), which writes the calendar and records each
/// resource and the outcome in the database. Neither `birthdays` nor its
/// daemon links HTTP.
///
/// A publish that cannot even start (a failing password command, a missing
/// or crashed helper) is recorded here as the target's failure, so `publish
/// list` and `status` show it as they show the helper's own.
package struct TargetPublisher: Sendable {
    package let database: AppDatabase
    /// What the password command and the helper inherit.
    package let environment: [String: String]
    /// The level of the helper's log lines, or `nil` for errors only.
    package let logLevel: String?
    /// The clock of the password command's and the helper's timeouts.
    package let clock: any Clock<Duration>

    package init(database: AppDatabase, environment: [String: String], logLevel: String? = nil, clock: any Clock<Duration> = ContinuousClock()) {
        self.database = database
        self.environment = environment
        self.logLevel = logLevel
        self.clock = clock
    }

    /// Publishes the birthday calendar to `target`.
    ///
    /// - Parameters:
    ///   - force: let the publish delete more than half of the published events (never the daemon's).
    ///   - ifChanged: publish only when the events differ from the last successful publish's.
    ///   - withdraw: delete every event the target published instead (`publish remove`; never what is not ours).
    ///   - password: a password already read from the target's command (`publish add`), so it is not asked twice.
    /// - Returns: the report; a failure is in its `error`, and recorded on the target.
    package func publish(
        _ target: PublishTarget,
        force: Bool,
        ifChanged: Bool = false,
        withdraw: Bool = false,
        password: String? = nil,
        now: Date,
        timeZone: TimeZone,
        locale: String?
    ) async -> PublishReport {
        do throws(PublishError) {
            var secret = password
            if secret == nil, let command = target.passwordCommand, !command.isEmpty {
                do throws(RemoteError) {
                    secret = try await PasswordCommand.run(command, environment: environment, clock: clock)
                } catch {
                    throw .connection(error)
                }
            }
            let helper = NetworkHelper(database: database.path, environment: environment, password: secret, logLevel: logLevel, clock: clock)
            return try await helper.publish(
                target,
                force: force,
                ifChanged: ifChanged,
                withdraw: withdraw,
                now: now,
                timeZone: timeZone,
                locale: locale
            )
        } catch {
            var report = PublishReport(name: target.name)
            report.error = error
            try? await database.recordPublishOutcome(targetId: target.id, now: now, error: error.description)
            return report
        }
    }
}
