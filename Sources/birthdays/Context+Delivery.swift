import BirthdayKit
import Foundation
import Logging

extension Context {
    /// The current instant for a long-running command. With BIRTHDAYS_NOW set,
    /// time starts there and flows (BIRTHDAYS_NOW + time elapsed since start,
    /// on the monotonic clock that counts suspension), so a test can start at
    /// 08:59:57 and see the 09:00 reminder three seconds later.
    func flowingNow() -> @Sendable () -> Date {
        guard let override = environment["BIRTHDAYS_NOW"], !override.isEmpty else { return { Date() } }
        let base = now
        let start = ContinuousClock.now
        return {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            return base.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }
    }

    /// The system zone, read again on each call: TZ when set, else the
    /// system's (after `NSTimeZone.resetSystemTimeZone()`, since Foundation caches it).
    func liveSystemTimeZone() -> @Sendable () -> TimeZone {
        let environment = self.environment
        if let tz = environment["TZ"], !tz.isEmpty {
            let zone = Context.systemTimeZone(environment)
            return { zone }
        }
        return {
            NSTimeZone.resetSystemTimeZone()
            return TimeZone.current
        }
    }

    /// The channels for a pass: `provisional` permission gets the log only;
    /// otherwise the `channels` setting, with the desktop channel shared for
    /// the daemon's life (its connection receives the button clicks).
    func channelFactory(desktop: DesktopNotificationChannel?, clock: any Clock<Duration>) -> DeliveryEngine.ChannelFactory {
        let environment = self.environment
        let log = LogChannel { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        return { settings, status in
            if status == .provisional { return ChannelSet([.init(name: ChannelKind.log.rawValue, sink: log)]) }
            return ChannelSet(settings.channels.compactMap { kind -> ChannelSet.Member? in
                switch kind {
                case .desktop: desktop.map { .init(name: kind.rawValue, sink: $0) }
                case .command: .init(name: kind.rawValue, sink: CommandChannel(command: settings.command, environment: environment, clock: clock))
                case .log: .init(name: kind.rawValue, sink: log)
                }
            })
        }
    }

    /// A logger for the daemon: level `notice` unless BIRTHDAYS_LOG_LEVEL says otherwise.
    func daemonLogger(_ label: String) -> Logger {
        var logger = logger(label)
        if environment["BIRTHDAYS_LOG_LEVEL"] == nil { logger.logLevel = .notice }
        return logger
    }

    /// The delivery engine over this context's database; its sleeps and the
    /// command channel's timeouts run on `clock`.
    func deliveryEngine(desktop: DesktopNotificationChannel?, clock: any Clock<Duration> = EventLoopClock(), logger: Logger) -> DeliveryEngine {
        DeliveryEngine(
            database: database,
            clock: clock,
            now: flowingNow(),
            systemTimeZone: liveSystemTimeZone(),
            channels: channelFactory(desktop: desktop, clock: clock),
            logger: logger
        )
    }
}
