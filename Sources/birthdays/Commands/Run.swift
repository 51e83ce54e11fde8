import ArgumentParser
import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging

extension BirthdaysCommand {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            _superCommandName: "birthdays",
            abstract: "Run the delivery daemon: deliver reminders on time, once each.",
            discussion: """
                Delivers each due reminder exactly once through the 'channels' setting (desktop, command, log), \
                retries failed channels until the end of the day, delivers late after a suspend on the same day \
                and records a miss otherwise, and keeps the 64 pending reminders topped up. It wakes at the next \
                reminder, at local midnight, on clock and time-zone changes and on resume; it never polls. \
                It hears every write another command makes to the database (import, settings, exclude, sources) \
                within a second and applies it without a restart. SIGHUP re-reads everything and syncs every \
                source; SIGTERM/SIGINT stop it gracefully. With the 'serve' setting on, it also serves the \
                calendar feed, where the setting says. One daemon per database (a lock on <database>.lock). \
                With BIRTHDAYS_NOW set, time starts at that instant and flows from there.
                """
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let context = try await Context.offTheLoop(global)
            let daemon: Daemon
            do {
                daemon = try await buildDaemon(context.daemonConfiguration(logger: context.daemonLogger("birthdays.run")))
            } catch let error as DaemonLockError {
                throw CLIError(error.description)
            }
            try await daemon.run()
        }
    }
}

extension Context {
    /// The daemon over this context: its clock flows from BIRTHDAYS_NOW when set,
    /// the zone is re-read on every pass, the log channel writes to standard output.
    func daemonConfiguration(logger: Logger) -> DaemonConfiguration {
        DaemonConfiguration(
            database: database,
            environment: environment,
            now: flowingNow(),
            systemTimeZone: liveSystemTimeZone(),
            systemLocale: systemLocale,
            logLine: { line in try StandardOutput.write(line + "\n") },
            logger: logger,
            feedLogger: self.logger("birthdays.serve"),
            releasesMemoryAtRest: true
        )
    }
}
