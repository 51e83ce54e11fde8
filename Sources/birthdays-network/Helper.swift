import ArgumentParser
import BirthdayCore
import BirthdayNetwork
import BirthdayStore
import BirthdaySystem
import CWake
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays-network`: the helper process `birthdays` runs for everything
/// that goes over the network: a CardDAV source's sync and discovery, a
/// birthday written back to a CardDAV card (`write-birthday`), a
/// CalDAV calendar's publishing, and each ntfy or Gotify message (`post`),
/// so that `birthdays` itself links no HTTP or TLS stack (see `NetworkHelper`
/// and `PushChannel`). Not meant to be run by hand.
///
/// It prints one JSON ``HelperReply`` on standard output (`post`: one
/// `PushReply`); `sync` exits with a ``HelperExit`` status (0 synced, 3
/// synced with people changed, 4 failed), `discover` and `post` with 0. Logs go to standard error, at the level of
/// `BIRTHDAYS_LOG_LEVEL` (the caller sets it: the daemon's own level, or
/// `error` for the commands, which print the report themselves).
@main
struct NetworkHelperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "birthdays-network",
        abstract: "The network helper of birthdays (run by it; not meant to be run by hand).",
        subcommands: [Sync.self, Discover.self, Post.self, PublishDiscover.self, Publish.self, PublishDeleteCalendar.self, WriteBirthday.self]
    )

    /// Reads the password from the first line of standard input.
    static func passwordFromStandardInput() -> String? {
        guard var line = readLine(strippingNewline: true) else { return nil }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }

    /// Prints the reply and a newline with `write(2)`, retrying short writes;
    /// a write that fails is given up (the caller then reads no report and
    /// says so), never a crash as `FileHandle.write` would make it.
    static func reply<Value: Codable & Sendable>(_ value: Value?, _ error: SourceError?) {
        send(HelperReply(value: value, error: error))
    }

    /// ``reply(_:_:)`` for the publish commands, whose errors are ``PublishError``s.
    static func publishReply<Value: Codable & Sendable>(_ value: Value?, _ error: PublishError?) {
        send(HelperReply(value: value, error: error))
    }

    private static func send<Value: Codable & Sendable, Failure: Error & Codable & Sendable>(_ reply: HelperReply<Value, Failure>) {
        var bytes = [UInt8]((try? JSONEncoder().encode(reply)) ?? Data(#"{"error":null,"value":null}"#.utf8))
        bytes.append(UInt8(ascii: "\n"))
        writeAll(bytes)
    }

    /// Writes `bytes` to standard output, retrying short writes; gives up when a write fails.
    static func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(1, base + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Ends the helper as soon as the process that started it ends, however
    /// it ends (SIGKILL included), so no sync or discovery outlives the
    /// command or the daemon that asked for it. Called first in every
    /// subcommand.
    ///
    /// A thread waits on a pidfd of the parent, which becomes readable when
    /// the whole parent process has ended. Not `PR_SET_PDEATHSIG`: its signal
    /// comes when the parent *thread* that spawned the helper ends, and the
    /// commands spawn from Swift concurrency's pool, whose idle threads end
    /// after a few seconds, which would kill a sync in the middle. A parent
    /// that ended before the pidfd was opened is seen by `getppid()`, which
    /// then names whoever adopted the helper (init, PID 1, or a subreaper).
    static func watchParent() {
        let parent = getppid()
        guard parent > 1 else { _exit(HelperExit.failed) }
        let fd = cwake_pidfd_open(parent)
        guard getppid() == parent else { _exit(HelperExit.failed) }
        let thread = Thread {
            cwake_name_thread("network-parent")
            if fd >= 0 {
                _ = cwake_wait(-1, fd, -1)
            } else {
                // No pidfd (Linux before 5.3): look once a second.
                while getppid() == parent { sleep(1) }
            }
            _exit(HelperExit.failed)
        }
        thread.start()
    }

    static func logger(_ environment: [String: String]) -> Logger {
        var logger = Logger(label: "birthdays.network") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = environment["BIRTHDAYS_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .error
        return logger
    }

    /// `birthdays-network sync`: one source, into the database, with the same rules as any sync.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sync one CardDAV source into the database.")

        @OptionGroup var caller: CallerOptions
        @Option var sourceId: Int64
        @Flag var allowMassRemoval = false
        @OptionGroup var secret: PasswordOption

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let environment = ProcessInfo.processInfo.environment
            let known = secret.password()
            let instant = caller.instant
            let zone = caller.zone
            let database: AppDatabase
            let source: Source
            do {
                database = try AppDatabase.openFile(at: caller.database, create: false)
                guard let found = try await database.sources().first(where: { $0.id == sourceId }) else {
                    NetworkHelperCommand.reply(SourceSyncReport?.none, .unknownSource(name: "#\(sourceId)"))
                    throw ExitCode(HelperExit.failed)
                }
                source = found
            } catch let exit as ExitCode {
                throw exit
            } catch {
                NetworkHelperCommand.reply(SourceSyncReport?.none, .store("\(error)"))
                throw ExitCode(HelperExit.failed)
            }
            let reader = CardDAVReader(
                password: { source throws(RemoteError) in
                    if let known { return known }
                    guard let command = source.passwordCommand, !command.isEmpty else { return nil }
                    return try await PasswordCommand.run(command, environment: environment)
                },
                deadline: DAVLimits.deadline(environment: environment)
            )
            let sync = SourceSync(
                database: database,
                readers: SourceReaders { kind in kind == .carddav ? reader : nil },
                now: { instant },
                systemTimeZone: { zone },
                systemLocale: caller.locale,
                logger: NetworkHelperCommand.logger(environment)
            )
            let report = await sync.sync(source, allowMassRemoval: allowMassRemoval)
            NetworkHelperCommand.reply(report, nil)
            if !report.succeeded { throw ExitCode(HelperExit.failed) }
            if report.peopleChanged { throw ExitCode(HelperExit.peopleChanged) }
        }
    }

    /// `birthdays-network discover URL`: the address books behind a URL.
    struct Discover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Find the address books behind a URL (RFC 6764).")

        @Argument var url: String
        @Option var username: String?
        @OptionGroup var secret: PasswordOption

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let password = secret.password()
            let deadline = DAVLimits.deadline(environment: ProcessInfo.processInfo.environment)
            do {
                let books = try await CardDAVDiscovery(deadline: deadline).addressBooks(from: url, username: username, password: password)
                NetworkHelperCommand.reply(books, nil)
            } catch {
                NetworkHelperCommand.reply([AddressBook]?.none, error)
            }
        }
    }
}
