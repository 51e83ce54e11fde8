import Foundation

/// A private D-Bus session bus for one test: `dbus-daemon` with the
/// project's own configuration (`NotificationServer/session-bus.conf`),
/// which never starts a service by itself. Stopped when released.
public final class PrivateBus: Sendable {
    public let daemon: TestProcess
    /// The address to put in `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String

    public init() async throws {
        guard let dbus = SystemTools.path("dbus-daemon") else { throw TestSupportError("dbus-daemon is not installed (apt: dbus)") }
        daemon = try TestProcess(
            [dbus, "--config-file=" + NotificationServer.directory.appendingPathComponent("session-bus.conf").path, "--nofork", "--print-address=1"],
            environment: ["PATH": "/usr/bin:/bin"],
            name: "dbus-daemon"
        )
        // dbus-daemon prints its address once it is listening.
        address = try await daemon.firstLine()
    }

    /// The bus address and a plain `PATH`, for the programs a test runs on the bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"] }

    public func stop() { daemon.stop() }
}

/// The project's notification server (`NotificationServer/notifyd.py`) on a
/// private bus: records every `Notify` call as a JSON line, and with an
/// `autoAction` clicks that button on each notification that offers it
/// (200 ms after its `Notify`, or before replying to it with `beforeReply`).
public final class NotificationServer: Sendable {
    /// The folder of the server and its bus configuration, copied next to the tests.
    public static var directory: URL {
        Bundle.module.url(forResource: "NotificationServer", withExtension: nil)
            ?? Repository.root.appendingPathComponent("Tests/TestSupport/NotificationServer")
    }

    public let process: TestProcess
    /// The JSON-lines file of the `Notify` calls.
    public let logPath: String

    /// Starts the server on `bus` and waits until it owns its name.
    public init(bus: PrivateBus, directory: TemporaryDirectory, autoAction: String? = nil, beforeReply: Bool = false) async throws {
        logPath = directory.file("notify.jsonl")
        var environment = bus.environment
        environment["NOTIFY_LOG"] = logPath
        if let autoAction { environment["AUTO_ACTION"] = autoAction }
        if beforeReply { environment["AUTO_ACTION_BEFORE_REPLY"] = "1" }
        process = try TestProcess(
            [SystemTools.python, Self.directory.appendingPathComponent("notifyd.py").path],
            environment: environment,
            directory: directory.url,
            name: "notifyd"
        )
        try await process.waitUntil("the notification server") { $0.stdout.contains("ready") || $0.poll() != nil }
        guard process.poll() == nil else { throw TestSupportError("notifyd.py stopped: \(process.stderr)") }
    }

    /// The recorded `Notify` calls, oldest first.
    public func calls() throws -> [[String: any Sendable]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: any Sendable] else {
                throw TestSupportError("not a JSON object: \(line)")
            }
            return object
        }
    }

    public func stop() { process.stop() }
}

/// Runs `body` with a private bus and the notification server on it
/// (clicking `autoAction` when given); stops both and removes the server's
/// folder afterwards.
public func withNotificationServer<T>(
    autoAction: String? = nil,
    _ body: (PrivateBus, NotificationServer) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let bus = try await PrivateBus()
    defer { bus.stop() }
    let server = try await NotificationServer(bus: bus, directory: directory, autoAction: autoAction)
    defer { server.stop() }
    return try await body(bus, server)
}
