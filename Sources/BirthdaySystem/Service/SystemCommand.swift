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
    /// waits for it; its output is read from a temporary file.
    public static func run(_ argv: [String], environment: [String: String]) -> Result {
        var template = Array("/tmp/birthdays-command-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return Result(status: 127, output: "cannot make a temporary file: \(String(cString: strerror(errno)))") }
        let outputPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            close(fd)
            unlink(outputPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for item in arguments { free(item) }
            for item in variables { free(item) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, arguments, variables)
        guard spawned == 0 else { return Result(status: 127, output: "\(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: code, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
