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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, env)
        guard code == 0 else { throw Spawn.Failure.spawn(path, code) }
        self.pid = pid
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
