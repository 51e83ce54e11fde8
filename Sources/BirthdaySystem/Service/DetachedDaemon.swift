import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays run` started in the background by the onboarding, where no
/// systemd user manager runs: in a session of its own, standard input from
/// `/dev/null`, its output appended to ``SystemdUserService/logPath``. It
/// runs until it is stopped, the user logs out (where logind ends a
/// session's processes) or the machine restarts.
package enum DetachedDaemon {
    /// What became of the start.
    package enum Outcome: Sendable, Equatable {
        /// The daemon runs and holds the daemon lock.
        case running(pid: Int32)
        /// It ended before it took the lock (its log says why).
        case exited(description: String)
        /// It neither took the lock nor ended within the wait; it is left running.
        case notYetRunning(pid: Int32)
        /// It could not be started.
        case failed(reason: String)
    }

    /// Starts `birthdays run --database …` (`run --user NAME` for a
    /// user's database: ``SystemdUserService/daemonArguments``) for
    /// `service`'s binary and database with `environment`, then waits (up
    /// to `wait`) until it holds the daemon lock, or has ended.
    package static func start(_ service: SystemdUserService, environment: [String: String], wait: Duration = .seconds(20)) async -> Outcome {
        let pid: pid_t
        do {
            pid = try ChildProcess.startDetached(
                [service.binary] + service.daemonArguments,
                environment: environment.merging(service.daemonEnvironment) { _, new in new },
                log: service.logPath
            )
        } catch {
            return .failed(reason: error.reason)
        }
        let deadline = ContinuousClock.now + wait
        while true {
            if DaemonLock.holder(database: service.database) == pid { return .running(pid: pid) }
            if let ended = ChildProcess.reapIfExited(pid) {
                switch ended {
                case .exited(let code): return .exited(description: "it exited with status \(code)")
                case .signalled(let signal): return .exited(description: "it was stopped by signal \(signal)")
                }
            }
            guard ContinuousClock.now < deadline else { return .notYetRunning(pid: pid) }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
