internal import CWake
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests run: started with `posix_spawn`, standard streams on
/// files, an empty signal mask and default signal handlers.
///
/// Why not Foundation's `Process`: test threads block signals and a child
/// inherits the mask, so a daemon started that way ignores SIGTERM and tmux
/// ignores SIGHUP; `waitUntilExit()` can miss the exit of a short-lived child
/// under parallel tests; and a pipe handed to `tmux new-session` is inherited
/// by the server it starts, so it never reaches end of file. Files have none
/// of these problems.
public final class TestProcess: @unchecked Sendable {
    /// How a program ended: its exit status, 128 + the signal when killed.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    public let pid: pid_t
    /// The command, for the failures that name it.
    public let argv: [String]
    public let stdoutPath: String
    public let stderrPath: String
    private let directory: URL?
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `argv` with exactly `environment`, in the background; its output
    /// goes to `<directory>/<name>.out` and `.err` (a temporary directory of
    /// its own when `directory` is `nil`, removed with the process).
    public init(_ argv: [String], environment: [String: String], stdin: String = "/dev/null", directory: URL? = nil, name: String = "process") throws
    {
        let folder: URL
        if let directory {
            folder = directory
            self.directory = nil
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-process-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.directory = folder
        }
        self.argv = argv
        stdoutPath = folder.appendingPathComponent(name + ".out").path
        stderrPath = folder.appendingPathComponent(name + ".err").path
        pid = try Self.spawn(argv, environment: environment, stdin: stdin, stdout: stdoutPath, stderr: stderrPath)
    }

    deinit {
        stop(signal: SIGKILL)
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Runs `argv` to completion and returns its status and output.
    ///
    /// The wait happens on a thread of its own, never on one of Swift
    /// concurrency's threads: on a 2-core machine the cooperative pool has
    /// two, and two tests blocked in `waitpid` would stall every other test,
    /// whose deadlines (``eventually(_:seconds:_:)``, a daemon's command
    /// timeout) keep running meanwhile.
    ///
    /// A program still running after `seconds` is killed and the run throws
    /// with its command and output: a hung child fails its test by name
    /// instead of holding the whole suite until CI's own limit.
    public static func run(_ argv: [String], environment: [String: String]? = nil, stdin text: String = "", seconds: Int = 600) async throws -> Result
    {
        let (process, folder) = try start(argv, environment: environment, stdin: text)
        defer { try? FileManager.default.removeItem(at: folder) }
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let waiter = Thread { continuation.resume(returning: process.waitForExitBlocking()) }
            waiter.name = "test-process-wait"
            waiter.start()
            process.killAfter(seconds: seconds)
        }
        if process.killedByDeadline {
            throw TestSupportError(
                "\(argv.joined(separator: " ")) did not exit within \(seconds) s and was killed; stdout:\n\(process.stdout)\nstderr:\n\(process.stderr)"
            )
        }
        return Result(status: status, stdout: process.stdout, stderr: process.stderr)
    }

    /// ``run(_:environment:stdin:)`` for the few places that cannot wait
    /// asynchronously (a `static let` that checks once whether a tool works).
    public static func runBlocking(_ argv: [String], environment: [String: String]? = nil, stdin text: String = "") throws -> Result {
        let (process, folder) = try start(argv, environment: environment, stdin: text)
        defer { try? FileManager.default.removeItem(at: folder) }
        let status = process.waitForExitBlocking()
        return Result(status: status, stdout: process.stdout, stderr: process.stderr)
    }

    private static func start(_ argv: [String], environment: [String: String]?, stdin text: String) throws -> (TestProcess, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-run-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let input = folder.appendingPathComponent("stdin").path
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: input))
            let process = try TestProcess(argv, environment: environment ?? ProcessInfo.processInfo.environment, stdin: input, directory: folder)
            return (process, folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// The exit status once it has exited, else `nil`; never blocks.
    public func poll() -> Int32? {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            stateLock.withLock { reaped = true }
            exitStatus = Self.decode(status)
            return exitStatus
        }
    }

    /// Waits until `condition` holds for the process, polling; throws with
    /// its output after `seconds`.
    public func waitUntil(_ what: String, seconds: Int = 120, _ condition: (TestProcess) async -> Bool) async throws {
        do {
            try await eventually(what, seconds: seconds) { await condition(self) }
        } catch {
            throw TestSupportError("\(error); stdout:\n\(stdout)\nstderr:\n\(stderr)")
        }
    }

    /// Waits until standard output holds a whole line, and returns the first one.
    public func firstLine(seconds: Int = 60) async throws -> String {
        try await waitUntil("a line of output", seconds: seconds) { $0.stdout.contains("\n") || $0.poll() != nil }
        guard let line = stdout.split(separator: "\n", omittingEmptySubsequences: false).first, stdout.contains("\n") else {
            throw TestSupportError("the process ended without printing a line; stderr:\n\(stderr)")
        }
        return String(line)
    }

    /// Waits for the exit and returns its status.
    public func waitForExit(seconds: Int = 120) async throws -> Int32 {
        try await waitUntil("the exit", seconds: seconds) { $0.poll() != nil }
        return poll() ?? -1
    }

    /// Sends `signal` (SIGTERM by default) unless it has exited, then reaps it.
    ///
    /// A program still running 60 s after a gentler signal is a failure of
    /// the test that stops it (a daemon must end on SIGTERM: systemd and the
    /// user's Ctrl-C rely on it); it is then killed, so a `defer { stop() }`
    /// never waits for ever.
    public func stop(signal: Int32 = SIGTERM) {
        guard poll() == nil else { return }
        kill(pid, signal)
        if signal != SIGKILL {
            let deadline = ContinuousClock.now + .seconds(60)
            while poll() == nil, ContinuousClock.now < deadline { usleep(10_000) }
            if poll() == nil {
                let command = argv.joined(separator: " ")
                Issue.record("\(command) was still running 60 s after signal \(signal) and was killed; stderr:\n\(stderr.suffix(4000))")
                kill(pid, SIGKILL)
            }
        }
        _ = waitForExitBlocking()
    }

    /// Guards `reaped` and `deadlineKill`; never held across a wait.
    private let stateLock = NSLock()
    private var reaped = false
    private var deadlineKill = false

    /// Whether ``run(_:environment:stdin:seconds:)`` killed the program at its deadline.
    fileprivate var killedByDeadline: Bool { stateLock.withLock { deadlineKill } }

    /// Kills the program with SIGKILL after `seconds` unless it has been reaped by then.
    fileprivate func killAfter(seconds: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { [weak self] in
            guard let self else { return }
            stateLock.withLock {
                guard !reaped else { return }
                deadlineKill = true
                kill(pid, SIGKILL)
            }
        }
    }

    private func waitForExitBlocking() -> Int32 {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            stateLock.withLock { reaped = true }
            exitStatus = Self.decode(status)
            return exitStatus ?? -1
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    private static func spawn(_ argv: [String], environment: [String: String], stdin: String, stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of the test process: a pipe another test has open must not stay open in a server started here.
        _ = cwake_spawn_add_closefrom(&actions, 3)
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
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for item in arguments { free(item) }
            for item in variables { free(item) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, argv[0], &actions, &attributes, arguments, variables)
        guard code == 0 else { throw TestSupportError("cannot start \(argv[0]): \(String(cString: strerror(code)))") }
        return pid
    }
}

/// Programs installed on the machine, and why a test skips without one.
public enum SystemTools {
    /// The system Python, not a pyenv shim on `PATH` that lacks Debian's modules.
    public static let python = "/usr/bin/python3"

    /// The path of `name` in /usr/bin, /bin or /usr/local/bin.
    public static func path(_ name: String) -> String? {
        for directory in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
            return directory + "/" + name
        }
        return nil
    }

    /// Whether the system Python can import all of `modules`.
    public static func pythonHas(_ modules: String...) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let imports = modules.map { "import " + $0 }.joined(separator: "; ")
        return (try? TestProcess.runBlocking([python, "-c", imports]).status) == 0
    }

    /// dbus-daemon, gdbus and python3-dbus with python3-gi: enough for
    /// ``PrivateBus`` and ``NotificationServer``.
    public static let canRunNotificationServer: Bool =
        path("dbus-daemon") != nil && path("gdbus") != nil
        && pythonHas("dbus", "dbus.service", "dbus.mainloop.glib", "gi.repository.GLib")

    public static let notificationServerMissing =
        "needs dbus-daemon, gdbus (apt: dbus, libglib2.0-bin) and /usr/bin/python3 with python3-dbus and python3-gi"

    /// dunst with its default configuration and Xvfb, on top of the above.
    public static var canRunDunst: Bool {
        canRunNotificationServer && ["dunst", "dunstctl", "Xvfb"].allSatisfy { path($0) != nil }
            && FileManager.default.fileExists(atPath: "/etc/xdg/dunst/dunstrc")
    }

    public static let dunstMissing = "needs dunst with /etc/xdg/dunst/dunstrc and Xvfb (apt: dunst, xvfb), besides dbus-daemon"
}
