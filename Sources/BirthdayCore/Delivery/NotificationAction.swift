/// What the user did with a desktop notification, as the notification server
/// reported it (`ActionInvoked` and `NotificationClosed` signals of the
/// [Desktop Notifications Specification](https://specifications.freedesktop.org/notification-spec/latest/)).
public struct NotificationAction: Sendable, Hashable {
    /// The actions a reminder offers; the raw value is the D-Bus action key.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        /// Clicking the notification itself: open the person.
        case open = "default"
        /// "Snooze 15 min": show the reminder again in 15 minutes.
        case snooze
        /// "Dismiss": done with it for this occurrence.
        case dismiss
        /// "Write to Ada" / "Call Ada": open the person's contact link (``link``).
        case contact
        /// "Skip greeting": skip the friend's greeting of ``greetingDay`` (what
        /// `birthdays greet skip` does), offered only on a reminder of a
        /// greeting not sent yet (``Reminder/skippableGreeting``).
        case skipGreeting = "skip-greeting"
    }

    /// Why the notification went away (the spec's reason codes 1–4).
    public enum CloseReason: Sendable, Hashable {
        case expired
        case dismissedByUser
        case closedByCall
        case undefined
        case other(UInt32)

        package init(code: UInt32) {
            switch code {
            case 1: self = .expired
            case 2: self = .dismissedByUser
            case 3: self = .closedByCall
            case 4: self = .undefined
            default: self = .other(code)
            }
        }
    }

    public enum Event: Sendable, Hashable {
        case invoked(Key)
        case closed(CloseReason)
    }

    /// The ``Reminder/id`` of the notification.
    public var reminderID: String
    public var personID: String
    /// The id the notification server gave the notification.
    public var notificationID: UInt32
    public var event: Event
    /// The URI the ``Key/contact`` button opens; `nil` for the other events. Never logged.
    public var link: String?
    /// The day of the greeting the ``Key/skipGreeting`` button skips (the
    /// friend's birthday); `nil` for the other events.
    public var greetingDay: LocalDate?

    public init(reminderID: String, personID: String, notificationID: UInt32, event: Event, link: String? = nil, greetingDay: LocalDate? = nil) {
        self.reminderID = reminderID
        self.personID = personID
        self.notificationID = notificationID
        self.event = event
        self.link = link
        self.greetingDay = greetingDay
    }
}

/// What a notification server says about itself (`GetServerInformation`
/// and `GetCapabilities`).
public struct NotificationServerInfo: Sendable, Hashable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String
    public var capabilities: Set<String>

    public init(name: String, vendor: String, version: String, specVersion: String, capabilities: Set<String>) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specVersion = specVersion
        self.capabilities = capabilities
    }
}
