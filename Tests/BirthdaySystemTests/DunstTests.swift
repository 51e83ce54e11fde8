import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem
@testable import BirthdayText

extension DeliveryTests {
    /// The desktop channel against a real notification server: dunst on a
    /// private bus and a private X server (Xvfb), driven with dunstctl.
    ///
    /// dunst sends ActionInvoked and NotificationClosed only to the connection
    /// that called Notify, so these tests also prove the channel listens on its
    /// own connection. Actions other than the default one go through dunst's
    /// context menu, which runs the `dmenu` program from its config; the test
    /// configures a tiny script that picks the "snooze" line instead of a menu.
    @Suite(.enabled(if: SystemTools.canRunDunst, Comment(rawValue: SystemTools.dunstMissing)), .timeLimit(.minutes(10)))
    struct DunstTests {
        static let shippedConfig = "/etc/xdg/dunst/dunstrc"
        /// Xvfb + dunst on a private bus, stopped in reverse order.
        final class Session: Sendable {
            let bus: PrivateBus
            let xvfb: TestProcess
            let dunst: TestProcess

            /// - Parameters:
            ///   - pick: the action key the context menu's picker chooses.
            ///   - timeout: the seconds dunst shows a notification of any urgency
            ///     before it expires it (reported as ``NotificationAction/CloseReason/expired``);
            ///     0, the default here, keeps it until it is acted on. Debian's 10 s
            ///     would race the clicks: each step is a `dunstctl` process, and with
            ///     the whole suite running, 9.4 s have passed between a `Notify` and its click.
            init(directory: TemporaryDirectory, pick: String = "snooze", timeout: Int = 0) async throws {
                bus = try await PrivateBus()
                // -displayfd: Xvfb picks a free display and prints its number when it accepts clients.
                xvfb = try TestProcess(
                    [SystemTools.path("Xvfb") ?? "Xvfb", "-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                    environment: ["PATH": "/usr/bin:/bin"],
                    directory: directory.url,
                    name: "xvfb"
                )
                let display = try await xvfb.firstLine()
                let picker = try directory.write("pick-\(pick).sh", "#!/bin/sh\ngrep -m1 ',\(pick)\\]'\n")
                chmod(picker, 0o755)
                // Debian's shipped configuration, with the menu program replaced by the picker
                // and every urgency's timeout by `timeout`.
                let shipped = try String(contentsOfFile: DunstTests.shippedConfig, encoding: .utf8)
                let lines = shipped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    let setting = line.trimmingCharacters(in: .whitespaces)
                    if setting.hasPrefix("dmenu =") { return "    dmenu = \(picker)" }
                    if setting.hasPrefix("timeout =") { return "    timeout = \(timeout)" }
                    return String(line)
                }
                let config = try directory.write("dunstrc", lines.joined(separator: "\n"))
                dunst = try TestProcess(
                    [SystemTools.path("dunst") ?? "dunst", "-config", config],
                    environment: bus.environment.merging(["DISPLAY": ":" + display, "HOME": directory.path]) { $1 },
                    directory: directory.url,
                    name: "dunst"
                )
                // Real readiness: gdbus blocks until dunst owns the name (or 10 s pass).
                let wait = try await TestProcess.run(
                    [SystemTools.path("gdbus") ?? "gdbus", "wait", "--session", "--timeout", "120", "org.freedesktop.Notifications"],
                    environment: bus.environment
                )
                try #require(wait.status == 0, "dunst did not take org.freedesktop.Notifications")
            }

            func dunstctl(_ arguments: String...) async throws -> String {
                let result = try await TestProcess.run([SystemTools.path("dunstctl") ?? "dunstctl"] + arguments, environment: bus.environment)
                try #require(result.status == 0, "dunstctl \(arguments.joined(separator: " ")) failed")
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            /// Polls `dunstctl count displayed` until it is `count`, for at most 60 s:
            /// dunst answers Notify before it draws the notification. (With the
            /// whole suite running, one `dunstctl` has taken seconds.)
            func waitUntilDisplayed(_ count: Int) async throws {
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    if try await dunstctl("count", "displayed") == String(count) { return }
                    try await Task.sleep(for: .milliseconds(20))
                }
                Issue.record("dunst never displayed \(count) notification(s)")
            }

            func stop() {
                dunst.stop()
                xvfb.stop()
                bus.stop()
            }
        }

        @Test func dunstShowsTheReminderAndReportsDefaultActionSnoozeAndClose() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory)
            defer { session.stop() }
            let channel = DesktopNotificationChannel(bus: .address(session.bus.address))
            var events = channel.actions.makeAsyncIterator()

            // Each event is required: after a wrong one, the next would never come.
            // Clicking: `dunstctl action 0` runs the default action.
            try await channel.deliver(sampleReminder(id: "r-open", personID: "p-open", title: "Grace's birthday"))
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("action", "0")
            let opened = try #require(await events.next())
            try #require(opened.event == .invoked(.open))
            let closedAfterOpen = try #require(await events.next())
            #expect(closedAfterOpen.reminderID == "r-open")
            try #require(closedAfterOpen.event == .closed(.closedByCall))

            // The context menu: the configured picker chooses "Snooze 15 min".
            try await channel.deliver(sampleReminder(id: "r-snooze", personID: "p-snooze", title: "Alan's birthday"))
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("context")
            let snoozed = try #require(await events.next())
            #expect(snoozed.reminderID == "r-snooze")
            try #require(snoozed.event == .invoked(.snooze))
            try #require(await events.next()?.event == .closed(.closedByCall))

            // Closing it: reported as dismissed by the user, and kept in dunst's history.
            try await channel.deliver(sampleReminder(id: "r-close", personID: "p-close", title: "Ada's birthday", body: "Ada turns 37 today"))
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("close")
            let closed = try #require(await events.next())
            #expect(closed.reminderID == "r-close")
            #expect(closed.event == .closed(.dismissedByUser))
            let history = try await session.dunstctl("history")
            #expect(history.contains("\"Ada's birthday\""))
            #expect(history.contains("\"Birthdays\""))
        }

        /// A notification nobody acts on goes when dunst's timeout says so, and
        /// the channel reports it: expired, not nothing.
        /// A reminder asks never to expire: shown beside one under the server's
        /// default (1 s here), it is still on screen once the other has expired.
        @Test func aReminderStaysOnDunstUntilActedOn() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory, timeout: 1)
            defer { session.stop() }
            let reminders = DesktopNotificationChannel(bus: .address(session.bus.address))
            let passing = DesktopNotificationChannel(bus: .address(session.bus.address), expiry: .serverDefault)
            try await reminders.deliver(sampleReminder(id: "r-stays", personID: "p-stays", title: "Grace's birthday"))
            try await passing.deliver(sampleReminder(id: "r-goes", personID: "p-goes", title: "Alan's birthday"))
            let gone = await first(1, of: passing.actions, within: .seconds(60))
            #expect(gone.map(\.event) == [.closed(.expired)])
            try await session.waitUntilDisplayed(1)
            #expect(try await session.dunstctl("count", "displayed") == "1")
        }

        @Test func dunstReportsANotificationThatExpired() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory, timeout: 1)
            defer { session.stop() }
            let channel = DesktopNotificationChannel(bus: .address(session.bus.address), expiry: .serverDefault)

            try await channel.deliver(sampleReminder(id: "r-unseen", personID: "p-unseen", title: "Grace's birthday"))
            let events = await first(1, of: channel.actions, within: .seconds(60))

            #expect(events.map(\.reminderID) == ["r-unseen"])
            #expect(events.map(\.event) == [.closed(.expired)])
        }

        /// The contact button on the real dunst: offered because the test's own
        /// mail handler is registered with `xdg-mime default`, chosen in the
        /// context menu, reported with its link, and opened by that handler.
        @Test func dunstOffersTheWriteButtonAndItsLinkReachesTheHandler() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory, pick: "contact")
            defer { session.stop() }
            for folder in ["data/applications", "config", "dirs"] {
                try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
            }
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_DATA_HOME": directory.file("data"), "XDG_CONFIG_HOME": directory.file("config"),
                "XDG_DATA_DIRS": directory.file("dirs"), "XDG_CONFIG_DIRS": directory.file("dirs"), "WAYLAND_DISPLAY": "birthdays-test",
            ]
            let handlers = SchemeHandlers(environment: environment)
            var reminder = sampleReminder(id: "r-write", personID: "p-write", title: "Ada's birthday")
            reminder.contactLinks = ContactLink.links(
                for: [ContactPoint(kind: .email, value: "ada@example.org")],
                name: "Ada",
                event: .birthday,
                in: .english
            )
            #expect(await handlers.hasHandler(for: "mailto") == false, "no handler yet")

            let handler = try directory.write("mail.sh", "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(directory.file("opened.txt"))'\n")
            chmod(handler, 0o755)
            _ = try directory.write(
                "data/applications/test-mail.desktop",
                "[Desktop Entry]\nType=Application\nName=Test mail\nExec=\(handler) %u\nMimeType=x-scheme-handler/mailto;\n"
            )
            let registered = try await TestProcess.run(
                ["/usr/bin/xdg-mime", "default", "test-mail.desktop", "x-scheme-handler/mailto"],
                environment: environment
            )
            try #require(registered.status == 0, "\(registered.stderr)")

            let channel = DesktopNotificationChannel(bus: .address(session.bus.address))
            var events = channel.actions.makeAsyncIterator()
            // A new pass asks again: the handler registered since is found.
            try await channel.deliver(reminder, handlers: SchemeHandlers(environment: environment))
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("context")
            let invoked = await events.next()
            #expect(invoked?.event == .invoked(.contact))
            let link = try #require(invoked?.link)
            #expect(link == "mailto:ada@example.org?subject=Happy%20birthday%21")
            try SchemeHandlers.open(link, environment: environment)
            let opened = directory.file("opened.txt")
            try await eventually("the handler's file") { FileManager.default.fileExists(atPath: opened) }
            #expect(try String(contentsOfFile: opened, encoding: .utf8) == link + "\n")
        }

        /// "Skip greeting" on the real dunst: offered on the reminder of a
        /// friend whose greeting has not gone yet, chosen in the context menu,
        /// and reported with the greeting's day.
        @Test func dunstOffersSkipGreetingAndReportsItsDay() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory, pick: "skip-greeting")
            defer { session.stop() }
            let channel = DesktopNotificationChannel(bus: .address(session.bus.address))
            var events = channel.actions.makeAsyncIterator()
            let day = try #require(LocalDate(year: 2026, month: 3, day: 10))
            var reminder = sampleReminder(id: "r-ana", personID: "ana", title: "Ana's birthday is tomorrow")
            reminder.skippableGreeting = day

            try await channel.deliver(reminder)
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("context")
            let skipped = try #require(await events.next())
            #expect(skipped.reminderID == "r-ana")
            #expect(skipped.personID == "ana")
            try #require(skipped.event == .invoked(.skipGreeting))
            #expect(skipped.greetingDay == day)
            #expect(await events.next()?.event == .closed(.closedByCall))
        }

        /// A digest on the real dunst: shown with its title and its lines, and no buttons in its menu.
        @Test func dunstShowsADigestWithItsLines() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory)
            defer { session.stop() }
            let channel = DesktopNotificationChannel(bus: .address(session.bus.address))
            var digest = sampleReminder(
                id: "digest-weekly",
                personID: "",
                title: "Birthdays in the week ahead: Ada, Zoë",
                body: "Tue 10 Mar (today): Ada, birthday, turns 36\nThu 12 Mar: Zoë, birthday, turns 37"
            )
            digest.digest = .weekly
            try await channel.deliver(digest)
            try await session.waitUntilDisplayed(1)
            _ = try await session.dunstctl("close")
            let history = try await session.dunstctl("history")
            #expect(history.contains("\"Birthdays in the week ahead: Ada, Zoë\""), "\(history)")
            #expect(history.contains("Tue 10 Mar (today): Ada, birthday, turns 36\\nThu 12 Mar: Zoë, birthday, turns 37"), "\(history)")
        }

        @Test func probeSeesDunst() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let session = try await Session(directory: directory)
            defer { session.stop() }

            let info = try await DesktopNotificationChannel.probe(bus: .address(session.bus.address)).get()

            #expect(info.name == "dunst")
            #expect(info.capabilities.contains("actions"))
        }
    }
}
