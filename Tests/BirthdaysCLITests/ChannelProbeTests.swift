import Foundation
import TestSupport
import Testing

/// The real channel probe (in-process D-Bus) against the project's
/// notification server on a private session bus.
@Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)), .timeLimit(.minutes(10)))
struct ChannelProbeTests {
    /// Runs `birthdays arguments…` with a private bus on which the notification server runs.
    func runWithServer(_ cli: CLIProcess, _ arguments: String...) async throws -> CLIProcess.Output {
        try await withNotificationServer { bus, _ in
            var cli = cli
            cli.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            return try await cli.run(arguments)
        }
    }

    @Test func onboardingWithAReachableServerAuthorizes() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let result = try await runWithServer(cli, "onboard", "--no-contacts", "--enable-notifications")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Notifications are on.\n"))
        #expect(!result.stdout.contains("Note: no desktop notification server"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"authorized\"}\n")
    }

    @Test func enableWithAReachableServerDoesNotWarn() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await runWithServer(cli, "notifications", "enable", "--json")
        #expect(result.status == 0)
        #expect(result.stdout == "{\"status\":\"authorized\",\"scheduled\":0}\n")
        #expect(!result.stderr.contains("warning:"))
    }
}
