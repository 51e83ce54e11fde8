import ArgumentParser
import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deliver",
            _superCommandName: "birthdays",
            abstract: "Deliver what is due now, once, then reschedule (for a systemd timer instead of the daemon).",
            discussion: """
                The same pass the daemon makes: due reminders are delivered exactly once (a running daemon and this \
                command never both send one), late ones the same day are flagged late, older ones recorded as missed, \
                due retries are attempted. A reminder one channel delivered is delivered; a channel that failed beside it \
                is retried alone. Exits 1 when some reminder failed, or some channel is waiting for a retry.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Make one pass and exit (the only mode; spelled out in unit files for clarity).")
        var once = false

        @Flag(help: "Print the pass's counts as JSON.")
        var json = false

        /// `birthdays deliver --json`.
        struct Output: Encodable {
            var status: String
            var queued: Int
            var delivered: Int
            /// Of `delivered`, those with a channel left to retry.
            var partly: Int
            var late: Int
            var retrying: Int
            var failed: Int
            var missed: Int
            var scheduled: Int
        }

        func run() async throws {
            let context = try Context(global)
            let clock = ContinuousClock()
            let engine = DeliveryEngine(
                database: context.database,
                clock: clock,
                now: context.flowingNow(),
                systemTimeZone: context.liveSystemTimeZone(),
                systemLocale: context.systemLocale,
                channels: ReminderChannels.factory(
                    desktop: DesktopNotificationChannel(labels: .init(try await context.localizer())),
                    environment: context.environment,
                    clock: clock,
                    databasePath: context.database.path,
                    log: { line in try StandardOutput.write(line + "\n") }
                ),
                channelCheck: ReminderChannels.check(),
                rooms: AnnounceRooms.factory(databasePath: context.database.path, environment: context.environment, clock: clock),
                greetings: GreetingChoices.sender(
                    database: context.database,
                    environment: context.environment,
                    clock: clock,
                    systemLocale: context.systemLocale
                ),
                logger: context.daemonLogger("birthdays.deliver")
            )
            // Without a daemon, this pass holds the lock and may recover rows a
            // crash left in 'sending'; with one, it only claims rows (never both send one).
            let lock = try? DaemonLock.acquire(database: context.database.path)
            if lock != nil { try await engine.recoverInterrupted() }
            defer { withExtendedLifetime(lock) {} }
            let result = try await engine.runOnePass()
            if json {
                try output(
                    JSONOutput.string(
                        Output(
                            status: result.status.rawValue,
                            queued: result.queued,
                            delivered: result.delivered,
                            partly: result.partly,
                            late: result.late,
                            retrying: result.retrying,
                            failed: result.failed,
                            missed: result.missed,
                            scheduled: result.scheduled
                        )
                    )
                )
            } else {
                let partly = result.partly > 0 ? "; \(result.partly) of them with a channel to retry" : ""
                try output(
                    "Delivered \(result.delivered) (\(result.late) late\(partly)), \(result.retrying) to retry, \(result.failed) failed, "
                        + "\(result.missed) missed; \(result.scheduled) pending."
                )
            }
            if result.failed > 0 || result.retrying > 0 || result.partly > 0 { throw ExitCode.failure }
        }
    }
}
