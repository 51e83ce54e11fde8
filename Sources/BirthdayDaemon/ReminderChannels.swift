import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation

/// The channels a reminder goes to (``ChannelConsent``): the built-in ones
/// that are on and that the permission lets deliver, with the desktop
/// channel shared for the daemon's life (its connection is the one that
/// receives the button clicks), then every channel the user added that is
/// on and not paused (the engine passes only those).
package enum ReminderChannels {
    /// - Parameters:
    ///   - desktop: the long-lived desktop channel, or `nil` to leave desktop notifications out.
    ///   - environment: what the `command` channel's command inherits.
    ///   - clock: what the command channel's timeouts run on.
    ///   - databasePath: where the database is; an Apprise or ntfy channel's URL file lives beside it.
    ///   - log: writes the `log` channel's line (the CLI passes standard output).
    package static func factory(
        desktop: DesktopNotificationChannel?,
        environment: [String: String],
        clock: any Clock<Duration>,
        databasePath: String,
        log: @escaping @Sendable (String) throws -> Void
    ) -> DeliveryEngine.ChannelFactory {
        let logChannel = LogChannel(write: log)
        return { settings, status, remote in
            // Asked once per pass: a mail program installed since is found at the next one.
            let handlers = SchemeHandlers(environment: environment, clock: clock)
            let consent = ChannelConsent(status: status, builtIn: settings.channels, added: remote.map(\.name))
            let builtIn = consent.builtIn.compactMap { kind -> ChannelSet.Member? in
                switch kind {
                case .desktop: desktop.map { .init(name: kind.rawValue, sink: DesktopDelivery(channel: $0, handlers: handlers)) }
                case .command: .init(name: kind.rawValue, sink: CommandChannel(command: settings.command, environment: environment, clock: clock))
                case .log: .init(name: kind.rawValue, sink: logChannel)
                }
            }
            let added = remote.filter { consent.added.contains($0.name) }.compactMap { channel -> ChannelSet.Member? in
                sink(for: channel, databasePath: databasePath, environment: environment, clock: clock).map { .init(name: channel.name, sink: $0) }
            }
            return ChannelSet(builtIn + added)
        }
    }

    /// The sink that delivers through an added channel.
    package static func sink(
        for channel: RemoteChannel,
        databasePath: String,
        environment: [String: String],
        clock: any Clock<Duration>
    ) -> (any NotificationSink)? {
        switch channel.kind {
        case .apprise:
            AppriseChannel(
                name: channel.name,
                configuration: ChannelSecrets(databasePath: databasePath).file(name: channel.name, kind: .apprise),
                environment: environment,
                clock: clock
            )
        case .email:
            if let to = EmailAddress(parsing: channel.target) {
                EmailChannel(
                    name: channel.name,
                    to: to,
                    from: channel.from.flatMap(EmailAddress.init(parsing:)),
                    sendmail: channel.sendmail,
                    environment: environment,
                    clock: clock
                )
            } else {
                // Checked when it was added; a row edited into something else since refuses, and says why.
                Refusing(
                    error: .remoteRefused(
                        channel: channel.name,
                        reason: "its stored address is not an e-mail address; add the channel again under another --name with the right address, "
                            + "then remove this one"
                    )
                )
            }
        case .ntfy:
            PushChannel(
                name: channel.name,
                service: .ntfy(urlFile: ChannelSecrets(databasePath: databasePath).file(name: channel.name, kind: .ntfy)),
                tokenCommand: channel.tokenCommand,
                environment: environment,
                clock: clock
            )
        case .gotify:
            PushChannel(
                name: channel.name,
                service: .gotify(server: channel.target),
                tokenCommand: channel.tokenCommand,
                environment: environment,
                clock: clock
            )
        }
    }

    /// The long-lived desktop channel with this pass's scheme handlers (the
    /// reminder's "Write to" / "Call" button).
    struct DesktopDelivery: NotificationSink {
        let channel: DesktopNotificationChannel
        let handlers: SchemeHandlers
        func deliver(_ reminder: Reminder) async throws(DeliveryError) { try await channel.deliver(reminder, handlers: handlers) }
    }

    /// A channel that cannot deliver as stored: it refuses every reminder with `error`.
    struct Refusing: NotificationSink {
        let error: DeliveryError
        func deliver(_ reminder: Reminder) async throws(DeliveryError) { throw error }
    }

    /// Whether a desktop notification server answers on `bus` now (asked as
    /// onboarding asks, ``DesktopNotificationProbe``). The engine uses it to
    /// move a `provisional` permission, given because none answered then,
    /// to `authorized`.
    package static func check(bus: DBusBusAddress = .session) -> DeliveryEngine.ChannelCheck {
        { _ in await DesktopNotificationProbe(bus: bus).probe().reachable }
    }
}
