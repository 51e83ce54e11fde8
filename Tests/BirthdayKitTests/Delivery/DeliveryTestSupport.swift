import Foundation
import Testing
@testable import BirthdayKit

#if canImport(Glibc)
import Glibc
#endif

/// External programs the delivery tests drive, and why a test is skipped
/// when one is missing.
enum Tools {
    static let python = "/usr/bin/python3"
    static let fakeNotifyd = SharedTestData.root.deletingLastPathComponent().appendingPathComponent("shared/tools/fake-notifyd")

    static func path(_ name: String) -> String? {
        for directory in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
            return directory + "/" + name
        }
        return nil
    }

    /// python3-dbus and python3-gi under the system python (not pyenv's).
    static let hasPythonDBus: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    static var canRunFakeServer: Bool {
        path("dbus-daemon") != nil && path("gdbus") != nil && hasPythonDBus
            && FileManager.default.fileExists(atPath: fakeNotifyd.appendingPathComponent("fake_notifyd.py").path)
    }

    static let fakeServerMissing: Comment =
        "needs dbus-daemon, gdbus (apt: dbus, libglib2.0-bin), /usr/bin/python3 with python3-dbus and python3-gi, and ../shared/tools/fake-notifyd"

    static var canRunDunst: Bool {
        canRunFakeServer && ["dunst", "dunstctl", "Xvfb"].allSatisfy { path($0) != nil }
            && FileManager.default.fileExists(atPath: "/etc/xdg/dunst/dunstrc")
    }

    static let dunstMissing: Comment = "needs dunst with /etc/xdg/dunst/dunstrc, Xvfb (apt: dunst, xvfb) and the fake-notifyd bus config"
}

/// A child process a test started; `stop()` ends it (SIGTERM, then reaps it).
///
/// Started with posix_spawn and an empty signal mask: Foundation's `Process`
/// passes on the mask of the thread that starts it, and test threads block
/// SIGTERM, so a child started that way ignores `stop()`.
final class TestProcess: @unchecked Sendable {
    let pid: pid_t
    private let output: FileHandle?
    private var buffer = Data()
    private var reaped = false

    /// Starts `argv` with `environment` added to ours; stdout is readable with
    /// ``readLine()`` when `captureOutput`, stderr is discarded.
    init(_ argv: [String], environment: [String: String] = [:], captureOutput: Bool = true) throws {
        var fds: [Int32] = [-1, -1]
        if captureOutput { try #require(pipe(&fds) == 0) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = merged.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, arguments, variables)
        if captureOutput { close(fds[1]) }
        guard status == 0 else {
            if captureOutput { close(fds[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
        }
        self.pid = pid
        output = captureOutput ? FileHandle(fileDescriptor: fds[0], closeOnDealloc: true) : nil
    }

    /// The next line of stdout, or `nil` at end of file. Blocks (on a thread
    /// of its own), which is the synchronisation: the child prints when ready.
    func readLine() async -> String? {
        guard let handle = output else { return nil }
        return await withCheckedContinuation { continuation in
            Thread {
                while true {
                    if let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: self.buffer[..<newline], as: UTF8.self)
                        self.buffer.removeSubrange(...newline)
                        continuation.resume(returning: line)
                        return
                    }
                    let chunk = handle.availableData
                    if chunk.isEmpty {
                        continuation.resume(returning: nil)
                        return
                    }
                    self.buffer.append(chunk)
                }
            }.start()
        }
    }

    func stop() {
        guard !reaped else { return }
        reaped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    deinit { stop() }
}

/// Runs a short command to completion and returns its exit status and stdout.
@discardableResult
func runTool(_ argv: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: argv[0])
    process.arguments = Array(argv.dropFirst())
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    return (status, String(decoding: data, as: UTF8.self))
}

/// A private session bus (`dbus-daemon --nofork` with fake-notifyd's bus.conf).
final class PrivateBus: Sendable {
    let daemon: TestProcess
    let address: String

    init() async throws {
        let config = Tools.fakeNotifyd.appendingPathComponent("bus.conf").path
        daemon = try TestProcess([Tools.path("dbus-daemon") ?? "dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"])
        // dbus-daemon prints its address once it is listening.
        address = try #require(await daemon.readLine(), "dbus-daemon printed no address")
    }

    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    func stop() { daemon.stop() }
}

/// fake_notifyd.py on a bus, recording Notify calls in a JSON-lines file.
final class FakeNotificationServer: Sendable {
    let process: TestProcess
    let logPath: String

    init(bus: PrivateBus, directory: TemporaryDirectory, autoAction: String? = nil) async throws {
        logPath = directory.file("notify.jsonl")
        var environment = bus.environment
        environment["NOTIFY_LOG"] = logPath
        if let autoAction { environment["AUTO_ACTION"] = autoAction }
        process = try TestProcess([Tools.python, Tools.fakeNotifyd.appendingPathComponent("fake_notifyd.py").path], environment: environment)
        let line = await process.readLine()
        try #require(line == "ready", "fake_notifyd.py did not start")
    }

    /// The recorded calls, oldest first.
    func calls() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func stop() { process.stop() }
}

/// Collects the first `count` elements of a stream.
func first<Element: Sendable>(_ count: Int, of stream: AsyncStream<Element>) async -> [Element] {
    var collected: [Element] = []
    for await element in stream {
        collected.append(element)
        if collected.count == count { break }
    }
    return collected
}

/// A reminder with the given id and text, due 2026-03-10 09:00 in Berlin.
func sampleReminder(
    id: String = "r-1",
    personID: String = "p-1",
    title: String = "Ada's birthday",
    body: String = "Ada turns 37 today",
    when: Reminder.When = .dayOf,
    late: Bool = false,
    zone: String = "Europe/Berlin"
) -> Reminder {
    let timeZone = TimeZone(identifier: zone)!
    let fireAt = ReferenceTime.parse("2026-03-10T09:00", timeZone: timeZone)!
    return Reminder(
        id: id, personID: personID, kind: .birthday, when: when, fireAt: fireAt, timeZone: timeZone,
        title: title, body: body, late: late, occurrenceDate: when == .dayOf ? date(2026, 3, 10) : date(2026, 3, 11)
    )
}

/// The namespace of the delivery tests, so `swift test --filter Delivery` runs them all.
enum DeliveryTests {}
