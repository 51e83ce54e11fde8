import BirthdayKit
import Foundation
import Testing

/// What the desktop end-to-end tests need: a private dbus-daemon and
/// fake-notifyd (python3-dbus) from ../shared/tools/fake-notifyd.
enum DesktopTools {
    static let fakeNotifyd = CLIProcess.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/tools/fake-notifyd")

    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
              FileManager.default.fileExists(atPath: fakeNotifyd.appendingPathComponent("fake_notifyd.py").path),
              let probe = try? Spawn.run("/usr/bin/python3", ["-c", "import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib"])
        else { return false }
        return probe.status == 0
    }()

    static let missing: Comment = "needs /usr/bin/dbus-daemon (apt: dbus), /usr/bin/python3 with python3-dbus and python3-gi, and ../shared/tools/fake-notifyd"
}

/// `birthdays run` with channels=desktop against fake-notifyd on a private bus.
@Suite(.enabled(if: DesktopTools.available, DesktopTools.missing))
struct DesktopDaemonTests {
    let cli: CLIProcess

    init() throws {
        cli = try .withAda(settings: [("channels", "desktop")], enableNotifications: true)
    }

    /// Starts the bus, the server (clicking `autoAction` when set) and the daemon at 08:59:57.
    func start(autoAction: String?) async throws -> (bus: BackgroundProcess, server: BackgroundProcess, daemon: BackgroundProcess, log: String) {
        let bus = try BackgroundProcess(
            "/usr/bin/dbus-daemon", ["--config-file=" + DesktopTools.fakeNotifyd.appendingPathComponent("bus.conf").path, "--nofork", "--print-address=1"],
            environment: ["PATH": "/usr/bin:/bin"], directory: cli.directory, name: "bus"
        )
        try await bus.waitUntil("the bus address") { $0.stdout.contains("\n") }
        let address = bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let log = cli.directory.appendingPathComponent("notify.jsonl").path
        var serverEnvironment = ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": address, "NOTIFY_LOG": log]
        if let autoAction { serverEnvironment["AUTO_ACTION"] = autoAction }
        let server = try BackgroundProcess(
            "/usr/bin/python3", [DesktopTools.fakeNotifyd.appendingPathComponent("fake_notifyd.py").path],
            environment: serverEnvironment, directory: cli.directory, name: "server"
        )
        try await server.waitUntil("fake-notifyd") { $0.stdout.contains("ready") }
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00", extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": address])
        return (bus, server, daemon, log)
    }

    func calls(_ log: String) throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func oneNotificationArrivesAndStaysOne() async throws {
        defer { cli.cleanUp() }
        let (bus, server, daemon, log) = try await start(autoAction: nil)
        defer { withExtendedLifetime((bus, server)) {} }
        try await daemon.waitUntil("the notification") { _ in ((try? calls(log)) ?? []).count >= 1 }
        try await daemon.waitUntil("the pass after the delivery") { $0.stderr.contains("delivered=1") && $0.stderr.occurrences(of: "next pass") >= 2 }
        let passes = daemon.stderr.occurrences(of: "delivery pass")
        daemon.signal(SIGHUP)
        try await daemon.waitUntil("the pass after SIGHUP") { $0.stderr.occurrences(of: "delivery pass") > passes }
        let recorded = try calls(log)
        #expect(recorded.count == 1)
        #expect(recorded.first?["app_name"] as? String == "Birthdays")
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test func snoozeButtonQueuesTheSnoozeInTheLedger() async throws {
        defer { cli.cleanUp() }
        let (bus, server, daemon, _) = try await start(autoAction: "snooze")
        defer { withExtendedLifetime((bus, server)) {} }
        try await daemon.waitUntil("the snooze") { _ in
            ((try? cli.database().deliveries(updatedSince: .distantPast)) ?? []).contains { $0.notificationID == "ada-birthday-dayof-snooze" }
        }
        let snooze = try #require(try cli.database().deliveries(updatedSince: .distantPast).first { $0.notificationID == "ada-birthday-dayof-snooze" })
        #expect(snooze.state == .queued)
        #expect(snooze.fireAt.timeIntervalSince(try #require(ReferenceTime.parse("2026-03-10T09:00:00+01:00", timeZone: .gmt))) >= 15 * 60)
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test func openButtonReplacesTheNotificationWithThePersonsDetails() async throws {
        defer { cli.cleanUp() }
        let (bus, server, daemon, log) = try await start(autoAction: "default")
        defer { withExtendedLifetime((bus, server)) {} }
        try await daemon.waitUntil("the details") { _ in ((try? calls(log)) ?? []).count >= 2 }
        let details = try calls(log)[1]
        #expect(details["summary"] as? String == "Ada Lovelace")
        #expect((details["body"] as? String)?.contains("Birthday: 1990-03-10; next 2026-03-10 (today), turns 36") == true)
        #expect(!daemon.stderr.contains("Ada"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }
}
