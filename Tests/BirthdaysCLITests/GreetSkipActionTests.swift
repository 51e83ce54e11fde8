import BirthdayCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The desktop's "Skip greeting" (issue 44), through the real binary: the
/// day-before reminder of a friend whose greeting goes tomorrow, and the
/// reminder of their day while the greeting has not gone yet, shown by
/// `birthdays run` on the project's notification server, have the button;
/// clicking it does what `greet skip` does, and the greeting is then not
/// sent (the real msmtp into a real SMTP server would have carried it).
@Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)), .timeLimit(.minutes(10)))
struct GreetSkipActionTests {
    /// Ana (Asia/Tokyo) is reminded as her days begin in Tokyo: the day before
    /// at 09:00 on 8 March here (Europe/Berlin), her day at 16:00 on the 9th
    /// (00:00 on the 10th in Tokyo), nine hours before her greeting goes at
    /// 09:00 her time (01:00 on the 10th here).
    @Test(arguments: [("day-before", "2026-03-08T08:59:57+01:00"), ("day-of", "2026-03-09T15:59:57+01:00")])
    func skipGreetingOnHerReminderSkipsThisYearsGreeting(_ when: String, _ start: String) async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await GreetDeliveryTests.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }
        try await cli.set("channels", "desktop")

        let bus = try await PrivateBus()
        defer { bus.stop() }
        let notifications = try await NotificationServer(
            bus: bus,
            directory: TemporaryDirectory(path: cli.directory.path),
            autoAction: "skip-greeting"
        )
        defer { notifications.stop() }
        let daemon = try cli.daemon(now: start, extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try await daemon.waitUntil("the skip") { $0.stderr.contains("greeting skipped") }
        let shown = try #require(try notifications.calls().first)
        if when == "day-before" {
            #expect((shown["body"] as? String)?.contains("A greeting goes to Ana Lima tomorrow at 09:00 their time") == true, "\(shown)")
        } else {
            #expect((shown["body"] as? String)?.hasPrefix("Ana Lima turns 36 today in Tokyo") == true, "\(shown)")
        }
        let actions = try #require(shown["actions"] as? [String])
        #expect(actions.suffix(2) == ["skip-greeting", "Skip greeting"], "\(actions)")
        // The pass after the click plans next year's greeting.
        try await daemon.waitUntil("the pass after the skip") { _ in
            let pending = (try? await cli.json(["pending"]) as? [[String: Any]]) ?? []
            return pending.contains { $0["kind"] as? String == "greeting" && $0["fire_at"] as? String == "2027-03-10T01:00:00+01:00" }
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        for secret in ["Ana", "Lima", "ana@example.org"] { #expect(!daemon.stderr.contains(secret), "\(secret) in the log") }

        let listed = try CLIProcess.array(try await cli.run(at: "2026-03-09T16:05:00+01:00", "greet", "list", "--json").stdout)
        let ana = listed.first { $0["person"] as? String == "ana" }.flatMap { ($0["people"] as? [[String: Any]])?.first }
        #expect(ana?["skipped_year"] as? Int == 2026, "\(listed)")

        // Her 09:00 comes: nothing goes to her, nothing is in the ledger.
        let pass = try await GreetDeliveryTests.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try await GreetDeliveryTests.greetingRows(cli).isEmpty)
        #expect(try await GreetDeliveryTests.messages(to: "ana@example.org", in: server).isEmpty)
    }
}
