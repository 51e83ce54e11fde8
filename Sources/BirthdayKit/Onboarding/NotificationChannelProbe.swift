import Foundation

/// Whether a reminder could be delivered right now.
public struct ChannelProbeResult: Sendable, Equatable {
    public var reachable: Bool
    /// One line for the user: which channel answered, or why none did.
    public var detail: String

    public init(reachable: Bool, detail: String) {
        self.reachable = reachable
        self.detail = detail
    }
}

/// Finds out whether a notification channel is reachable, for the
/// permission request (the "system prompt" step of onboarding).
public protocol NotificationChannelProbe: Sendable {
    func probe() async -> ChannelProbeResult
}

/// Probes the desktop notification server on the D-Bus session bus
/// (`org.freedesktop.Notifications`, its `GetServerInformation` method) with
/// `gdbus`, falling back to `dbus-send`; any other configured channel (an
/// ntfy topic, an email address, once the `channels` setting exists) counts
/// as reachable without a probe.
///
/// The call times out after ``timeout`` seconds; a missing session bus
/// (no `DBUS_SESSION_BUS_ADDRESS`, as over SSH or in CI) fails at once.
public struct DBusNotificationChannelProbe: NotificationChannelProbe {
    /// Seconds to wait for the server's answer.
    public static let timeout = 2

    private let environment: [String: String]
    private let configuredChannels: [String]

    /// - Parameters:
    ///   - environment: the process environment (for `DBUS_SESSION_BUS_ADDRESS`, `PATH`).
    ///   - configuredChannels: names of other configured delivery channels.
    public init(environment: [String: String], configuredChannels: [String] = []) {
        self.environment = environment
        self.configuredChannels = configuredChannels
    }

    public func probe() async -> ChannelProbeResult {
        if let channel = configuredChannels.first {
            return ChannelProbeResult(reachable: true, detail: "channel '\(channel)' is configured")
        }
        let gdbus = [
            "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
            "--method", "org.freedesktop.Notifications.GetServerInformation", "--timeout", String(Self.timeout),
        ]
        let dbusSend = [
            "--session", "--print-reply", "--reply-timeout=\(Self.timeout * 1000)", "--dest=org.freedesktop.Notifications",
            "/org/freedesktop/Notifications", "org.freedesktop.Notifications.GetServerInformation",
        ]
        for (tool, arguments) in [("gdbus", gdbus), ("dbus-send", dbusSend)] {
            guard let path = executable(tool) else { continue }
            let (status, output) = run(path, arguments)
            if status == 0 {
                let server = serverName(output).map { " (\($0))" } ?? ""
                return ChannelProbeResult(reachable: true, detail: "desktop notification server reachable on the session bus\(server)")
            }
            let reason = output.split(whereSeparator: \.isNewline).first.map(String.init) ?? "exit status \(status)"
            return ChannelProbeResult(reachable: false, detail: "no desktop notification server on the session bus: \(reason)")
        }
        return ChannelProbeResult(reachable: false, detail: "neither gdbus nor dbus-send is installed, so the session bus cannot be probed")
    }

    /// The first quoted string of a `GetServerInformation` reply: the server's name.
    private func serverName(_ output: String) -> String? {
        guard let open = output.firstIndex(where: { $0 == "'" || $0 == "\"" }) else { return nil }
        let rest = output[output.index(after: open)...]
        guard let close = rest.firstIndex(where: { $0 == "'" || $0 == "\"" }) else { return nil }
        let name = String(rest[..<close])
        return name.isEmpty ? nil : name
    }

    private func executable(_ name: String) -> String? {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = String(directory) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a tool, returning its exit status and combined output; killed after `timeout + 1` seconds.
    private func run(_ path: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (127, "cannot run \(path)")
        }
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.timeout + 1), execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
