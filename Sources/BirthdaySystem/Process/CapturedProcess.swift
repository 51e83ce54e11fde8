import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child whose standard output is read to its end: the password command,
/// the CardDAV helper.
///
/// Rules: `input` (if any) is written to its standard input, which is then
/// closed; standard error goes to `/dev/null`, or to this process's own when
/// `inheritStderr` (the helper's log lines then reach the daemon's log); at
/// most `limit` bytes of output are kept. A child still running at
/// `timeout` is killed with its process group. The output is read, and the
/// child waited for, on a thread started for it that ends with it.
struct CapturedProcess: Sendable {
    struct Outcome: Sendable {
        var termination: ChildProcess.Termination
        var output: [UInt8]
        var timedOut: Bool
    }

    /// Why the child could not be started.
    struct SpawnFailure: Error {
        var reason: String
    }

    static func run(
        _ argv: [String],
        environment: [String: String],
        input: [UInt8]? = nil,
        inheritStderr: Bool = false,
        timeout: Duration,
        limit: Int = 64 << 20
    ) async throws(SpawnFailure) -> Outcome {
        var output: [Int32] = [-1, -1]
        var feed: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw SpawnFailure(reason: "cannot make a pipe: " + String(cString: strerror(errno))) }
        if input != nil {
            guard pipe(&feed) == 0 else {
                close(output[0])
                close(output[1])
                throw SpawnFailure(reason: "cannot make a pipe: " + String(cString: strerror(errno)))
            }
        }
        for fd in output + feed where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                argv,
                environment: environment,
                stdin: input == nil ? nil : feed[0],
                stdout: output[1],
                inheritStderr: inheritStderr
            )
        } catch {
            for fd in output + feed where fd >= 0 { close(fd) }
            throw SpawnFailure(reason: error.description)
        }
        close(output[1])
        if let input {
            close(feed[0])
            // A password or a few hundred bytes: far below a pipe's buffer, so this never blocks.
            _ = input.withUnsafeBytes { write(feed[1], $0.baseAddress, $0.count) }
            close(feed[1])
        }
        let reader = output[0]
        let milliseconds = Int(timeout.components.seconds) * 1000
        // On a thread of its own that ends with the child: a helper sync can take
        // minutes, and a pool kept for it would stay in the idle daemon's memory.
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                defer { close(reader) }
                let (bytes, timedOut) = readAll(reader, milliseconds: milliseconds, limit: limit)
                if timedOut { child.signalGroup(SIGKILL) }
                var status: Int32 = 0
                while waitpid(child.pid, &status, 0) == -1 {
                    if errno != EINTR {
                        return continuation.resume(returning: Outcome(termination: .signalled(SIGKILL), output: bytes, timedOut: timedOut))
                    }
                }
                continuation.resume(returning: Outcome(termination: ChildProcess.Termination(waitStatus: status), output: bytes, timedOut: timedOut))
            }
            thread.start()
        }
    }

    /// Reads `fd` to its end (keeping at most `limit` bytes), or until `milliseconds` pass.
    private static func readAll(_ fd: Int32, milliseconds: Int, limit: Int) -> (output: [UInt8], timedOut: Bool) {
        var output: [UInt8] = []
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (output, true) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&entry, 1, Int32(clamping: wait))
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
            if output.count < limit { output += buffer[0..<min(count, limit - output.count)] }
        }
    }
}
