import Foundation
import Testing

/// The real channel probe against a fake `org.freedesktop.Notifications`
/// server on a private session bus (shared/tools/fake-notifyd; directory from
/// `FAKE_NOTIFYD_DIR`, else /work/shared/tools/fake-notifyd).
enum FakeNotificationServer {
    static let toolDirectory = ProcessInfo.processInfo.environment["FAKE_NOTIFYD_DIR"] ?? "/work/shared/tools/fake-notifyd"

    static var available: Bool {
        let files = ["/usr/bin/dbus-run-session", "/usr/bin/gdbus", "/usr/bin/python3", toolDirectory + "/fake_notifyd.py", toolDirectory + "/bus.conf"]
        guard files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else { return false }
        return (try? Spawn.run("/usr/bin/python3", ["-c", "import dbus, gi"]).status) == 0
    }
}

@Suite(.enabled(if: FakeNotificationServer.available, "dbus-run-session, python3-dbus or the fake-notifyd tool is missing"))
struct ChannelProbeTests {
    static let toolDirectory = FakeNotificationServer.toolDirectory

    /// Runs `birthdays arguments…` on a private bus where the fake server is running.
    func runWithServer(_ cli: CLIProcess, _ arguments: [String]) throws -> Spawn.Result {
        let quoted = ([try CLIProcess.binary()] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        let script = "/usr/bin/python3 \(Self.toolDirectory)/fake_notifyd.py >/dev/null 2>&1 & server=$!; "
            + "gdbus wait --session --timeout 10 org.freedesktop.Notifications && \(quoted); status=$?; kill $server; exit $status"
        var environment = cli.environment
        environment["NOTIFY_LOG"] = cli.directory.appendingPathComponent("notify.jsonl").path
        return try Spawn.run("/usr/bin/dbus-run-session", ["--config-file=\(Self.toolDirectory)/bus.conf", "--", "/bin/sh", "-c", script], environment: environment)
    }

    @Test func onboardingWithAReachableServerAuthorizes() throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Seed.twoPeople(cli)
        let result = try runWithServer(cli, ["onboard", "--no-contacts", "--enable-notifications"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Notifications are on.\n"))
        #expect(!result.stdout.contains("Note: no desktop notification server"))
        #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"authorized\"}\n")
    }

    @Test func enableWithAReachableServerDoesNotWarn() throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try runWithServer(cli, ["notifications", "enable", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"status\":\"authorized\",\"scheduled\":0}\n")
        #expect(!result.stderr.contains("warning:"))
    }
}
