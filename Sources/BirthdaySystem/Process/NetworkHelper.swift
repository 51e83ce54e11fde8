import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs `birthdays-network`, the helper process that does the network
/// (CardDAV syncs and discovery, a birthday written back to a CardDAV card,
/// CalDAV publishing, ntfy and Gotify posts),
/// so that `birthdays` itself (the daemon above all) never links an HTTP and
/// TLS stack: linking AsyncHTTPClient into it cost the idle daemon 2.9 MB of
/// resident memory without a single request (ARCHITECTURE.md).
///
/// The helper lives next to `birthdays` (or where `BIRTHDAYS_NETWORK_HELPER`
/// says). It syncs a source itself, applying the changes to the database
/// file under the same rules, recording the outcome in the source's status
/// and logging it on the standard error it shares with its caller. It
/// prints a JSON ``HelperReply`` and says in its exit status what happened
/// (``HelperExit``). A password already read is given on its standard input,
/// never in its arguments or environment.
///
/// Two ways to hear back (``Reporting``): the commands read the whole report
/// (problems included); the daemon reads only the exit status, so that it
/// needs no pipe and no JSON decoder for a sync: ``ChildProcess``'s waiting
/// thread lives as long as the helper, and the timeout sleeps on the
/// daemon's clock.
package struct NetworkHelper: SourceDelegate {
    /// How the caller hears what a sync did.
    package enum Reporting: Sendable {
        /// The whole report, from the helper's standard output.
        case report
        /// The exit status only: counts and problems are in the helper's log and the source's status.
        case exitStatus(clock: any Clock<Duration>)
    }

    package let executable: String
    package let database: String
    package let environment: [String: String]
    package let password: String?
    package let reporting: Reporting
    /// How long a sync may take before the helper is stopped.
    package let timeout: Duration
    /// The clock of the timeout when the whole report is read (the daemon's, so its sleeps stay on its event loops).
    package let clock: any Clock<Duration>

    /// - Parameters:
    ///   - database: the database file the helper syncs into.
    ///   - environment: what the helper (and the password command it runs) inherits.
    ///   - password: a password already read from the source's command.
    ///   - logLevel: the level of the helper's log lines (`BIRTHDAYS_LOG_LEVEL`), or `nil` for errors only.
    package init(
        database: String,
        environment: [String: String],
        password: String? = nil,
        reporting: Reporting = .report,
        logLevel: String? = nil,
        timeout: Duration = .seconds(30 * 60),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.executable = Self.locate(environment: environment)
        self.database = database
        var environment = environment
        environment["BIRTHDAYS_LOG_LEVEL"] = logLevel ?? "error"
        self.environment = environment
        self.password = password
        self.reporting = reporting
        self.timeout = timeout
        self.clock = clock
    }

    /// `BIRTHDAYS_NETWORK_HELPER`, else `birthdays-network` in the folder of the running executable.
    /// (With `readlink` rather than Foundation's URLs: the idle daemon calls this, and
    /// every code page it touches stays resident.)
    package static func locate(environment: [String: String]) -> String {
        if let explicit = environment["BIRTHDAYS_NETWORK_HELPER"], !explicit.isEmpty { return explicit }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "birthdays-network" }
        let running = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = running.lastIndex(of: "/") else { return "birthdays-network" }
        return String(running[...slash]) + "birthdays-network"
    }

    package func sync(
        _ source: Source,
        allowMassRemoval: Bool,
        now: Date,
        timeZone: TimeZone,
        locale: String?
    ) async throws(SourceError) -> SourceSyncReport {
        guard !database.isEmpty, database != ":memory:" else { throw .unavailable(reason: "a CardDAV source needs a database file") }
        var arguments = [
            "sync", "--database", database, "--source-id", String(source.id),
            "--now", String(now.timeIntervalSince1970), "--time-zone", timeZone.identifier,
        ]
        if let locale { arguments += ["--locale", locale] }
        if allowMassRemoval { arguments.append("--allow-mass-removal") }
        switch reporting {
        case .report:
            return try await call(arguments, timeout: timeout)
        case .exitStatus(let clock):
            return try await exitStatus(arguments, source: source, clock: clock)
        }
    }

    /// The address books behind `url` (RFC 6764 discovery, in the helper).
    package func discover(_ url: String, username: String?) async throws(SourceError) -> [AddressBook] {
        var arguments = ["discover", url]
        if let username { arguments += ["--username", username] }
        return try await call(arguments, timeout: .seconds(5 * 60))
    }

    /// The CalDAV calendar to publish into behind `url`: the calendar itself,
    /// or the one named `calendar` in the account's home set, made when missing.
    package func publishDiscover(_ url: String, username: String?, calendar: String) async throws(PublishError) -> PublishDiscovery {
        var arguments = ["publish-discover", url, "--calendar", calendar]
        if let username { arguments += ["--username", username] }
        return try await call(arguments, timeout: .seconds(5 * 60), failed: PublishError.unavailable)
    }

    /// Publishes the birthday calendar to `target` (in the helper, which
    /// records each resource written in the database and the outcome on the target).
    ///
    /// - Parameter ifChanged: publish only when the events differ from the
    ///   last successful publish's (``PublishPlan/calendarHash(_:)``); else
    ///   the report says they are unchanged, and no request is made.
    /// - Parameter withdraw: delete every event the target published instead (`publish remove`).
    package func publish(
        _ target: PublishTarget,
        force: Bool,
        ifChanged: Bool = false,
        withdraw: Bool = false,
        now: Date,
        timeZone: TimeZone,
        locale: String?
    ) async throws(PublishError) -> PublishReport {
        guard !database.isEmpty, database != ":memory:" else { throw .unavailable(reason: "publishing needs a database file") }
        var arguments = [
            "publish", "--database", database, "--target-id", String(target.id),
            "--now", String(now.timeIntervalSince1970), "--time-zone", timeZone.identifier,
        ]
        if let locale { arguments += ["--locale", locale] }
        if force { arguments.append("--force") }
        if ifChanged { arguments.append("--if-changed") }
        if withdraw { arguments.append("--withdraw") }
        return try await call(arguments, timeout: timeout, failed: PublishError.unavailable)
    }

    /// Deletes the calendar collection at `url`.
    package func deleteCalendar(_ url: String, username: String?) async throws(PublishError) {
        var arguments = ["publish-delete-calendar", url]
        if let username { arguments += ["--username", username] }
        let _: Bool = try await call(arguments, timeout: .seconds(5 * 60), failed: PublishError.unavailable)
    }

    /// Adds `birthday` to the card `href` of the CardDAV address book `book`
    /// (the helper's `write-birthday`: a ``CardWriteRequest`` on its standard
    /// input with the user name and the password, if one was given; the
    /// helper opens no database).
    package func writeBirthday(
        _ birthday: EventDate,
        personID: String,
        href: String,
        book: String,
        username: String?
    ) async throws(WriteBackError) -> CardWriteResult {
        let request = CardWriteRequest(book: book, username: username, href: href, personID: personID, birthday: birthday, password: password)
        let input = (try? JSONEncoder().encode(request)).map { [UInt8]($0) } ?? []
        return try await call(["write-birthday"], timeout: .seconds(5 * 60), input: input, failed: WriteBackError.unavailable)
    }

    /// Why the helper cannot be run, when it is missing; else `nil`.
    private var missing: String? {
        guard access(executable, X_OK) == 0 else {
            return
                "\(executable), the network helper that syncs CardDAV sources and publishes to CalDAV, is missing: install it next to birthdays (make install puts it there)"
        }
        return nil
    }

    private func call<Value: Codable & Sendable>(_ arguments: [String], timeout: Duration) async throws(SourceError) -> Value {
        try await call(arguments, timeout: timeout, failed: SourceError.unavailable)
    }

    /// Runs the helper and reads its report: the value, or the error it
    /// reported (of the command's own kind), or what kept the helper from
    /// reporting at all (`failed`: its reason as the command's kind of error).
    private func call<Value: Codable & Sendable, Failure: Error & Codable & Sendable>(
        _ arguments: [String],
        timeout: Duration,
        input request: [UInt8]? = nil,
        failed: (_ reason: String) -> Failure
    ) async throws(Failure) -> Value {
        if let missing { throw failed(missing) }
        var argv = [executable] + arguments
        var input: [UInt8]? = request
        if request == nil, let password {
            argv.append("--password-stdin")
            input = Array((password + "\n").utf8)
        }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                argv,
                environment: environment,
                input: input,
                output: .capture(limit: 64 << 20),
                stderr: .inherit,
                timeout: timeout,
                clock: clock
            )
        } catch {
            throw failed("cannot start \(executable): \(error.reason)")
        }
        if outcome.timedOut {
            throw failed("the network helper did not finish within \(timeout.components.seconds / 60) minutes")
        }
        guard let reply = try? JSONDecoder().decode(HelperReply<Value, Failure>.self, from: Data(outcome.output)) else {
            throw failed("the network helper \(Self.ended(outcome.termination)) without a report")
        }
        if let error = reply.error { throw error }
        guard let value = reply.value else { throw failed("the network helper gave an empty report") }
        return value
    }

    /// Runs the helper with its output discarded and reads its exit status.
    private func exitStatus(_ arguments: [String], source: Source, clock: any Clock<Duration>) async throws(SourceError) -> SourceSyncReport {
        if let missing { throw .unavailable(reason: missing) }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run([executable] + arguments, environment: environment, stderr: .inherit, timeout: timeout, clock: clock)
        } catch {
            throw .unavailable(reason: "cannot start \(executable): \(error.reason)")
        }
        // Stopped at the timeout, or because the daemon stops: the helper's
        // transaction is not committed, so the sync changes nothing.
        if outcome.timedOut { throw .unavailable(reason: "the network helper did not finish within \(timeout.components.seconds / 60) minutes") }
        if Task.isCancelled { throw .unavailable(reason: "the sync was stopped") }
        let termination = outcome.termination
        var report = SourceSyncReport(name: source.name, kind: source.kind)
        switch termination {
        case .exited(HelperExit.synced): break
        case .exited(HelperExit.peopleChanged): report.peopleChanged = true
        case .exited(HelperExit.failed): report.error = .unavailable(reason: "the sync failed (see the log and birthdays status)")
        default: throw .unavailable(reason: "the network helper \(Self.ended(termination)) without a report")
        }
        return report
    }

    private static func ended(_ termination: ChildProcess.Termination) -> String {
        switch termination {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "was killed by signal \(signal)"
        }
    }
}
