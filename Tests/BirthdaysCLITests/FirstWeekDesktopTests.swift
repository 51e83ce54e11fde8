import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

/// The week after onboarding, with the project's notification server on a
/// private bus: a provisional permission ends by itself when a server
/// appears, `notifications test` tries each channel and records nothing, and
/// onboarding ends with the service installed and a test notification shown.
@Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)))
struct FirstWeekDesktopTests {
    /// The recorded Notify calls of `server`.
    func calls(_ server: NotificationServer) -> [[String: any Sendable]] {
        (try? server.calls()) ?? []
    }

    // MARK: - Provisional ends by itself

    /// Onboarded where no notification server answered, so provisional; the
    /// daemon starts on a bus without one; the server appears later, and the
    /// next pass (a SIGHUP here, or any delivery) finds it: authorized,
    /// logged, and the reminder goes to the desktop.
    @Test func theDaemonAuthorizesWhenANotificationServerAppears() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "desktop")], enableNotifications: false)
        defer { cli.cleanUp() }
        let onboarded = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--no-service")
        #expect(onboarded.stdout.contains("Notifications are on, quietly"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"provisional\"}\n")

        let bus = try await PrivateBus()
        defer { bus.stop() }
        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00", extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try await daemon.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        #expect(daemon.stderr.contains("status=provisional"))
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"provisional\"}\n", "no server yet")

        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = try await NotificationServer(bus: bus, directory: directory)
        defer { server.stop() }
        daemon.signal(SIGHUP)
        try await daemon.waitUntil("the permission to move") { $0.stderr.contains("moved from provisional to authorized") }
        await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"authorized\"}\n")
        #expect(!daemon.stderr.contains("Ada"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)

        // The reminder now goes to the desktop, not the log.
        var onBus = cli
        onBus.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let pass = try await onBus.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(!pass.stdout.contains("reminder delivered id="), "no log line: the log channel is not configured")
        #expect(calls(server).map { $0["summary"] as? String } == ["Ada Lovelace's Birthday!"])
    }

    // MARK: - notifications test

    @Test func notificationsTestTriesEachChannelAndRecordsNothing() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "desktop,command,log")], enableNotifications: true)
        defer { cli.cleanUp() }
        try await withNotificationServer { bus, server in
            var onBus = cli
            onBus.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            let pendingBefore = try await cli.run("pending", "--json").stdout

            let test = try await onBus.run("notifications", "test")
            #expect(test.status == 1, "the command channel has no command")
            #expect(
                test.stdout == """
                    reminder delivered id=test kind=birthday when=day-of fire_at=2026-03-10T08:00:00+01:00 late=0
                    desktop: OK
                    command: FAIL: no command is set; set one with: birthdays settings set command '…'
                    log: OK

                    """
            )
            #expect(test.stderr == "warning: the 'command' channel is on, but no command is set; set one with: birthdays settings set command '…'\n")
            let shown = try #require(try server.calls().first)
            #expect(shown["summary"] as? String == "Birthdays test")
            #expect(shown["body"] as? String == "This is how your birthday reminders will look.")

            // Only the channel asked for, in the user's language; nothing recorded.
            var german = onBus
            german.extraEnvironment["LANG"] = "de_DE.UTF-8"
            let desktopOnly = try await german.run("notifications", "test", "--channel", "desktop")
            #expect(desktopOnly.status == 0)
            #expect(desktopOnly.stdout == "desktop: OK\n")
            #expect(try server.calls().last?["summary"] as? String == "Birthdays-Test")
            #expect(try await cli.deliveries().isEmpty)
            await #expect(try cli.run("pending", "--json").stdout == pendingBefore)
        }
    }

    // MARK: - Onboarding ends with reminders running

    /// On a terminal with a desktop and a systemd user manager (a stand-in
    /// `systemctl` that records its arguments: test machines have none
    /// running): allow, install the service, get the test notification.
    @Test(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed"))
    func onboardingInstallsTheServiceAndSendsATestNotification() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let systemctl = try FakeSystemctl(in: cli)
        try await withNotificationServer { bus, server in
            cli.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
            let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts"])
            try await terminal.waitFor("Press Enter to continue.")
            try await terminal.type("")
            try await terminal.waitFor("[M]aybe later")
            try await terminal.type("e")
            try await terminal.waitFor("[D]on't allow")
            try await terminal.type("a")
            try await terminal.waitFor("[E]-mail   [N]tfy   [S]kip")
            try await terminal.type("s")
            let offer = try await terminal.waitFor("[I]nstall and start it   [N]ot now")
            #expect(offer.contains("Notifications are on."))
            #expect(offer.contains("Keep Reminders Coming"))
            try await terminal.type("i")
            let done = try await terminal.waitFor("[exit 0]")
            #expect(done.contains("Installed \(cli.path(".config/systemd/user/birthdays.service"))"))
            #expect(done.contains("birthdays run now runs as a systemd user service"))
            #expect(done.contains("desktop: OK"))
            #expect(done.contains("You're all set."))

            #expect(try systemctl.calls() == ["--user show-environment", "--user daemon-reload", "--user enable --now birthdays.service"])
            let unit = try String(contentsOfFile: cli.path(".config/systemd/user/birthdays.service"), encoding: .utf8)
            let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
            #expect(unit.contains("\nExecStart=\(binary) run --database \(cli.databasePath)\n"), "\(unit)")
            #expect(unit.contains("\nReadWritePaths=-\(cli.directory.path)\n"))
            #expect(try server.calls().map { $0["summary"] as? String } == ["Birthdays test"])
            await #expect(try cli.run("notifications", "status", "--json").stdout == "{\"status\":\"authorized\"}\n")

            // status points at the installed service while the daemon is not running.
            let status = try await cli.run("status")
            #expect(
                status.stdout.hasPrefix(
                    "Daemon: not running; reminders are delivered only while it runs, so start it with: systemctl --user start birthdays"
                )
            )
        }
    }
}

/// A `systemctl` that records its arguments, one call per line, and succeeds.
struct FakeSystemctl {
    let folder: String
    let log: String

    init(in cli: CLIProcess) throws {
        folder = cli.path("fake-bin")
        log = cli.path("systemctl.calls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = "#!/bin/sh\necho \"$*\" >> '\(log)'\nexit 0\n"
        try script.write(toFile: folder + "/systemctl", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/systemctl")
    }

    func calls() throws -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
