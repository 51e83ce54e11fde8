internal import CWake
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// Starts `argv` to outlive this process, and does not wait for it: the
    /// one exception to the supervision rule, for `birthdays run` started by
    /// the onboarding where no systemd user manager runs.
    ///
    /// The same rules as ``run(_:environment:input:output:stderr:timeout:killGrace:clock:)``
    /// otherwise: an argument list (no shell), exactly `environment`, signal
    /// dispositions and mask reset, descriptors above 2 closed. The child
    /// starts a session of its own (`setsid`: no controlling terminal, so a
    /// closed terminal sends it no SIGHUP), standard input is `/dev/null`,
    /// and standard output and error are appended to `log` (created 0600).
    ///
    /// The caller reaps it (``reapIfExited(_:)``) or leaves it to `init` by exiting.
    ///
    /// - Returns: the child's pid.
    /// - Throws: ``SpawnFailure`` when the log cannot be opened or the program cannot be started.
    static func startDetached(_ argv: [String], environment: [String: String], log: String) throws(SpawnFailure) -> pid_t {
        guard let program = argv.first else { throw SpawnFailure(reason: "no program to run") }
        // Opened here, not by the spawn, so a log that cannot be written is an error with its reason.
        let logFD = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw SpawnFailure(reason: log + ": " + String(cString: strerror(errno))) }
        defer { close(logFD) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, logFD, 1)
        posix_spawn_file_actions_adddup2(&actions, logFD, 2)
        let (status, pid) = spawn(program, argv, environment: environment, actions: &actions, flags: cwake_spawn_setsid_flag())
        guard status == 0 else { throw SpawnFailure(reason: program + ": " + String(cString: strerror(status))) }
        return pid
    }

    /// How a child from ``startDetached(_:environment:log:)`` ended, reaping
    /// it; `nil` while it runs (or when it is not this process's child).
    static func reapIfExited(_ pid: pid_t) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid ? Termination(waitStatus: status) : nil
    }
}
