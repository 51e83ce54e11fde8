import ArgumentParser
import BirthdayKit
import BirthdayServer
import CExecutorHook
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension BirthdaysCommand {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the delivery daemon: deliver reminders on time, once each.",
            discussion: """
                Delivers each due reminder exactly once through the 'channels' setting (desktop, command, log), \
                retries failed channels until the end of the day, delivers late after a suspend on the same day \
                and records a miss otherwise, and keeps the 64 pending reminders topped up. It wakes at the next \
                reminder, at local midnight, on clock and time-zone changes and on resume; it never polls. \
                SIGHUP re-reads the settings and reschedules; SIGTERM/SIGINT stop it gracefully. With the 'serve' \
                setting on, it also serves the calendar feed. One daemon per database (a lock on <database>.lock). \
                With BIRTHDAYS_NOW set, time starts at that instant and flows from there.
                """
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let context = try Context(global)
            let lock: DaemonLock
            do {
                lock = try DaemonLock.acquire(database: context.database.path)
            } catch {
                printError(error.description)
                throw ExitCode.failure
            }
            let logger = context.daemonLogger("birthdays.run")
            let settings = try context.database.settings()
            let status = try context.notificationCenter.authorizationStatus()
            let desktop = DesktopNotificationChannel()
            let engine = context.deliveryEngine(desktop: desktop, logger: logger)
            let channels = status == .provisional ? "log" : settings.channels.map(\.rawValue).joined(separator: ",")
            logger.notice("birthdays run started", metadata: ["status": "\(status.rawValue)", "channels": "\(channels)", "pid": "\(getpid())"])
            if !birthdays_global_executor_installed() {
                logger.warning("Swift concurrency runs on libdispatch's worker pool, whose monitor wakes this process every second")
            }
            if !status.allowsScheduling {
                logger.notice("notifications are not enabled (\(status.rawValue)); nothing will be scheduled until: birthdays notifications enable")
            }
            let now = context.flowingNow()
            let zone = context.liveSystemTimeZone()
            let database = context.database
            var services: [any Service] = [
                DaemonService(
                    engine: engine, desktop: desktop, database: database,
                    today: {
                        let settings = try database.settings()
                        return (LocalDate.today(at: now(), in: settings.resolvedTimeZone(system: zone())), settings)
                    },
                    logger: logger
                )
            ]
            if let serve = settings.serve {
                services.append(buildFeedApplication(source: DatabaseFeedSource(database: database), host: serve.host, port: serve.port, logger: context.logger("birthdays.serve")))
            }
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
            withExtendedLifetime(lock) {}
        }
    }

    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deliver what is due now, once, then reschedule (for a systemd timer instead of the daemon).",
            discussion: """
                The same pass the daemon makes: due reminders are delivered exactly once (a running daemon and this \
                command never both send one), late ones the same day are flagged late, older ones recorded as missed, \
                due retries are attempted. Exits 1 when some reminder failed or is waiting for a retry.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Make one pass and exit (the only mode; spelled out in unit files for clarity).")
        var once = false

        @Flag(help: "Print the pass's counts as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let logger = context.daemonLogger("birthdays.deliver")
            let engine = context.deliveryEngine(desktop: DesktopNotificationChannel(), logger: logger)
            // Without a daemon, this pass holds the lock and may recover rows a
            // crash left in 'sending'; with one, it only claims rows (never both send one).
            let lock = try? DaemonLock.acquire(database: context.database.path)
            if lock != nil { try await engine.recoverInterrupted() }
            defer { withExtendedLifetime(lock) {} }
            let result = try await engine.runOnePass()
            if json {
                print(JSONValue.object([
                    ("status", .string(result.status.rawValue)), ("queued", .int(result.queued)), ("delivered", .int(result.delivered)),
                    ("late", .int(result.late)), ("retrying", .int(result.retrying)), ("failed", .int(result.failed)),
                    ("missed", .int(result.missed)), ("scheduled", .int(result.scheduled)),
                ]).serialized())
            } else {
                print("Delivered \(result.delivered) (\(result.late) late), \(result.retrying) to retry, \(result.failed) failed, "
                    + "\(result.missed) missed; \(result.scheduled) pending.")
            }
            if result.failed > 0 || result.retrying > 0 { throw ExitCode.failure }
        }
    }
}
