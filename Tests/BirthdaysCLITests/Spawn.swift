import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with `posix_spawn` and `waitpid`, its standard streams
/// redirected to files. Foundation's `Process.waitUntilExit()` can miss the
/// exit of a short-lived child under parallel tests (the tmux client stays a
/// zombie and the wait never returns), and a pipe handed to `tmux new-session`
/// is inherited by the server it starts, so it would never reach end-of-file.
enum Spawn {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    enum Failure: Error, CustomStringConvertible {
        case spawn(String, Int32)
        var description: String {
            switch self {
            case .spawn(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String = "") throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-spawn-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inPath = directory.appendingPathComponent("stdin").path
        let outPath = directory.appendingPathComponent("stdout").path
        let errPath = directory.appendingPathComponent("stderr").path
        try Data(stdin.utf8).write(to: URL(fileURLWithPath: inPath))

        let pid = try start(path, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                            stdin: inPath, stdout: outPath, stderr: errPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(status: exit, stdout: out, stderr: err)
    }

    /// Starts `path` with its standard streams on the given files (stdout and
    /// stderr truncated) and returns its pid; the caller waits for it.
    ///
    /// Test threads block most signals, and a spawned child inherits the mask:
    /// the child gets an empty mask and default handlers, or the daemon could
    /// not be stopped with SIGTERM and tmux would ignore SIGHUP.
    static func start(
        _ path: String, _ arguments: [String], environment: [String: String], stdin: String, stdout: String, stderr: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
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
        guard code == 0 else { throw Failure.spawn(path, code) }
        return pid
    }
}
