import ArgumentParser
import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation
import Logging

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

            init(_ result: DeliveryEngine.PassResult) {
                status = result.status.rawValue
                queued = result.queued
                delivered = result.delivered
                partly = result.partly
                late = result.late
                retrying = result.retrying
                failed = result.failed
                missed = result.missed
                scheduled = result.scheduled
            }
        }

        @Flag(help: "Make the pass for every user of the users root, each from their own database (not with --user or --database).")
        var allUsers = false

        func validate() throws {
            if allUsers { try GlobalOptions.refuseWithAllUsers(global) }
        }

        func run() async throws {
            if allUsers { return try await runAllUsers() }
            let context = try Context(global)
            let result = try await Self.pass(context)
            if json {
                try output(JSONOutput.string(Output(result)))
            } else {
                try output(Self.summary(result))
            }
            if Self.failed(result) { throw ExitCode.failure }
        }

        /// One pass over `context`'s database; the log channel's lines start with `logPrefix`.
        static func pass(_ context: Context, logPrefix: String = "", user: UserName? = nil) async throws -> DeliveryEngine.PassResult {
            let clock = ContinuousClock()
            var logger = context.daemonLogger("birthdays.deliver")
            if let user { logger[metadataKey: "user"] = "\(user)" }
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
                    log: { line in try StandardOutput.write(logPrefix + line + "\n") }
                ),
                channelCheck: ReminderChannels.check(),
                rooms: AnnounceRooms.factory(databasePath: context.database.path, environment: context.environment, clock: clock),
                greetings: GreetingChoices.sender(
                    database: context.database,
                    environment: context.environment,
                    clock: clock,
                    systemLocale: context.systemLocale
                ),
                logger: logger
            )
            // Without a daemon, this pass holds the lock and may recover rows a
            // crash left in 'sending'; with one, it only claims rows (never both send one).
            let lock = try? DaemonLock.acquire(database: context.database.path)
            if lock != nil { try await engine.recoverInterrupted() }
            defer { withExtendedLifetime(lock) {} }
            return try await engine.runOnePass()
        }

        /// Whether the pass leaves something undelivered: exit status 1.
        static func failed(_ result: DeliveryEngine.PassResult) -> Bool {
            result.failed > 0 || result.retrying > 0 || result.partly > 0
        }

        static func summary(_ result: DeliveryEngine.PassResult) -> String {
            let partly = result.partly > 0 ? "; \(result.partly) of them with a channel to retry" : ""
            return "Delivered \(result.delivered) (\(result.late) late\(partly)), \(result.retrying) to retry, \(result.failed) failed, "
                + "\(result.missed) missed; \(result.scheduled) pending."
        }
    }
}

extension BirthdaysCommand.Deliver {
    /// One user of `birthdays deliver --all-users --json`: their pass, or why it could not be made.
    struct UserOutput: Encodable {
        var user: String
        var error: String?
        var pass: Output?
    }

    /// How many users' passes run at once: a user whose channel hangs holds one of them, not the others.
    static let usersAtOnce = 4

    /// `deliver --all-users`: each user's pass, as `deliver --user NAME`
    /// makes it, a few at a time; a user whose pass fails is reported and the
    /// others are still delivered. `BIRTHDAYS_USER` and `BIRTHDAYS_DATABASE` are not read.
    func runAllUsers() async throws {
        let environment = ProcessInfo.processInfo.environment
        let folders = Context.users(environment).folders
        let names: [UserName]
        do {
            names = try folders.list()
        } catch {
            throw CLIError(error.description)
        }
        var results: [UserName: Result<DeliveryEngine.PassResult, any Error>] = [:]
        await withTaskGroup(of: (UserName, Result<DeliveryEngine.PassResult, any Error>).self) { group in
            var next = names.makeIterator()
            for _ in 0..<Self.usersAtOnce {
                guard let name = next.next() else { break }
                group.addTask { (name, await Self.userPass(name)) }
            }
            for await (name, result) in group {
                results[name] = result
                if let name = next.next() { group.addTask { (name, await Self.userPass(name)) } }
            }
        }
        var failed = false
        var lines: [String] = []
        var outputs: [UserOutput] = []
        for name in names {
            switch results[name] {
            case .success(let result):
                failed = failed || Self.failed(result)
                lines.append("\(name): " + Self.summary(result))
                outputs.append(UserOutput(user: name.rawValue, pass: Output(result)))
            case .failure(let error):
                failed = true
                printError("Error: \(name): \(error)")
                outputs.append(UserOutput(user: name.rawValue, error: "\(error)"))
            case nil:
                break
            }
        }
        if json {
            try output(JSONOutput.string(outputs))
        } else if names.isEmpty {
            try output("No users yet in \(folders.root).")
        } else {
            try output(lines.joined(separator: "\n"))
        }
        if failed { throw ExitCode.failure }
    }

    /// User `name`'s pass, or why it could not be made (their folder, their database, the store).
    static func userPass(_ name: UserName) async -> Result<DeliveryEngine.PassResult, any Error> {
        do {
            let context = try Context(GlobalOptions.user(name), ignoringChoiceVariables: true)
            return .success(try await pass(context, logPrefix: "user=\(name) ", user: name))
        } catch {
            return .failure(error)
        }
    }
}
