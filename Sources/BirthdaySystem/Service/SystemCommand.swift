import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a system program to completion (`systemctl`), with its output
/// captured; for short commands of the command line, never the daemon.
package enum SystemCommand {
    /// How a program ended and what it printed (standard output and error together).
    package struct Result: Sendable, Equatable {
        package var status: Int32
        package var output: String
    }

    /// The path of `name` in the `PATH` of `environment`, or `nil`.
    package static func find(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `argv` with `environment` through ``ChildProcess`` (standard input
    /// from /dev/null, standard output and error read together, at most 1 MiB)
    /// and waits for it, stopping it after `timeout`.
    package static func run(_ argv: [String], environment: [String: String], timeout: Duration = .seconds(90)) async -> Result {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                argv,
                environment: environment,
                output: .capture(limit: 1 << 20),
                stderr: .withOutput,
                timeout: timeout
            )
        } catch {
            return Result(status: 127, output: error.reason)
        }
        let code: Int32 =
            switch outcome.termination {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        let text = String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Result(status: code, output: outcome.timedOut ? "it did not finish within \(timeout.components.seconds) s" : text)
    }
}
