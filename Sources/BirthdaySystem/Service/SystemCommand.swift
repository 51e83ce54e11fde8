import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a system program to completion (`systemctl`), with its output
/// captured; for short commands of the command line, never the daemon.
public enum SystemCommand {
    /// How a program ended and what it printed (standard output and error together).
    public struct Result: Sendable, Equatable {
        public var status: Int32
        public var output: String
    }

    /// The path of `name` in the `PATH` of `environment`, or `nil`.
    public static func find(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `argv` with `environment`, standard input from /dev/null, and
    /// waits for it (started as ``ChildProcess`` starts every child); its
    /// output and errors are read from a temporary file.
    public static func run(_ argv: [String], environment: [String: String]) -> Result {
        var template = Array("/tmp/birthdays-command-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return Result(status: 127, output: "cannot make a temporary file: \(String(cString: strerror(errno)))") }
        let outputPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            close(fd)
            unlink(outputPath)
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(argv, environment: environment, stdout: fd, stderr: fd)
        } catch {
            return Result(status: 127, output: error.description)
        }
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) == -1 && errno == EINTR {}
        let code: Int32 =
            switch ChildProcess.Termination(waitStatus: status) {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: code, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
