import BirthdayKit
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `birthdays run` (or any program) started in the background with
/// `posix_spawn`, its output in files, with a clean signal mask so SIGTERM
/// and SIGHUP reach it (Foundation's Process would pass on the test
/// thread's blocked signals).
final class BackgroundProcess: @unchecked Sendable {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private var exitStatus: Int32?

    init(_ path: String, _ arguments: [String], environment: [String: String], directory: URL, name: String) throws {
        stdoutPath = directory.appendingPathComponent(name + ".out").path
        stderrPath = directory.appendingPathComponent(name + ".err").path
        pid = try Spawn.start(path, arguments, environment: environment, stdin: "/dev/null", stdout: stdoutPath, stderr: stderrPath)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// The exit status (128 + signal when killed) once it has exited, else `nil`.
    func poll() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Polls until `condition` holds on the process; records an issue with its output after `seconds`.
    func waitUntil(
        _ what: String, seconds: Int = 120, sourceLocation: SourceLocation = #_sourceLocation, _ condition: (BackgroundProcess) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition(self) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for \(what); stdout:\n\(stdout)\nstderr:\n\(stderr)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits for the exit and returns its status.
    func waitForExit(seconds: Int = 120, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int32 {
        try await waitUntil("the exit", seconds: seconds, sourceLocation: sourceLocation) { $0.poll() != nil }
        return exitStatus ?? -1
    }
}

extension String {
    func occurrences(of needle: String) -> Int { components(separatedBy: needle).count - 1 }
}

/// The setup every `birthdays run` test shares.
extension CLIProcess {
    /// A database with Ada Lovelace, born 1990-03-10, so at the default
    /// `BIRTHDAYS_NOW` (08:00 Europe/Berlin on 2026-03-10) her day-of
    /// reminder is due at 09:00; day-before reminders off, then `settings`.
    static func withAda(settings: [(String, String)] = [], enableNotifications: Bool) throws -> CLIProcess {
        var cli = try CLIProcess()
        cli.now = "2026-03-10T08:00:00+01:00"
        try cli.database().insertPeople(
            [Person(id: "ada", name: "Ada Lovelace", source: ContactSource(file: "seed.vcf", index: 0, line: 1), birthday: EventDate(year: 1990, month: 3, day: 10))],
            now: Date(timeIntervalSince1970: 0)
        )
        try cli.set("day-before", "off")
        for (key, value) in settings { try cli.set(key, value) }
        if enableNotifications { try cli.enableNotifications() }
        return cli
    }

    func enableNotifications() throws {
        let enable = try run("notifications", "enable")
        try #require(enable.status == 0, "\(enable.stderr)")
    }

    func set(_ key: String, _ value: String) throws {
        let set = try run("settings", "set", key, value)
        try #require(set.status == 0, "settings set \(key): \(set.stderr)")
    }

    /// `birthdays run` in the background, its clock starting at `now`, logging at info.
    func daemon(now: String, name: String = "daemon", extraEnvironment: [String: String] = [:]) throws -> BackgroundProcess {
        var environment = self.environment
        environment["BIRTHDAYS_NOW"] = now
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        environment.merge(extraEnvironment) { $1 }
        return try BackgroundProcess(try CLIProcess.binary(), ["run"], environment: environment, directory: directory, name: name)
    }

    /// Runs a one-shot command as if it were `now`.
    func run(at now: String, _ arguments: String...) throws -> CLIProcess.Output {
        var at = self
        at.now = now
        let result = try Spawn.run(try CLIProcess.binary(), arguments, environment: at.environment)
        return CLIProcess.Output(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// The delivery ledger's states, in the order the store lists them.
    func ledgerStates() throws -> [String] {
        try database().deliveries(updatedSince: .distantPast).map(\.state.rawValue)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
