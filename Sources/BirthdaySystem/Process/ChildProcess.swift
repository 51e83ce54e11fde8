import BirthdayCore
internal import CWake
import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` in a process group of its own,
/// so a timeout can stop the shell and everything it started.
///
/// Rules: standard input, output and error are `/dev/null` (a command's
/// output can contain names, so it is never read or logged); descriptors
/// above 2 are closed in the child; signal dispositions and the signal mask
/// are reset to the defaults, so a daemon that ignores SIGTERM or SIGPIPE
/// does not pass that on.
struct ChildProcess: Sendable {
    /// How a child ended.
    enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// Decodes a `waitpid` status (the `WIFEXITED` macros do not import into Swift).
        init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
    }

    let pid: pid_t

    /// Starts `argv[0]` with `argv` and exactly `environment`. Standard input,
    /// output and error are `stdin`, `stdout` and `stderr` when given (pipe
    /// ends, a file), else `/dev/null`; standard error is this process's own
    /// when `inheritStderr`.
    static func spawn(
        _ argv: [String],
        environment: [String: String],
        stdin: Int32? = nil,
        stdout: Int32? = nil,
        stderr: Int32? = nil,
        inheritStderr: Bool = false
    ) throws(DeliveryError) -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let stderr {
            posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        } else if !inheritStderr {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        _ = cwake_spawn_add_closefrom(&actions, 3)

        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for item in arguments { free(item) }
            for item in variables { free(item) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, arguments, variables)
        guard status == 0 else { throw .commandNotStarted(reason: argv[0] + ": " + String(cString: strerror(status))) }
        return ChildProcess(pid: pid)
    }

    /// The threads that wait for children. A pool of its own, not the
    /// shared one the database uses: a command may run for its whole timeout,
    /// and its wait must never queue behind, or hold up, a database call.
    /// Idle threads sleep on a condition variable (no wakeups).
    private static let waiters: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    /// Waits for the child to end; `waitpid` blocks, so on a pool thread.
    func waitForExit() async -> Termination {
        let pid = self.pid
        let wait: @Sendable () -> Termination = {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                if errno != EINTR { return .signalled(SIGKILL) }
            }
            return Termination(waitStatus: status)
        }
        return (try? await Self.waiters.runIfActive(wait)) ?? wait()
    }

    /// Sends `signal` to the child's whole process group.
    func signalGroup(_ signal: Int32) {
        _ = kill(-pid, signal)
    }
}
