import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// The channels a reminder goes to, for the `channels` setting and the
/// permission: `provisional` gets the log only; otherwise each configured
/// channel, with the desktop channel shared for the daemon's life (its
/// connection is the one that receives the button clicks).
public enum ReminderChannels {
    /// - Parameters:
    ///   - desktop: the long-lived desktop channel, or `nil` to leave desktop notifications out.
    ///   - environment: what the `command` channel's command inherits.
    ///   - clock: what the command channel's timeouts run on.
    ///   - log: writes the `log` channel's line (the CLI passes standard output).
    public static func factory(
        desktop: DesktopNotificationChannel?,
        environment: [String: String],
        clock: any Clock<Duration>,
        log: @escaping @Sendable (String) throws -> Void
    ) -> DeliveryEngine.ChannelFactory {
        let logChannel = LogChannel(write: log)
        return { settings, status in
            if status == .provisional { return ChannelSet([.init(name: ChannelKind.log.rawValue, sink: logChannel)]) }
            return ChannelSet(
                settings.channels.compactMap { kind -> ChannelSet.Member? in
                    switch kind {
                    case .desktop: desktop.map { .init(name: kind.rawValue, sink: $0) }
                    case .command: .init(name: kind.rawValue, sink: CommandChannel(command: settings.command, environment: environment, clock: clock))
                    case .log: .init(name: kind.rawValue, sink: logChannel)
                    }
                }
            )
        }
    }

    /// Whether a desktop notification server answers on `bus` now (asked as
    /// onboarding asks, ``DesktopNotificationProbe``). The engine uses it to
    /// move a `provisional` permission, given because none answered then,
    /// to `authorized`.
    public static func check(bus: DBusBusAddress = .session) -> DeliveryEngine.ChannelCheck {
        { _ in await DesktopNotificationProbe(bus: bus).probe().reachable }
    }
}
