import BirthdayCore

/// Which D-Bus message bus to connect to.
package enum DBusBusAddress: Sendable, Hashable, CustomStringConvertible {
    /// The user's session bus, found the way libdbus finds it
    /// (`DBUS_SESSION_BUS_ADDRESS`, then `$XDG_RUNTIME_DIR/bus`, then X11 autolaunch).
    case session
    /// The system bus, where logind lives.
    case system
    /// An explicit address such as `unix:path=/tmp/dbus-XYZ`; tests use a
    /// private bus this way without touching the process environment.
    case address(String)

    package var description: String {
        switch self {
        case .session: "the session bus"
        case .system: "the system bus"
        case .address: "the D-Bus bus at the configured address"
        }
    }
}
