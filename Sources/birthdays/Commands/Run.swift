import ArgumentParser
import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import BirthdaySystem
import BirthdayUseCases
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
                With BIRTHDAYS_NOW set, time starts at that instant and flows from there. \
                With --all-users, one daemon serves every user of the users root (birthdays users add), each from \
                their own database, and follows the root: a user added is served, and one removed stopped, as soon \
                as the root changes (a reminder being handed over is finished first), without a restart.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Serve every user of the users root, each from their own database (not with --user or --database).")
        var allUsers = false

        func validate() throws {
            if allUsers { try GlobalOptions.refuseWithAllUsers(global) }
        }

        func run() async throws {
            if allUsers { return try await runAllUsers() }
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

extension BirthdaysCommand.Run {
    /// `run --all-users`: every user's daemon, as `run --user NAME` builds
    /// it, under one process; `BIRTHDAYS_USER` and `BIRTHDAYS_DATABASE` are not read.
    func runAllUsers() async throws {
        let environment = ProcessInfo.processInfo.environment
        let folders = Context.users(environment).folders
        let base = Context.daemonLogger("birthdays.run", environment: environment)
        let now = try Context.flowingNow(environment)
        let daemon: AllUsersDaemon
        do {
            daemon = try await buildAllUsersDaemon(
                AllUsersConfiguration(
                    folders: folders,
                    daemon: { name, setup in
                        // One connection a user: each is kept open, and its caches are handed back at rest.
                        let context = try await Context.offTheLoop(GlobalOptions.user(name), ignoringChoiceVariables: true, oneConnection: true)
                        var logger = context.daemonLogger("birthdays.run")
                        logger[metadataKey: "user"] = "\(name)"
                        var configuration = context.daemonConfiguration(logger: logger, logPrefix: "user=\(name) ")
                        configuration.feedLogger[metadataKey: "user"] = "\(name)"
                        configuration.now = now
                        configuration.retained = context.trial
                        setup.apply(to: &configuration)
                        return try await buildDaemon(configuration)
                    },
                    logger: base
                )
            )
        } catch DaemonLockError.alreadyRunning(_, let pid) {
            throw CLIError("birthdays run --all-users is already running for \(folders.root)" + (pid.map { " (pid \($0))" } ?? ""))
        } catch let error as DaemonLockError {
            throw CLIError(error.description)
        } catch let error as UserFolderError {
            throw CLIError(error.description)
        }
        try await daemon.run()
    }
}

extension Context {
    /// The daemon over this context: its clock flows from BIRTHDAYS_NOW when set,
    /// the zone is re-read on every pass, the log channel writes to standard output.
    /// With `logPrefix`, each line of the log channel starts with it (`run --all-users`: whose reminder).
    func daemonConfiguration(logger: Logger, logPrefix: String = "") -> DaemonConfiguration {
        DaemonConfiguration(
            database: database,
            environment: environment,
            now: flowingNow(),
            systemTimeZone: liveSystemTimeZone(),
            systemLocale: systemLocale,
            logLine: { line in try StandardOutput.write(logPrefix + line + "\n") },
            logger: logger,
            feedLogger: self.logger("birthdays.serve"),
            releasesMemoryAtRest: true
        )
    }
}
