import BirthdayCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Reaching the person from the reminder, through the real binary: `show`
/// and `--json` list the card's ways, and `birthdays run` offers "Write to
/// …" on the desktop notification when the desktop has a handler for the
/// scheme (this test's own, registered with `xdg-mime default`), which the
/// notification server's click opens with `xdg-open`.
@Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)))
struct ContactActionTests {
    static let card = """
        BEGIN:VCARD\r
        VERSION:4.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        NICKNAME:Addie\r
        BDAY:1990-03-10\r
        TEL;VALUE=uri;TYPE=cell:tel:+44-20-7946-0000\r
        EMAIL:ada@example.org\r
        IMPP:xmpp:ada@example.org\r
        END:VCARD\r

        """

    let cli: CLIProcess

    init() async throws {
        var cli = try CLIProcess()
        // The desktop's folders are the test's own: no handler of the machine counts.
        for folder in ["xdg-data/applications", "xdg-config", "xdg-dirs"] {
            try FileManager.default.createDirectory(atPath: cli.path(folder), withIntermediateDirectories: true)
        }
        cli.extraEnvironment = [
            "XDG_DATA_HOME": cli.path("xdg-data"), "XDG_CONFIG_HOME": cli.path("xdg-config"),
            "XDG_DATA_DIRS": cli.path("xdg-dirs"), "XDG_CONFIG_DIRS": cli.path("xdg-dirs"), "WAYLAND_DISPLAY": "birthdays-test",
        ]
        let imported = try await cli.run("import", try cli.write("ada.vcf", Self.card))
        try #require(imported.status == 0, "\(imported.stderr)")
        for (key, value) in [("day-before", "off"), ("channels", "desktop"), ("names", "nickname")] { try await cli.set(key, value) }
        try await cli.enableNotifications()
        self.cli = cli
    }

    /// A mail program of the test's own: a desktop file whose command writes its argument to `opened.txt`.
    func registerMailHandler() async throws {
        let handler = try cli.write("handler.sh", "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(cli.path("opened.txt"))'\n")
        chmod(handler, 0o755)
        _ = try cli.write(
            "xdg-data/applications/birthdays-test-mail.desktop",
            "[Desktop Entry]\nType=Application\nName=Test mail\nExec=\(handler) %u\nMimeType=x-scheme-handler/mailto;\nNoDisplay=true\n"
        )
        let registered = try await TestProcess.run(
            ["/usr/bin/xdg-mime", "default", "birthdays-test-mail.desktop", "x-scheme-handler/mailto"],
            environment: cli.environment
        )
        try #require(registered.status == 0, "\(registered.stderr)")
    }

    func start(autoAction: String?) async throws -> (bus: PrivateBus, server: NotificationServer, daemon: TestProcess) {
        let bus = try await PrivateBus()
        let server = try await NotificationServer(bus: bus, directory: TemporaryDirectory(path: cli.directory.path), autoAction: autoAction)
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00", extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        return (bus, server, daemon)
    }

    @Test func showListsTheWaysAndJSONHasTheirURIs() async throws {
        defer { cli.cleanUp() }
        let shown = try await cli.run("show", "ada")
        #expect(shown.status == 0)
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.suffix(3) == ["Write: ada@example.org", "Message: xmpp:ada@example.org", "Call: +44-20-7946-0000"])
        let json = try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)
        let contact = try #require(json["contact"] as? [[String: String]])
        #expect(
            contact == [
                ["kind": "email", "value": "ada@example.org", "uri": "mailto:ada@example.org"],
                ["kind": "impp", "value": "xmpp:ada@example.org", "uri": "xmpp:ada@example.org"],
                ["kind": "phone", "value": "+44-20-7946-0000", "uri": "tel:+442079460000"],
            ]
        )
        let people = try CLIProcess.array(try await cli.run("people", "--json").stdout)
        #expect((people.first?["contact"] as? [[String: String]])?.count == 3)
        #expect(try await cli.run("settings", "show").stdout.contains("contact-links"))
    }

    @Test func theWriteButtonOpensTheMailtoWithItsSubjectInTheHandler() async throws {
        defer { cli.cleanUp() }
        try await registerMailHandler()
        let (bus, server, daemon) = try await start(autoAction: "contact")
        defer {
            server.stop()
            bus.stop()
        }
        let opened = cli.path("opened.txt")
        try await daemon.waitUntil("the handler's file") { _ in FileManager.default.fileExists(atPath: opened) }
        #expect(try String(contentsOfFile: opened, encoding: .utf8) == "mailto:ada@example.org?subject=Happy%20birthday%21\n")
        let first = try #require(try server.calls().first)
        let actions = try #require(first["actions"] as? [String])
        #expect(actions == ["default", "Open", "contact", "Write to Addie", "snooze", "Snooze 15 min", "dismiss", "Dismiss"])
        try await daemon.waitUntil("the log line") { $0.stderr.contains("reminder contact link opened") }
        // No contact detail and no name in the daemon's log.
        for secret in ["ada@example.org", "7946", "xmpp:", "mailto", "Addie", "Lovelace"] {
            #expect(!daemon.stderr.contains(secret), "\(secret)")
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test func noButtonWithoutAHandler() async throws {
        defer { cli.cleanUp() }
        let (bus, server, daemon) = try await start(autoAction: nil)
        defer {
            server.stop()
            bus.stop()
        }
        try await daemon.waitUntil("the notification") { _ in ((try? server.calls()) ?? []).count >= 1 }
        let actions = try #require(try server.calls().first?["actions"] as? [String])
        #expect(actions == ["default", "Open", "snooze", "Snooze 15 min", "dismiss", "Dismiss"])
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }
}
