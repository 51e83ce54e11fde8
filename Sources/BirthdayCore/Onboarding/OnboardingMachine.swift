/// The first-run flow and the notification permission request, as a pure
/// value: feed it ``Event``s, perform the ``Action``s it returns. It does no
/// I/O, so the terminal flow (`birthdays onboard`) and its tests drive the same logic.
///
/// ## Steps
/// `welcome` → `contacts` (import a path, or skip) → `primer` → (`permission`)
/// → (`channels`) → (`service`) → `complete`.
/// The step is saved after every event, so an interrupted onboarding
/// continues where it stopped, and says so (``resumedStep``); one interrupted
/// while the permission question was open starts again at the primer, since
/// the question was never answered.
///
/// ## Permission
/// The primer ("Never Miss a Birthday") always comes before the permission
/// request, as on iOS:
/// - "Enable notifications" probes the delivery channel (``Action/probeChannel``),
///   then asks the user to confirm (``Action/askForPermission(channelReachable:)``).
///   "Allow" gives `authorized` when a channel is reachable and `provisional`
///   (quiet delivery, to the log only) when none is; "Don't allow" gives `denied`.
/// - "Maybe later" completes onboarding with the status unchanged
///   (`notDetermined`), and nothing asks again later.
/// - Once `denied`, "Enable notifications" returns `denied` without asking
///   (``Finish/alreadyDenied``); only `birthdays notifications enable` changes it.
/// - When notifications are already allowed, the primer is skipped.
///
/// ## Reaching the phone
/// Once notifications are allowed, and before the service offer, the flow
/// offers to add a channel that reaches the phone or the inbox (e-mail or
/// ntfy, ``Action/offerChannels``) and sends a test through it; whatever the
/// user chose, ``Event/channelsOffered`` moves on. An onboarding interrupted
/// there offers it again.
///
/// ## Keeping reminders running
/// Reminders fire only while `birthdays run` runs, so whenever onboarding
/// ends with notifications allowed it first offers to install and start it
/// as a service (``Action/offerService(_:)``), then finishes with the answer
/// (``Finish/notificationsOn(_:installService:)``), after which the flow
/// sends one test notification.
///
/// Events that make no sense in the current step (a permission answer
/// before the primer, say) return ``Action/ignored`` and change nothing.
public struct OnboardingMachine: Sendable, Equatable {
    /// Where the flow is. The raw values are what is stored.
    public enum Step: String, Sendable, CaseIterable, Codable {
        case welcome
        case contactsImport = "contacts"
        case notificationPrimer = "primer"
        case permissionRequest = "permission"
        case channels
        case service
        case complete
    }

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// The flow begins, or resumes.
        case start
        /// The user read the welcome.
        case welcomeAcknowledged
        /// The user named files or folders to import (one or more).
        case importContacts(paths: [String])
        /// The import the machine asked for succeeded.
        case importSucceeded
        /// The import failed; `message` says why (the user is asked again).
        case importFailed(message: String)
        /// The user chose not to import now.
        case skipContacts
        /// "[E]nable notifications" on the primer.
        case enableNotifications
        /// "[M]aybe later" on the primer.
        case maybeLater
        /// The result of ``Action/probeChannel``.
        case channelProbed(reachable: Bool)
        /// The user's answer to ``Action/askForPermission(channelReachable:)``.
        case permissionAnswered(allowed: Bool)
        /// ``Action/offerChannels`` is done: a channel was added (and tested), or the user declined.
        case channelsOffered
        /// The user's answer to ``Action/offerService(_:)``.
        case serviceAnswered(install: Bool)
    }

    /// How onboarding ended.
    public enum Finish: Sendable, Equatable {
        /// Notifications are allowed (`authorized` or `provisional`); install
        /// and start the service when asked to, then send a test notification.
        case notificationsOn(AuthorizationStatus, installService: Bool)
        /// The user said "Maybe later" (status unchanged) or "Don't allow" (`denied`).
        case notificationsOff(AuthorizationStatus)
        /// Notifications were denied before; the user was not asked again.
        case alreadyDenied
    }

    /// What to do next.
    public enum Action: Sendable, Equatable {
        case showWelcome
        /// Ask for a path to import (or skip); `problem` is why the last import failed.
        case askForContacts(problem: String?)
        /// Import this path, then send ``Event/importSucceeded`` or ``Event/importFailed(message:)``.
        case importContacts(paths: [String])
        /// Show "Never Miss a Birthday" with "[E]nable notifications" / "[M]aybe later".
        case showPrimer
        /// Check whether a delivery channel is reachable, then send ``Event/channelProbed(reachable:)``.
        case probeChannel
        /// Ask the user to allow notifications, saying whether a channel was found.
        case askForPermission(channelReachable: Bool)
        /// Offer to add an e-mail or ntfy channel and test it; then send ``Event/channelsOffered``.
        case offerChannels
        /// Notifications are allowed (this status): reschedule, show the next
        /// reminders, and offer to keep `birthdays run` running; then send
        /// ``Event/serviceAnswered(install:)``.
        case offerService(AuthorizationStatus)
        /// Onboarding is complete; the status to store is ``OnboardingMachine/status``.
        case finish(Finish)
        /// Onboarding had been completed before.
        case alreadyComplete(AuthorizationStatus)
        /// The event does not apply to the current step; nothing changed.
        case ignored
    }

    public private(set) var step: Step
    public private(set) var status: AuthorizationStatus
    private var channelReachable = false

    /// Where the flow picked up, once ``Event/start`` was handled, when that
    /// is neither its beginning nor its end: an interrupted onboarding that
    /// resumes says so ("Picking up where you left off: notifications").
    /// `nil` for a flow that starts at the welcome or is already complete.
    public var resumedStep: Step? {
        switch step {
        case .welcome, .complete: nil
        case .contactsImport, .notificationPrimer, .permissionRequest, .channels, .service: step
        }
    }

    /// A machine at `step` with `status`; `permissionRequest` resumes at the primer.
    public init(step: Step = .welcome, status: AuthorizationStatus = .notDetermined) {
        self.step = step == .permissionRequest ? .notificationPrimer : step
        self.status = status
    }

    /// Applies `event` and returns what to do.
    public mutating func handle(_ event: Event) -> Action {
        switch (step, event) {
        case (.welcome, .start):
            return .showWelcome
        case (.contactsImport, .start):
            return .askForContacts(problem: nil)
        case (.notificationPrimer, .start):
            return enterPrimer()
        case (.permissionRequest, .start):
            step = .notificationPrimer
            return enterPrimer()
        case (.channels, .start):
            return .offerChannels
        case (.service, .start):
            return .offerService(status)
        case (.complete, .start):
            return .alreadyComplete(status)

        case (.welcome, .welcomeAcknowledged):
            step = .contactsImport
            return .askForContacts(problem: nil)

        case (.contactsImport, .importContacts(let paths)):
            return .importContacts(paths: paths)
        case (.contactsImport, .importFailed(let message)):
            return .askForContacts(problem: message)
        case (.contactsImport, .importSucceeded), (.contactsImport, .skipContacts):
            step = .notificationPrimer
            return enterPrimer()

        case (.notificationPrimer, .enableNotifications):
            switch status {
            case .denied:
                step = .complete
                return .finish(.alreadyDenied)
            case .authorized, .provisional:
                step = .channels
                return .offerChannels
            case .notDetermined:
                step = .permissionRequest
                return .probeChannel
            }
        case (.notificationPrimer, .maybeLater):
            step = .complete
            return .finish(.notificationsOff(status))

        case (.permissionRequest, .channelProbed(let reachable)):
            channelReachable = reachable
            return .askForPermission(channelReachable: reachable)
        case (.permissionRequest, .permissionAnswered(let allowed)):
            status = AuthorizationStatus.afterRequest(allowed: allowed, channelReachable: channelReachable)
            guard status.isAllowed else {
                step = .complete
                return .finish(.notificationsOff(status))
            }
            step = .channels
            return .offerChannels

        case (.channels, .channelsOffered):
            step = .service
            return .offerService(status)

        case (.service, .serviceAnswered(let install)):
            step = .complete
            return .finish(.notificationsOn(status, installService: install))

        default:
            return .ignored
        }
    }

    /// The primer, unless notifications are already allowed (then the channel offer).
    private mutating func enterPrimer() -> Action {
        guard !status.isAllowed else {
            step = .channels
            return .offerChannels
        }
        return .showPrimer
    }
}
