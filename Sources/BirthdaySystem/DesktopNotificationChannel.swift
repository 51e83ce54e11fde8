import BirthdayCore
import BirthdayText
import Synchronization

/// Shows reminders as freedesktop desktop notifications over D-Bus
/// (`org.freedesktop.Notifications.Notify`), and reports what the user does
/// with them through ``actions``.
///
/// Rules:
/// - One private connection to the bus, opened on the first delivery and
///   opened again after it breaks. The notification server sends
///   `ActionInvoked` and `NotificationClosed` only to the connection that
///   called `Notify` (dunst does), so this connection keeps listening for as
///   long as the channel lives.
/// - Each notification has app name "Birthdays", the reminder's title and
///   body, normal urgency (hint `urgency` = byte 1), no expiry
///   (`expire_timeout` 0: a reminder stays until the person acts on it, so
///   one shown while they were away from the screen is not gone after the
///   server's few seconds; ``Expiry``), and — when the server lists the `actions` capability — the
///   actions `default` ("Open", a click), `snooze` ("Snooze 15 min") and
///   `dismiss` ("Dismiss"), and `contact` ("Write to Ada", "Call Ada") when
///   the reminder has a contact link whose scheme the desktop has a handler
///   for (``deliver(_:handlers:)``; the first such link), and `skip-greeting`
///   ("Skip greeting") when the reminder is about a friend whose greeting
///   has not gone yet (``Reminder/skippableGreeting``: its day comes back
///   with the action). When the server lists `sound`, the hint
///   `sound-name` = `message-new-instant` asks for a sound.
/// - When the server lists `body-markup`, `&`, `<` and `>` in the body are
///   escaped, so a name like "Tom & Jerry" shows as written.
/// - Delivering a reminder id that is still on screen replaces that
///   notification (`replaces_id`) instead of stacking a second one.
/// - Actions and closes are reported only for notifications this channel
///   showed, in the order the server sent them; a close at most once.
/// - After an action the channel closes the notification (CloseNotification),
///   as libnotify does: dunst leaves it on screen otherwise, until it expires.
///   So an action is normally followed by a close with reason
///   ``NotificationAction/CloseReason/closedByCall`` (or whatever the server
///   reported first).
package final class DesktopNotificationChannel: NotificationSink {
    /// The labels shown on the action buttons.
    package struct Labels: Sendable, Hashable {
        package var open = "Open"
        package var snooze = "Snooze 15 min"
        package var dismiss = "Dismiss"
        package var skipGreeting = "Skip greeting"

        package init() {}

        /// The labels in the localizer's language.
        package init(_ localizer: Localizer) {
            open = localizer(.actionOpen)
            snooze = localizer(.actionSnooze)
            dismiss = localizer(.actionDismiss)
            skipGreeting = localizer(.actionSkipGreeting)
        }
    }

    /// Actions and closes of the notifications this channel showed. Ends
    /// when the channel is released. It keeps the newest 256 events that its
    /// reader has not taken yet and drops older ones, so it is read as events
    /// come (the daemon does), not after the fact.
    package let actions: AsyncStream<NotificationAction>

    package let bus: DBusBusAddress
    /// The labels of the buttons of the next notifications shown: the daemon
    /// sets them again when the `language` setting changes.
    package var labels: Labels {
        get { currentLabels.withLock { $0 } }
        set { currentLabels.withLock { $0 = newValue } }
    }
    private let currentLabels: Mutex<Labels>
    private let callTimeout: Duration
    private let expiry: Expiry
    private let shared: Shared

    /// How long a notification stays on screen (the `expire_timeout` of `Notify`).
    package enum Expiry: Sendable, Hashable {
        /// Until the person acts on it (0): reminders.
        case never
        /// The server's default (-1).
        case serverDefault

        var timeout: Int32 { self == .never ? 0 : -1 }
    }

    /// - Parameters:
    ///   - bus: the session bus, or an explicit address (tests).
    ///   - callTimeout: how long to wait for the server's answer. Default 5 s.
    ///   - expiry: how long a notification stays. Default ``Expiry/never``.
    package init(bus: DBusBusAddress = .session, labels: Labels = Labels(), callTimeout: Duration = .seconds(5), expiry: Expiry = .never) {
        self.bus = bus
        self.currentLabels = Mutex(labels)
        self.callTimeout = callTimeout
        self.expiry = expiry
        let (stream, continuation) = AsyncStream.makeStream(of: NotificationAction.self, bufferingPolicy: .bufferingNewest(256))
        actions = stream
        shared = Shared(continuation: continuation)
    }

    deinit { shared.shutDown() }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        try await deliver(reminder, handlers: nil)
    }

    /// Delivers `reminder`, with a button for the first of its
    /// ``Reminder/contactLinks`` that `handlers` has a handler for.
    package func deliver(_ reminder: Reminder, handlers: SchemeHandlers?) async throws(DeliveryError) {
        let client = try connection()
        let capabilities = try await self.capabilities(client)
        let contact: ContactLink? =
            if let handlers, capabilities.contains("actions"), reminder.digest == nil, !reminder.contactLinks.isEmpty {
                await handlers.firstHandled(reminder.contactLinks)
            } else {
                nil
            }
        let link = contact?.uri
        let shared = self.shared
        let replacing = shared.state.withLock { $0.serverID(for: reminder.id) } ?? 0
        let arguments = notifyArguments(for: reminder, replacing: replacing, capabilities: capabilities, contact: contact)
        do {
            _ = try await client.call(
                destination: Self.service,
                path: Self.path,
                interface: Self.service,
                method: "Notify",
                arguments: arguments,
                timeout: callTimeout,
                onReply: { reply in
                    // Runs on the connection's thread before any signal about this id.
                    guard let id = reply.first?.uint32Value else { return }
                    shared.state.withLock {
                        $0.remember(
                            serverID: id,
                            reminderID: reminder.id,
                            personID: reminder.personID,
                            link: link,
                            greetingDay: reminder.skippableGreeting
                        )
                    }
                }
            )
        } catch {
            throw shared.failed(error, client: client)
        }
    }

    /// The `Notify` arguments (`susssasa{sv}i`) for `reminder`.
    func notifyArguments(for reminder: Reminder, replacing: UInt32, capabilities: Set<String>, contact: ContactLink? = nil) -> [DBusValue] {
        // The desktop is the user's own: it shows the person's note whatever `notes-on-channels` says.
        let text = reminder.safeBody + (reminder.digest == nil ? reminder.noteLine.map { "\n" + SafeText.line($0) } ?? "" : "")
        let body = capabilities.contains("body-markup") ? Self.escapeMarkup(text) : text
        var actions: [String] = []
        // A digest is about no one person: nothing to open, snooze or dismiss.
        if capabilities.contains("actions") && reminder.digest == nil {
            let labels = self.labels
            actions = [NotificationAction.Key.open.rawValue, labels.open]
            if let contact { actions += [NotificationAction.Key.contact.rawValue, SafeText.line(contact.label)] }
            actions += [
                NotificationAction.Key.snooze.rawValue, labels.snooze,
                NotificationAction.Key.dismiss.rawValue, labels.dismiss,
            ]
            if reminder.skippableGreeting != nil { actions += [NotificationAction.Key.skipGreeting.rawValue, labels.skipGreeting] }
        }
        var hints: [(String, DBusValue)] = [("urgency", .byte(1))]
        if capabilities.contains("sound") {
            hints.append(("sound-name", .string("message-new-instant")))
        }
        return [
            .string("Birthdays"), .uint32(replacing), .string(""), .string(reminder.title), .string(body),
            .strings(actions), .vardict(hints), .int32(expiry.timeout),
        ]
    }

    /// Escapes the characters that body markup gives a meaning to.
    static func escapeMarkup(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Asks the server who it is and what it supports, on a connection of
    /// its own; onboarding uses this to say whether desktop notifications work.
    ///
    /// - Returns: the server's information, or why there is none
    ///   (``DeliveryError/noSessionBus(reason:)``, ``DeliveryError/noNotificationServer``, …).
    package static func probe(bus: DBusBusAddress = .session, timeout: Duration = .seconds(2)) async -> Result<NotificationServerInfo, DeliveryError>
    {
        let client: DBusClient
        do {
            client = try DBusClient(bus: bus)
        } catch {
            return .failure(.noSessionBus(reason: error.message))
        }
        defer { client.close() }
        do {
            let info = try await client.call(
                destination: service,
                path: path,
                interface: service,
                method: "GetServerInformation",
                timeout: timeout
            ).map { $0.stringValue ?? "" }
            let capabilities =
                try await client.call(
                    destination: service,
                    path: path,
                    interface: service,
                    method: "GetCapabilities",
                    timeout: timeout
                ).first?.stringArray ?? []
            func field(_ index: Int) -> String { index < info.count ? info[index] : "" }
            return .success(
                NotificationServerInfo(
                    name: field(0),
                    vendor: field(1),
                    version: field(2),
                    specVersion: field(3),
                    capabilities: Set(capabilities)
                )
            )
        } catch {
            return .failure(Self.deliveryError(error))
        }
    }

    // MARK: - Connection

    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let matchRule = "type='signal',interface='org.freedesktop.Notifications',path='/org/freedesktop/Notifications'"

    /// The open connection, or a new one when there is none or it broke.
    /// Opening blocks briefly (local socket, authentication) under the lock,
    /// so concurrent deliveries share one connection.
    private func connection() throws(DeliveryError) -> DBusClient {
        let shared = self.shared
        let bus = self.bus
        let result: Result<DBusClient, DeliveryError> = shared.state.withLock { state in
            if let client = state.client, client.isConnected { return .success(client) }
            state.resetConnection()
            do throws(DBusFailure) {
                let client = try DBusClient(bus: bus, matchRules: [Self.matchRule]) { signal in shared.handle(signal) }
                state.client = client
                return .success(client)
            } catch {
                return .failure(.noSessionBus(reason: error.message))
            }
        }
        return try result.get()
    }

    private func capabilities(_ client: DBusClient) async throws(DeliveryError) -> Set<String> {
        if let known = shared.state.withLock({ $0.client === client ? $0.capabilities : nil }) { return known }
        do {
            let reply = try await client.call(
                destination: Self.service,
                path: Self.path,
                interface: Self.service,
                method: "GetCapabilities",
                timeout: callTimeout
            )
            let capabilities = Set(reply.first?.stringArray ?? [])
            shared.state.withLock { if $0.client === client { $0.capabilities = capabilities } }
            return capabilities
        } catch {
            throw shared.failed(error, client: client)
        }
    }

    static func deliveryError(_ failure: DBusFailure) -> DeliveryError {
        if failure.isServiceMissing { return .noNotificationServer }
        if failure.isTimeout { return .notificationServerTimedOut }
        if failure.isDisconnected { return .busDisconnected }
        return .notificationServer(errorName: failure.name, message: failure.message)
    }

    // MARK: - Shared state

    /// The part of the channel the connection's thread also uses.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let continuation: AsyncStream<NotificationAction>.Continuation

        init(continuation: AsyncStream<NotificationAction>.Continuation) { self.continuation = continuation }

        /// Maps a signal to an action of one of our notifications.
        func handle(_ signal: DBusSignal) {
            guard signal.interface == DesktopNotificationChannel.service, let id = signal.arguments.first?.uint32Value else { return }
            let (action, client): (NotificationAction?, DBusClient?) = state.withLock { state in
                guard let entry = state.entries[id] else { return (nil, nil) }
                switch signal.member {
                case "ActionInvoked":
                    guard signal.arguments.count >= 2, let key = signal.arguments[1].stringValue.flatMap(NotificationAction.Key.init) else {
                        return (nil, nil)
                    }
                    let action = NotificationAction(
                        reminderID: entry.reminderID,
                        personID: entry.personID,
                        notificationID: id,
                        event: .invoked(key),
                        link: key == .contact ? entry.link : nil,
                        greetingDay: key == .skipGreeting ? entry.greetingDay : nil
                    )
                    return (action, state.client)
                case "NotificationClosed":
                    state.forget(serverID: id)
                    let code = signal.arguments.count >= 2 ? signal.arguments[1].uint32Value ?? 4 : 4
                    let action = NotificationAction(
                        reminderID: entry.reminderID,
                        personID: entry.personID,
                        notificationID: id,
                        event: .closed(.init(code: code))
                    )
                    return (action, nil)
                default:
                    return (nil, nil)
                }
            }
            if let action { continuation.yield(action) }
            client?.send(
                destination: DesktopNotificationChannel.service,
                path: DesktopNotificationChannel.path,
                interface: DesktopNotificationChannel.service,
                method: "CloseNotification",
                arguments: [.uint32(id)]
            )
        }

        /// Converts a failure, dropping the connection when it broke.
        func failed(_ failure: DBusFailure, client: DBusClient) -> DeliveryError {
            if !client.isConnected || failure.isDisconnected {
                state.withLock { if $0.client === client { $0.resetConnection() } }
            }
            return DesktopNotificationChannel.deliveryError(failure)
        }

        func shutDown() {
            let client = state.withLock { state in
                let client = state.client
                state.resetConnection()
                return client
            }
            client?.close()
            continuation.finish()
        }
    }

    private struct State: ~Copyable {
        struct Entry {
            var reminderID: String
            var personID: String
            /// The URI of the `contact` button, when it has one.
            var link: String?
            /// The day of the greeting the `skip-greeting` button skips, when it has one.
            var greetingDay: LocalDate?
        }

        /// At most this many notifications are tracked; the oldest is
        /// forgotten first (its later actions are then ignored).
        static let limit = 256

        var client: DBusClient?
        var capabilities: Set<String>?
        var entries: [UInt32: Entry] = [:]
        var order: [UInt32] = []

        func serverID(for reminderID: String) -> UInt32? {
            order.last { entries[$0]?.reminderID == reminderID }
        }

        mutating func remember(serverID: UInt32, reminderID: String, personID: String, link: String? = nil, greetingDay: LocalDate? = nil) {
            if entries[serverID] != nil { order.removeAll { $0 == serverID } }
            entries[serverID] = Entry(reminderID: reminderID, personID: personID, link: link, greetingDay: greetingDay)
            order.append(serverID)
            if order.count > Self.limit { forget(serverID: order[0]) }
        }

        mutating func forget(serverID: UInt32) {
            entries[serverID] = nil
            order.removeAll { $0 == serverID }
        }

        /// Notification ids belong to one server and one connection.
        mutating func resetConnection() {
            client = nil
            capabilities = nil
            entries = [:]
            order = []
        }
    }
}
