import BirthdayCore
import Foundation
import TestSupport
import Testing

/// `birthdays run` with channels=desktop against the project's notification
/// server on a private bus.
@Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)))
struct DesktopDaemonTests {
    let cli: CLIProcess

    init() async throws {
        cli = try await .withAda(settings: [("channels", "desktop")], enableNotifications: true)
    }

    /// Starts the bus, the server (clicking `autoAction` when set) and the daemon at 08:59:57.
    func start(autoAction: String?) async throws -> (bus: PrivateBus, server: NotificationServer, daemon: TestProcess, log: String) {
        let bus = try await PrivateBus()
        let server = try await NotificationServer(bus: bus, directory: TemporaryDirectory(path: cli.directory.path), autoAction: autoAction)
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00", extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        return (bus, server, daemon, server.logPath)
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
        defer {
            server.stop()
            bus.stop()
        }
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
        defer {
            server.stop()
            bus.stop()
        }
        try await daemon.waitUntil("the snooze") { _ in
            ((try? await cli.deliveries()) ?? []).contains { $0.notificationID == "ada-birthday-dayof-snooze" }
        }
        let snooze = try #require(try await cli.deliveries().first { $0.notificationID == "ada-birthday-dayof-snooze" })
        #expect(snooze.state == .queued)
        #expect(snooze.fireAt.timeIntervalSince(try #require(ReferenceTime.parse("2026-03-10T09:00:00+01:00", timeZone: .gmt))) >= 15 * 60)
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test func openButtonReplacesTheNotificationWithThePersonsDetails() async throws {
        defer { cli.cleanUp() }
        let (bus, server, daemon, log) = try await start(autoAction: "default")
        defer {
            server.stop()
            bus.stop()
        }
        try await daemon.waitUntil("the details") { _ in ((try? calls(log)) ?? []).count >= 2 }
        let details = try calls(log)[1]
        #expect(details["summary"] as? String == "Ada Lovelace")
        #expect((details["body"] as? String)?.contains("Birthday: 1990-03-10; next 2026-03-10 (today), turns 36") == true)
        #expect(!daemon.stderr.contains("Ada"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }
}
