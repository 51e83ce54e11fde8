import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a source's `--password-command` and returns the password, as
/// vdirsyncer and khal do: `/bin/sh -c COMMAND`, and the first line of its
/// standard output (without the line break) is the password.
///
/// Rules:
/// - Exit status 0 and a non-empty first line are required; otherwise the
///   sync fails with a sentence saying which (never with the output).
/// - Standard input and error are `/dev/null`; the output is read by this
///   process only and never logged or stored.
/// - A command that has not finished after `timeout` (default 60 s; a
///   password manager may ask for a passphrase) is stopped with its process
///   group (``ChildProcess``'s rule: SIGTERM, then SIGKILL) and the sync fails.
/// - At most 64 KiB of its output is kept.
package enum PasswordCommand {
    /// The password `command` prints.
    ///
    /// - Parameters:
    ///   - environment: what the command inherits (the CLI passes its own).
    ///   - clock: the clock of the timeout.
    /// - Throws: ``RemoteError/passwordCommand(reason:)``.
    package static func run(
        _ command: String,
        environment: [String: String],
        timeout: Duration = .seconds(60),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(RemoteError) -> String {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                ["/bin/sh", "-c", command],
                environment: environment,
                output: .capture(limit: 65_536),
                timeout: timeout,
                clock: clock
            )
        } catch {
            throw .passwordCommand(reason: "cannot start /bin/sh")
        }
        if outcome.timedOut { throw .passwordCommand(reason: "it did not finish within \(timeout.components.seconds) s") }
        switch outcome.termination {
        case .exited(0): break
        case .exited(let status): throw .passwordCommand(reason: "it exited with status \(status)")
        case .signalled(let signal): throw .passwordCommand(reason: "it was killed by signal \(signal)")
        }
        var line = outcome.output.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard !line.isEmpty else { throw .passwordCommand(reason: "it printed no password") }
        return String(decoding: line, as: UTF8.self)
    }
}
