import BirthdayCore

/// Whether a reminder could be delivered now, for the permission request:
/// any configured channel other than `desktop` counts as reachable; for the
/// desktop, the notification server on the session bus is asked who it is
/// (`GetServerInformation`), in this process, over the same D-Bus code that
/// delivers (``DesktopNotificationChannel/probe(bus:timeout:)``).
///
/// A missing session bus (no `DBUS_SESSION_BUS_ADDRESS`, as over SSH or in
/// CI) fails at once; a server that does not answer fails after `timeout`.
package struct DesktopNotificationProbe: NotificationChannelProbe {
    private let bus: DBusBusAddress
    private let otherChannels: [ChannelKind]
    private let timeout: Duration

    /// - Parameters:
    ///   - bus: the session bus, or an explicit address (tests).
    ///   - channels: the `channels` setting; any channel besides `desktop` is reachable without a probe.
    ///   - timeout: how long to wait for the server's answer. Default 2 s.
    package init(bus: DBusBusAddress = .session, channels: [ChannelKind] = [], timeout: Duration = .seconds(2)) {
        self.bus = bus
        self.otherChannels = channels.filter { $0 != .desktop }
        self.timeout = timeout
    }

    package func probe() async -> ChannelProbeResult {
        if let channel = otherChannels.first {
            return ChannelProbeResult(reachable: true, detail: "channel '\(channel.rawValue)' is configured")
        }
        switch await DesktopNotificationChannel.probe(bus: bus, timeout: timeout) {
        case .success(let server):
            let name = server.name.isEmpty ? "" : " (\(server.name))"
            return ChannelProbeResult(reachable: true, detail: "desktop notification server reachable on the session bus\(name)")
        case .failure(let error):
            return ChannelProbeResult(reachable: false, detail: error.description, failure: error)
        }
    }
}
