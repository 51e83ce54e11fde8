import Foundation
import TestSupport
import Testing

/// The one consent model through the real binary, the real helper and a
/// loopback ntfy server (``PushChannelTests/PushServer``), on a machine
/// without a desktop session (the tests' environment has no session bus):
/// a channel the person adds delivers without onboarding, a desktop that is
/// not there is not a failure, `notifications disable` stops everything,
/// and `settings`, `status` and `channels` show one list.
@Suite(.timeLimit(.minutes(10)))
struct ChannelConsentTests {
    typealias PushServer = PushChannelTests.PushServer

    static func ntfy(_ cli: CLIProcess, _ server: PushServer, name: String = "phone") async throws -> CLIProcess.Output {
        try await cli.run("channels", "add", "ntfy", "\(server.server)/\(PushChannelTests.topic)", "--name", name)
    }

    static func channel(_ cli: CLIProcess, _ name: String) async throws -> [String: Any]? {
        try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).first { $0["name"] as? String == name }
    }

    /// Issue 31: on a fresh database, `channels add ntfy URL` and nothing else
    /// (no onboarding, permission `notDetermined`) delivers every reminder.
    @Test func aChannelAddedWithoutOnboardingDelivers() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: false)
        defer { cli.cleanUp() }
        let server = try await PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { server.stop() }

        let added = try await Self.ntfy(cli, server)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("it delivers every reminder from now on (1 reminder pending)"), "\(added.stdout)")
        #expect(try await cli.run("pending").stdout.contains("Ada Lovelace"), "planned at once")
        let status = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        #expect(status["permission"] as? String == "notDetermined")
        #expect(status["channels"] as? [String] == ["phone"])
        let desktop = try #require(try await Self.channel(cli, "desktop"))
        #expect(desktop["state"] as? String == "off", "the desktop was never allowed")
        #expect(try await Self.channel(cli, "phone")?["state"] as? String == "ok")

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("Delivered 1 (0 late), 0 to retry, 0 failed"), "\(pass.stdout)")
        #expect(try await cli.ledgerStates() == ["delivered"])
        #expect(server.requests.count == 1)
        #expect((server.requests.first?["body"] as? String)?.contains("Ada Lovelace") == true)
    }

    /// Issue 31: no desktop session, the permission given, the desktop and an
    /// ntfy channel on. The reminder is delivered (exit 0), the desktop is
    /// not retried for the rest of the day nor counted as failed after
    /// midnight, and `status` says once where the reminder went instead.
    @Test func aDesktopThatIsNotThereIsNotAFailure() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: true)
        defer { cli.cleanUp() }
        let server = try await PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { server.stop() }
        #expect(try await Self.ntfy(cli, server).status == 0)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("Delivered 1 (0 late), 0 to retry, 0 failed"), "\(pass.stdout)")
        #expect(try await cli.ledgerStates() == ["delivered"])
        let later = try await cli.run(at: "2026-03-10T09:20:00+01:00", "deliver", "--once")
        #expect(later.status == 0)
        #expect(later.stdout.contains("Delivered 0 (0 late), 0 to retry, 0 failed"), "the desktop is not retried: \(later.stdout)")
        #expect(server.requests.count == 1, "delivered once")
        let midnight = try await cli.run(at: "2026-03-11T00:00:05+01:00", "deliver", "--once")
        #expect(midnight.stdout.contains("0 failed"), "\(midnight.stdout)")
        #expect(try await cli.ledgerStates() == ["delivered"])

        #expect(try await Self.channel(cli, "desktop")?["state"] as? String == "unavailable")
        let text = try await cli.run(at: "2026-03-10T10:00:00+01:00", "status").stdout
        #expect(text.contains("Desktop: could not be reached at") && text.contains("reminders went through phone instead."), "\(text)")
        #expect(text.occurrences(of: "could not be reached") == 1, "said once: \(text)")
        #expect(text.contains("1 delivered, 0 failed"), "\(text)")
        let json = try CLIProcess.object(try await cli.run(at: "2026-03-10T10:00:00+01:00", "status", "--json").stdout)
        let desktop = try #require(json["desktop_unavailable"] as? [String: Any])
        #expect(desktop["delivered_instead"] as? [String] == ["phone"])
        #expect((json["problems"] as? [Any])?.isEmpty == true)
    }

    /// When the desktop is the only channel, the reminder waits for a session
    /// (retried, exit 1), and `status` says so.
    @Test func aDesktopAloneWaitsForASessionAndStatusSaysSo() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: true)
        defer { cli.cleanUp() }
        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 1)
        #expect(pass.stdout.contains("Delivered 0 (0 late), 1 to retry"), "\(pass.stdout)")
        #expect(try await cli.ledgerStates() == ["retrying"])
        let text = try await cli.run(at: "2026-03-10T09:01:00+01:00", "status").stdout
        #expect(text.contains("reminders wait for a desktop session until the end of their day"), "\(text)")
        let json = try CLIProcess.object(try await cli.run(at: "2026-03-10T09:01:00+01:00", "status", "--json").stdout)
        #expect((json["desktop_unavailable"] as? [String: Any])?["delivered_instead"] as? [String] == [])
    }

    /// `notifications disable` is the one switch that stops everything, and
    /// `channels add` while it is off says so; no channel then shows `ok`.
    @Test func notificationsDisableStopsEveryChannelAndAddSaysSo() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: false)
        defer { cli.cleanUp() }
        let server = try await PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { server.stop() }
        #expect(try await cli.run("notifications", "disable").status == 0)
        let added = try await Self.ntfy(cli, server)
        #expect(added.status == 0)
        #expect(added.stdout.contains("but notifications are off, so nothing is delivered until: birthdays notifications enable"), "\(added.stdout)")
        let phone = try #require(try await Self.channel(cli, "phone"))
        #expect(phone["state"] as? String == "off")
        #expect((phone["enabled"] as? Bool) == false)
        #expect(try CLIProcess.array(try await cli.run("pending", "--json").stdout).isEmpty, "nothing is planned")
        let status = try await cli.run("status").stdout
        #expect(status.contains("Nothing is delivered: notifications are off."), "\(status)")
        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(server.requests.isEmpty)
    }

    /// `settings show`, `status` and `channels` show one list, and `settings
    /// set channels` turns built-in and added channels on and off alike.
    @Test func oneListOfChannelsEverywhere() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: true)
        defer { cli.cleanUp() }
        let server = try await PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { server.stop() }
        #expect(try await Self.ntfy(cli, server).status == 0)

        let shown = try await cli.run("settings", "show").stdout
        #expect(CLIProcess.shownSetting("channels", in: shown) == "desktop,phone")
        #expect(try CLIProcess.object(try await cli.run("status", "--json").stdout)["channels"] as? [String] == ["desktop", "phone"])

        let typo = try await cli.run("settings", "set", "channels", "desktop,phoen")
        #expect(typo.status == 64)
        #expect(
            typo.stderr.contains("'phoen' is not a channel (did you mean phone?); the channels are desktop, command, log, phone"),
            "\(typo.stderr)"
        )
        #expect(typo.stderr.hasPrefix("Error: 'phoen' is not a channel"), "the error comes first: \(typo.stderr)")

        let set = try await cli.run("settings", "set", "channels", "log")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(CLIProcess.shownSetting("channels", in: try await cli.run("settings", "show").stdout) == "log")
        #expect(try await Self.channel(cli, "phone")?["state"] as? String == "off")
        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.stdout.contains("reminder delivered"), "the log delivers: \(pass.stdout)")
        #expect(server.requests.isEmpty, "a channel turned off delivers nothing")

        #expect(try await cli.run("settings", "set", "channels", "phone,desktop").status == 0)
        #expect(CLIProcess.shownSetting("channels", in: try await cli.run("settings", "show").stdout) == "desktop,phone")
        #expect(try await cli.run("settings", "reset", "channels").status == 0)
        #expect(try CLIProcess.object(try await cli.run("status", "--json").stdout)["channels"] as? [String] == ["desktop", "phone"])
    }
}
