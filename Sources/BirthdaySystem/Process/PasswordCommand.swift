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
///   password manager may ask for a passphrase) is killed with its process
///   group and the sync fails.
public enum PasswordCommand {
    /// The password `command` prints.
    ///
    /// - Parameter environment: what the command inherits (the CLI passes its own).
    /// - Throws: ``SourceError/passwordCommand(reason:)``.
    public static func run(_ command: String, environment: [String: String], timeout: Duration = .seconds(60)) async throws(SourceError) -> String {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .passwordCommand(reason: "cannot make a pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(["/bin/sh", "-c", command], environment: environment, stdout: fds[1])
        } catch {
            close(fds[0])
            close(fds[1])
            throw .passwordCommand(reason: "cannot start /bin/sh")
        }
        close(fds[1])
        let reader = fds[0]
        let milliseconds = Int(timeout.components.seconds) * 1000
        let outcome = await ChildProcess.blocking { () -> (output: [UInt8], timedOut: Bool, termination: ChildProcess.Termination) in
            defer { close(reader) }
            let (output, timedOut) = readAll(reader, milliseconds: milliseconds)
            if timedOut { child.signalGroup(SIGKILL) }
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) == -1 {
                if errno != EINTR { return (output, timedOut, .signalled(SIGKILL)) }
            }
            return (output, timedOut, ChildProcess.Termination(waitStatus: status))
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

    /// Reads `fd` to its end (at most 64 KB kept), or until `milliseconds` pass.
    private static func readAll(_ fd: Int32, milliseconds: Int) -> (output: [UInt8], timedOut: Bool) {
        var output: [UInt8] = []
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (output, true) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
            if ready < 0 {
                if errno == EINTR { continue }
                return (output, false)
            }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return (output, false)
            }
            if count == 0 { return (output, false) }
            if output.count < 65_536 { output += buffer[0..<count] }
        }
    }
}
