import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem
@testable import BirthdayText

extension DeliveryTests {
    /// The desktop channel against fake_notifyd.py on a private bus: the exact
    /// Notify arguments, the action round trip, and the failures a user can meet.
    @Suite(.enabled(if: SystemTools.canRunNotificationServer, Comment(rawValue: SystemTools.notificationServerMissing)), .timeLimit(.minutes(10)))
    struct DesktopNotificationChannelTests {
        // MARK: - Notify arguments

        @Test func notifySendsAppNameTextActionsAndUrgency() async throws {
            try await withNotificationServer { bus, server in
                let channel = DesktopNotificationChannel(bus: .address(bus.address))

                // The server advertises body-markup, so the body is escaped.
                try await channel.deliver(sampleReminder(title: "Tom & Jerry's birthday", body: "Tom & Jerry turn <b>40</b> today"))

                let calls = try server.calls()
                try #require(calls.count == 1)
                let call = calls[0]
                #expect(call["app_name"] as? String == "Birthdays")
                #expect(call["replaces_id"] as? Int == 0)
                #expect(call["app_icon"] as? String == "")
                #expect(call["summary"] as? String == "Tom & Jerry's birthday")
                #expect(call["body"] as? String == "Tom &amp; Jerry turn &lt;b&gt;40&lt;/b&gt; today")
                #expect(call["actions"] as? [String] == ["default", "Open", "snooze", "Snooze 15 min", "dismiss", "Dismiss"])
                let hints = try #require(call["hints"] as? [String: Any])
                #expect(hints["urgency"] as? Int == 1)
                #expect(hints["sound-name"] == nil, "fake-notifyd does not list the sound capability")
                #expect(hints.count == 1)
                #expect(call["expire_timeout"] as? Int == 0, "a reminder stays until the person acts on it")
            }
        }

        @Test func deliveringTheSameReminderAgainReplacesIt() async throws {
            try await withNotificationServer { bus, server in
                let channel = DesktopNotificationChannel(bus: .address(bus.address))

                try await channel.deliver(sampleReminder(id: "r-1"))
                try await channel.deliver(sampleReminder(id: "r-2", personID: "p-2"))
                try await channel.deliver(sampleReminder(id: "r-1", late: true))

                let calls = try server.calls()
                #expect(calls.map { $0["replaces_id"] as? Int } == [0, 0, 1])
                #expect(calls.map { $0["id"] as? Int } == [1, 2, 1])
            }
        }

        // MARK: - Actions

        /// (The contact button needs a link and a handler: DunstTests and the CLI's ContactActionTests click it;
        /// the skip-greeting button a greeting not sent yet: ``aGreetingNotSentYetHasASkipButtonThatReportsItsDay()``.)
        @Test(arguments: NotificationAction.Key.allCases.filter { $0 != .contact && $0 != .skipGreeting })
        func anInvokedActionArrivesOnTheStreamThenTheClose(_ key: NotificationAction.Key) async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let server = try await NotificationServer(bus: bus, directory: directory, autoAction: key.rawValue)
            defer { server.stop() }
            let channel = DesktopNotificationChannel(bus: .address(bus.address))

            try await channel.deliver(sampleReminder(id: "r-7", personID: "p-7"))
            let events = await first(2, of: channel.actions)

            #expect(
                events == [
                    NotificationAction(reminderID: "r-7", personID: "p-7", notificationID: 1, event: .invoked(key)),
                    NotificationAction(reminderID: "r-7", personID: "p-7", notificationID: 1, event: .closed(.dismissedByUser)),
                ]
            )
        }

        /// A reminder of a friend whose greeting has not gone yet has a "Skip
        /// greeting" button last; clicked, it comes back with the greeting's
        /// day. A reminder without one (the same person's other reminder) has no such button.
        @Test func aGreetingNotSentYetHasASkipButtonThatReportsItsDay() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let server = try await NotificationServer(bus: bus, directory: directory, autoAction: "skip-greeting")
            defer { server.stop() }
            let channel = DesktopNotificationChannel(bus: .address(bus.address))
            let day = try #require(LocalDate(year: 2026, month: 3, day: 10))
            var reminder = sampleReminder(id: "r-ana", personID: "ana")
            reminder.skippableGreeting = day

            try await channel.deliver(sampleReminder(id: "r-plain", personID: "ana"))
            try await channel.deliver(reminder)
            let events = await first(2, of: channel.actions)

            let calls = try server.calls()
            #expect(calls.map { $0["actions"] as? [String] ?? [] }.map { $0.contains("skip-greeting") } == [false, true])
            #expect(
                calls.last?["actions"] as? [String] == [
                    "default", "Open", "snooze", "Snooze 15 min", "dismiss", "Dismiss", "skip-greeting", "Skip greeting",
                ]
            )
            #expect(
                events == [
                    NotificationAction(reminderID: "r-ana", personID: "ana", notificationID: 2, event: .invoked(.skipGreeting), greetingDay: day),
                    NotificationAction(reminderID: "r-ana", personID: "ana", notificationID: 2, event: .closed(.dismissedByUser)),
                ]
            )
        }

        /// A server may send a notification's signals before its reply to
        /// `Notify` (a fast server and a quick click): libdbus reads them while
        /// the channel does not know the id yet. All 200 such clicks, each
        /// followed by its close, still reach the stream, from deliveries 25
        /// at once: the connection's thread records each reply before it
        /// dispatches what it read meanwhile.
        ///
        /// Each batch's events are read before the next batch goes out: the
        /// stream keeps the newest 256 events its reader has not taken, and
        /// with the whole suite running, the reader has been kept waiting
        /// while more than that came.
        @Test func clicksSentBeforeTheReplyToNotifyAreAllReported() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let server = try await NotificationServer(bus: bus, directory: directory, autoAction: "snooze", beforeReply: true)
            defer { server.stop() }
            let channel = DesktopNotificationChannel(bus: .address(bus.address))
            let (count, batch) = (200, 25)

            var events: [NotificationAction] = []
            for start in stride(from: 0, to: count, by: batch) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in start..<start + batch {
                        group.addTask { try await channel.deliver(sampleReminder(id: "r-\(index)", personID: "p-\(index)")) }
                    }
                    try await group.waitForAll()
                }
                // Every signal came before its reply: the batch's are all read, if not yet dispatched.
                events += await first(2 * batch, of: channel.actions, within: .seconds(30))
            }

            #expect(try server.calls().count == count)
            #expect(events.count == 2 * count)
            let byReminder = Dictionary(grouping: events, by: \.reminderID)
            let wrong = (0..<count).map { "r-\($0)" }.filter { byReminder[$0]?.map(\.event) != [.invoked(.snooze), .closed(.dismissedByUser)] }
            #expect(wrong.count == 0, "no click and close, in that order, for these (and more): \(wrong.prefix(5))")
        }

        @Test func signalsAboutOtherClientsNotificationsAreIgnored() async throws {
            try await withNotificationServer(autoAction: "snooze") { bus, server in
                let channel = DesktopNotificationChannel(bus: .address(bus.address))

                // Given a signal for id 99, which this channel never showed,
                _ = try await TestProcess.run(
                    [
                        "/usr/bin/gdbus", "emit", "--session", "--object-path", "/org/freedesktop/Notifications",
                        "--signal", "org.freedesktop.Notifications.ActionInvoked", "99", "snooze",
                    ],
                    environment: bus.environment
                )
                // when the channel then shows one and the server answers it,
                try await channel.deliver(sampleReminder(id: "r-8"))
                let events = await first(1, of: channel.actions)

                // the first event is about our notification, not id 99.
                #expect(events.map(\.reminderID) == ["r-8"])
            }
        }

        // MARK: - Probe and failures

        @Test func probeReportsTheServer() async throws {
            try await withNotificationServer { bus, server in

                let info = try await DesktopNotificationChannel.probe(bus: .address(bus.address)).get()

                #expect(info.name == "birthdays-test-notifyd")
                #expect(info.specVersion == "1.2")
                #expect(info.capabilities == ["actions", "body", "body-markup", "persistence"])
            }
        }

        @Test func aBusWithoutANotificationServerIsACleanError() async throws {
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let channel = DesktopNotificationChannel(bus: .address(bus.address))

            await #expect(throws: DeliveryError.noNotificationServer) { try await channel.deliver(sampleReminder()) }
            #expect(await DesktopNotificationChannel.probe(bus: .address(bus.address)) == .failure(.noNotificationServer))
        }

        @Test func noBusIsACleanError() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let address = DBusBusAddress.address("unix:path=" + directory.file("no-such-bus"))
            let channel = DesktopNotificationChannel(bus: address)

            let error = await #expect(throws: DeliveryError.self) { try await channel.deliver(sampleReminder()) }
            guard case .noSessionBus = error else {
                Issue.record("expected noSessionBus, got \(String(describing: error))")
                return
            }
            // In words, not the D-Bus library's message.
            #expect(error?.description.hasPrefix("this is not a desktop session") == true)
            #expect(error?.description.contains("no-such-bus") == false)
        }

        @Test func aServerThatComesBackIsUsedAgain() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let channel = DesktopNotificationChannel(bus: .address(bus.address))

            // No server yet: a clean failure the daemon will retry.
            await #expect(throws: DeliveryError.noNotificationServer) { try await channel.deliver(sampleReminder()) }
            // The server starts; the retry goes through on the same channel.
            let server = try await NotificationServer(bus: bus, directory: directory)
            defer { server.stop() }
            try await channel.deliver(sampleReminder())
            #expect(try server.calls().count == 1)
        }

        @Test func aLostBusIsACleanErrorAndTheNextDeliveryConnectsAgain() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            let server = try await NotificationServer(bus: bus, directory: directory)
            let channel = DesktopNotificationChannel(bus: .address(bus.address))
            try await channel.deliver(sampleReminder())

            server.stop()
            bus.stop()

            // The bus is gone: each delivery fails with a clean error (never
            // libdbus's exit-on-disconnect), and once the connection is seen
            // lost it is dropped, so the next delivery tries a new one and
            // finds no bus. Which error comes first depends on when the
            // connection's thread sees the hang-up: lost at once, or, on a
            // machine too busy to read it within the 5 s call timeout, a
            // timeout first (the connection still looked alive).
            var errors: [DeliveryError] = []
            for _ in 0..<3 {
                guard let error = await #expect(throws: DeliveryError.self, performing: { try await channel.deliver(sampleReminder()) }) else {
                    break
                }
                errors.append(error)
                if case .noSessionBus = error { break }
            }
            let last = try #require(errors.last)
            guard case .noSessionBus = last else {
                Issue.record("expected noSessionBus within three deliveries, got \(errors)")
                return
            }
            let before = errors.dropLast()
            #expect(before.count <= 2, "\(errors)")
            #expect(before.allSatisfy { $0 == .busDisconnected || $0 == .notificationServerTimedOut }, "\(errors)")
            #expect(!before.dropLast().contains(.busDisconnected), "a lost connection is dropped at once: \(errors)")
        }
    }
}

extension DeliveryTests {
    @Suite struct DesktopNotificationArgumentTests {
        @Test func soundIsRequestedOnlyFromServersThatCanPlayIt() {
            let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"))
            let reminder = sampleReminder()
            let plain = channel.notifyArguments(for: reminder, replacing: 0, capabilities: ["actions"])
            let sound = channel.notifyArguments(for: reminder, replacing: 0, capabilities: ["actions", "sound"])
            #expect(plain[6] == .vardict([("urgency", .byte(1))]))
            #expect(sound[6] == .vardict([("urgency", .byte(1)), ("sound-name", .string("message-new-instant"))]))
            #expect(sound.map(\.signature).joined() == "susssasa{sv}i")
        }

        /// The buttons in the user's language; the action keys stay the same.
        @Test func buttonLabelsFollowTheLanguage() {
            let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"), labels: .init(Localizer(language: "de")))
            let arguments = channel.notifyArguments(for: sampleReminder(), replacing: 0, capabilities: ["actions"])
            #expect(arguments[5] == .strings(["default", "Öffnen", "snooze", "In 15 Min. erinnern", "dismiss", "Verwerfen"]))
            #expect(DesktopNotificationChannel.Labels(.english) == DesktopNotificationChannel.Labels())
        }

        /// A digest is about no one person: no buttons, and its lines stay lines.
        @Test func aDigestHasNoButtonsAndKeepsItsLines() {
            let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"))
            var digest = sampleReminder(body: "Tue 10 Mar (today): Ada, birthday\nThu 12 Mar: Zoë, birthday")
            digest.digest = .weekly
            let arguments = channel.notifyArguments(for: digest, replacing: 0, capabilities: ["actions", "body"])
            #expect(arguments[5] == .strings([]))
            #expect(arguments[4] == .string("Tue 10 Mar (today): Ada, birthday\nThu 12 Mar: Zoë, birthday"))
            #expect(channel.notifyArguments(for: sampleReminder(), replacing: 0, capabilities: ["actions"])[5] != .strings([]))
        }

        @Test func serversWithoutActionsGetNone() {
            let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"))
            let arguments = channel.notifyArguments(for: sampleReminder(body: "a & b"), replacing: 3, capabilities: ["body"])
            #expect(arguments[1] == .uint32(3))
            #expect(arguments[4] == .string("a & b"), "no body-markup capability: sent as written")
            #expect(arguments[5] == .strings([]))
        }
    }
}
