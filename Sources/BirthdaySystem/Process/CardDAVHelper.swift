import BirthdayCore
import Foundation

/// Runs `birthdays-carddav`, the helper that talks to CardDAV servers, so
/// that `birthdays` itself (the daemon above all) never links an HTTP and
/// TLS stack: linking AsyncHTTPClient into it cost the idle daemon 2.9 MB of
/// resident memory without a single request (ARCHITECTURE.md).
///
/// The helper lives next to `birthdays` (or where `BIRTHDAYS_CARDDAV_HELPER`
/// says). It syncs a source itself, applying the changes to the database
/// file under the same rules and recording its outcome, and prints a JSON
/// ``HelperReply``; its log lines go to the same standard error. A password
/// already read is given on its standard input, never in its arguments or
/// environment.
public struct CardDAVHelper: SourceDelegate {
    public let executable: String
    public let database: String
    public let environment: [String: String]
    public let password: String?

    /// - Parameters:
    ///   - database: the database file the helper syncs into.
    ///   - environment: what the helper (and the password command it runs) inherits.
    ///   - password: a password already read from the source's command.
    public init(database: String, environment: [String: String], password: String? = nil) {
        self.executable = Self.locate(environment: environment)
        self.database = database
        self.environment = environment
        self.password = password
    }

    /// `BIRTHDAYS_CARDDAV_HELPER`, else `birthdays-carddav` in the folder of the running executable.
    public static func locate(environment: [String: String]) -> String {
        if let explicit = environment["BIRTHDAYS_CARDDAV_HELPER"], !explicit.isEmpty { return explicit }
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return running.deletingLastPathComponent().appendingPathComponent("birthdays-carddav").path
    }

    public func sync(_ source: Source, allowMassRemoval: Bool, now: Date, timeZone: TimeZone) async throws(SourceError) -> SourceSyncReport {
        guard database.hasPrefix("/") else { throw .unavailable(reason: "a CardDAV source needs a database file (not \(database))") }
        var arguments = [
            "sync", "--database", database, "--source-id", String(source.id),
            "--now", String(now.timeIntervalSince1970), "--time-zone", timeZone.identifier,
        ]
        if allowMassRemoval { arguments.append("--allow-mass-removal") }
        return try await call(arguments, timeout: .seconds(30 * 60))
    }

    /// The address books behind `url` (RFC 6764 discovery, in the helper).
    public func discover(_ url: String, username: String?) async throws(SourceError) -> [AddressBook] {
        var arguments = ["discover", url]
        if let username { arguments += ["--username", username] }
        return try await call(arguments, timeout: .seconds(5 * 60))
    }

    private func call<Value: Codable & Sendable>(_ arguments: [String], timeout: Duration) async throws(SourceError) -> Value {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw .unavailable(
                reason: "\(executable), which syncs CardDAV sources, is missing: install it next to birthdays (make release builds both)"
            )
        }
        var argv = [executable] + arguments
        var input: [UInt8]?
        if let password {
            argv.append("--password-stdin")
            input = Array((password + "\n").utf8)
        }
        let outcome: CapturedProcess.Outcome
        do {
            outcome = try await CapturedProcess.run(argv, environment: environment, input: input, inheritStderr: true, timeout: timeout)
        } catch {
            throw .unavailable(reason: "cannot start \(executable): \(error.reason)")
        }
        if outcome.timedOut { throw .unavailable(reason: "the CardDAV helper did not finish within \(timeout.components.seconds / 60) minutes") }
        guard let reply = try? JSONDecoder().decode(HelperReply<Value>.self, from: Data(outcome.output)) else {
            let how: String
            switch outcome.termination {
            case .exited(let status): how = "exited with status \(status)"
            case .signalled(let signal): how = "was killed by signal \(signal)"
            }
            throw .unavailable(reason: "the CardDAV helper \(how) without a report")
        }
        if let error = reply.error { throw error }
        guard let value = reply.value else { throw .unavailable(reason: "the CardDAV helper gave an empty report") }
        return value
    }
}
