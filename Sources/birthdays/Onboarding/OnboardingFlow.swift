import ArgumentParser
import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation

/// Runs ``OnboardingMachine`` on a terminal: shows what its actions say (in
/// the user's language), reads answers (or takes them from options), and
/// performs the I/O it asks for. The flow's rules are the machine's; this
/// only talks and does.
///
/// A choice is typed as the letter in brackets in its label (`[E]nable
/// notifications`), so each language picks its own letters.
struct OnboardingFlow {
    /// Answers given as options, for non-interactive use.
    struct Answers {
        enum Contacts {
            case path(String)
            case skip
        }

        var contacts: Contacts?
        /// `true`: "Enable notifications" and allow; `false`: "Maybe later".
        var notifications: Bool?
        /// `true`: install and start the service (without a systemd user
        /// manager: start the daemon in the background); `false`: not now.
        /// Without a terminal and without an answer, nothing is started.
        var service: Bool?

        enum Channel {
            /// Add this address as an e-mail channel (`--email`).
            case email(String)
            /// Do not offer a channel (`--no-channels`).
            case skip
        }

        /// Without a terminal and without an answer, no channel is added.
        var channel: Channel?
        /// The sendmail program of an e-mail channel (`--sendmail`).
        var sendmail: String?
    }

    let context: Context
    let answers: Answers
    let interactive: Bool
    /// The welcome was shown and acknowledged before the database was
    /// created (``run(_:answers:interactive:)``): the flow goes on from there.
    let welcomed: Bool
    /// Whether a systemd user manager answers, asked once per run.
    private let manager = ManagerProbe()

    init(context: Context, answers: Answers, interactive: Bool, welcomed: Bool = false) {
        self.context = context
        self.answers = answers
        self.interactive = interactive
        self.welcomed = welcomed
    }

    /// `birthdays onboard`. Nothing is created before the first answer:
    /// without a database yet, onboarding without a terminal and without
    /// answers fails before creating one, and on a terminal the welcome is
    /// shown and acknowledged first (Ctrl-D there leaves nothing behind), so
    /// a bare `birthdays` still says where to start.
    static func run(_ options: GlobalOptions, answers: Answers, interactive: Bool) async throws {
        let environment = ProcessInfo.processInfo.environment
        guard !FileManager.default.fileExists(atPath: try Context.databasePath(options, environment: environment)) else {
            try await OnboardingFlow(context: try Context(options), answers: answers, interactive: interactive).run()
            return
        }
        guard interactive || answers.notifications != nil else { throw notATerminal }
        guard interactive else {
            try await OnboardingFlow(context: try Context(options), answers: answers, interactive: false).run()
            return
        }
        // The language of a database that does not exist yet: its settings are the defaults.
        let localizer = Localizer(setting: nil, systemLocale: Language.fromEnvironment(environment))
        do {
            try welcome(localizer: localizer, interactive: true)
        } catch is Paused {
            try output("\n" + localizer(.onboardingPaused))
            return
        }
        try await OnboardingFlow(context: try Context(options), answers: answers, interactive: true, welcomed: true).run()
    }

    /// Onboarding without a terminal and without an answer to the primer.
    static let notATerminal = CLIError(
        "standard input is not a terminal, so onboarding cannot ask; "
            + "pass --enable-notifications or --no-notifications (and --contacts PATH or --no-contacts)"
    )

    private final class ManagerProbe {
        var available: Bool?
    }

    /// Whether `service install` can install the service here (asked once).
    private func managerAvailable() async -> Bool {
        if let available = manager.available { return available }
        let available = await context.userService().managerAvailable()
        manager.available = available
        return available
    }

    /// Standard input closed (Ctrl-D): the progress is saved, the flow stops.
    struct Paused: Error {}

    func run() async throws {
        let localizer = try await context.localizer()
        var machine = try await context.database.onboardingMachine()
        if !interactive && machine.step != .complete && answers.notifications == nil { throw Self.notATerminal }
        var action = machine.handle(.start)
        if welcomed, case .showWelcome = action {
            action = machine.handle(.welcomeAcknowledged)
            try await context.database.saveOnboarding(machine)
        } else if let step = machine.resumedStep, let resuming = Message.onboardingResuming(step) {
            try output(localizer(resuming))
        }
        var offeredChannels = false
        do {
            while true {
                if case .offerChannels = action { offeredChannels = true }
                guard let event = try await perform(action, machine: machine, localizer: localizer) else { break }
                action = machine.handle(event)
                try await context.database.saveOnboarding(machine)
            }
        } catch is Paused {
            try await context.database.saveOnboarding(machine)
            try output("\n" + localizer(.onboardingPaused))
        }
        // The channel step comes only on the way to allowed notifications: say when --email was not used.
        if case .email(let address) = answers.channel, !offeredChannels {
            FileHandle.standardError.write(
                Data(
                    ("Note: --email was not used (the step that adds a channel comes only while notifications are being turned on); "
                        + "add it with: birthdays channels add email \(SafeText.line(address, maxCharacters: 320))\n").utf8
                )
            )
        }
    }

    /// Does what `action` says; returns the next event, or `nil` when the flow is over.
    private func perform(
        _ action: OnboardingMachine.Action,
        machine: OnboardingMachine,
        localizer l: Localizer
    ) async throws -> OnboardingMachine.Event? {
        switch action {
        case .showWelcome:
            try Self.welcome(localizer: l, interactive: interactive)
            return .welcomeAcknowledged

        case .askForContacts(let problem):
            switch answers.contacts {
            case .path(let path):
                if let problem {
                    // The step is saved, so a corrected --contacts resumes here.
                    printError("Error: could not import: \(problem)")
                    throw ExitCode.failure
                }
                return .importContacts(paths: [path])
            case .skip:
                return .skipContacts
            case nil:
                guard interactive else {
                    try output(l(.onboardingContactsSkipped))
                    return .skipContacts
                }
                try output("")
                if let problem { try output(l(.onboardingContactsFailed(problem))) }
                try output(l(.onboardingContactsTitle))
                try output(l(.onboardingContactsPrompt))
                let answer = try ask(">").trimmingCharacters(in: .whitespaces)
                let skip = ["skip", l(.onboardingContactsSkipWord).lowercased()].contains(answer.lowercased())
                // As dragged or typed: quotes, backslashes, ~, several files (TypedPaths says how).
                let paths = TypedPaths.parse(answer, home: context.environment["HOME"])
                return paths.isEmpty || skip ? .skipContacts : .importContacts(paths: paths)
            }

        case .importContacts(let paths):
            let today = try await context.today()
            var importer = ContactImporter(
                database: context.database,
                now: context.now,
                referenceYear: today.year,
                today: today,
                scheduler: context.scheduler()
            )
            // A birthday calendar (.ics) is read as `import` reads it.
            importer.calendarParser = { data, file, known in
                CalendarFileReader.parse(data, file: file, asBirthday: false, today: today, known: known)
            }
            let report: ImportReport
            do {
                report = try await importer.importPaths(paths)
            } catch {
                return .importFailed(message: error.description)
            }
            try output((ImportOutput.messages(report) + [ImportOutput.summary(report, dryRun: false)]).joined(separator: "\n"))
            return .importSucceeded

        case .showPrimer:
            try output("")
            try output(l(.onboardingPrimerTitle))
            try output(l(.onboardingPrimerReason))
            if let enable = answers.notifications { return enable ? .enableNotifications : .maybeLater }
            let enable = try choose(l(.onboardingPrimerEnable), or: l(.onboardingPrimerLater), localizer: l)
            return enable ? .enableNotifications : .maybeLater

        case .probeChannel:
            let (settings, _) = try await context.settings()
            let result = await DesktopNotificationProbe(channels: settings.channels).probe()
            if !result.reachable {
                // In words, not the D-Bus error: "this is not a desktop session…".
                let reason = result.failure.map { l(.deliveryError($0)) } ?? result.detail
                try output(l(.onboardingChannelNote(reason)))
                try output(l(.onboardingChannelProvisional))
            }
            return .channelProbed(reachable: result.reachable)

        case .askForPermission:
            if answers.notifications == true { return .permissionAnswered(allowed: true) }
            try output("")
            try output(l(.onboardingPermissionQuestion))
            let allowed = try choose(l(.onboardingPermissionAllow), or: l(.onboardingPermissionDeny), localizer: l)
            return .permissionAnswered(allowed: allowed)

        case .offerChannels:
            try await offerChannel(localizer: l)
            // Greeting friends is mentioned once, here, as something to turn on later: never a default.
            try output("")
            try output(l(.onboardingGreetingsLater))
            return .channelsOffered

        case .offerService(let status):
            try await context.database.saveOnboarding(machine)
            try output("")
            let result = try await context.scheduler().reschedule()
            if status == .provisional {
                // A provisional permission holds back the desktop only: an added channel delivers.
                let added = !(try await context.database.remoteChannels()).isEmpty
                try output(l(added ? .onboardingOnProvisionalChannels : .onboardingOnProvisional))
            } else {
                try output(l(.onboardingOn))
            }
            try showNext(result, localizer: l)
            if let install = answers.service { return .serviceAnswered(install: install) }
            guard interactive else { return .serviceAnswered(install: false) }
            try output("")
            try output(l(.onboardingServiceTitle))
            let canInstall = context.isTrial ? true : await managerAvailable()
            if canInstall {
                try output(l(.onboardingServiceReason))
                let install = try choose(l(.onboardingServiceInstall), or: l(.onboardingServiceSkip), localizer: l)
                return .serviceAnswered(install: install)
            }
            try output(l(.onboardingStartReason(log: context.userService().logPath)))
            let start = try choose(l(.onboardingStartNow), or: l(.onboardingServiceSkip), localizer: l)
            return .serviceAnswered(install: start)

        case .finish(let finish):
            try await context.database.saveOnboarding(machine)
            try output("")
            // "You're all set" only when reminders will really be sent: a daemon runs, or the service was just started.
            var running = true
            switch finish {
            case .notificationsOn(_, let installService):
                var started = false
                let withoutSystemd = installService && !context.isTrial ? !(await managerAvailable()) : false
                if withoutSystemd {
                    started = try await startInBackground(localizer: l)
                } else if installService {
                    do {
                        try await ServiceSetup.install(
                            context.userService(),
                            start: true,
                            trial: context.isTrial,
                            managerAvailable: context.isTrial ? nil : true,
                            localizer: l
                        )
                        started = !context.isTrial
                    } catch let error as CLIError {
                        printError("Error: \(error.description)")
                        try output(l(.onboardingServiceLater))
                    }
                } else {
                    try output(l(.onboardingServiceLater))
                }
                try output("")
                try await sendTest(localizer: l)
                running = started || DaemonLock.holder(database: context.database.path) != nil
            case .notificationsOff(let status):
                try output(l(status == .denied ? .onboardingOffDenied : .onboardingOffLater))
            case .alreadyDenied:
                try output(l(.onboardingAlreadyDenied))
            }
            try output(l(running ? .onboardingDone : .onboardingNotRunning))
            return nil

        case .alreadyComplete(let status):
            try output(l(.onboardingAlreadyComplete(status: status.rawValue)))
            return nil

        case .ignored:
            return nil
        }
    }

    // MARK: - A channel that reaches the phone

    /// Offers an e-mail or ntfy channel (or takes `--email`), adds it as
    /// `channels add` does and tests it as `channels test` does. Without a
    /// terminal and without `--email`, or with `--no-channels`, nothing is asked.
    private func offerChannel(localizer l: Localizer) async throws {
        switch answers.channel {
        case .skip:
            return
        case .email(let address):
            try output("")
            // Checked as 'channels add' checks it before the flow started.
            _ = try await addAndTest(kind: .email, target: address, localizer: l)
        case nil:
            guard interactive else { return }
            try output("")
            try output(l(.onboardingChannelsTitle))
            try output(l(.onboardingChannelsReason))
            let kind: RemoteChannel.Kind
            switch try choose(among: [l(.onboardingChannelsEmail), l(.onboardingChannelsNtfy), l(.onboardingChannelsSkip)], localizer: l) {
            case 0: kind = .email
            case 1: kind = .ntfy
            default: return
            }
            while true {
                try output(l(kind == .email ? .onboardingChannelsEmailPrompt : .onboardingChannelsNtfyPrompt))
                // Typed, not echoed back: the ntfy topic is a secret.
                let target = try ask(">").trimmingCharacters(in: .whitespaces)
                if target.isEmpty { return }
                if try await addAndTest(kind: kind, target: target, localizer: l) { return }
            }
        }
    }

    /// `channels add KIND TARGET` under a free name, then `channels test NAME`,
    /// saying plainly how the test went. Returns `false` when `target` was
    /// not accepted (the reason is shown; nothing was stored).
    private func addAndTest(kind: RemoteChannel.Kind, target: String, localizer l: Localizer) async throws -> Bool {
        let existing = try await context.database.remoteChannels()
        let taken = Set(existing.map(\.name))
        var name = kind.rawValue
        var number = 2
        while taken.contains(name) {
            name = "\(kind.rawValue)-\(number)"
            number += 1
        }
        let channel: RemoteChannel
        do {
            // An onboarding stopped after adding the channel and run again tests that channel, never adds a second one.
            if let same = existing.first(where: { sameTarget($0, kind: kind, target: target) }) {
                channel = same
            } else {
                channel = try await Self.addCommand(kind: kind, target: target, sendmail: answers.sendmail, name: name).add(to: context)
            }
        } catch let error as CLIError {
            try output(l(.onboardingChannelsNotAdded(error.description)))
            return false
        } catch {
            try output(l(.onboardingChannelsNotAdded(BirthdaysCommand.Channels.ChannelsAdd.message(for: error))))
            return false
        }
        try output(l(.onboardingChannelsTesting(name: channel.name, target: SafeText.line(channel.target))))
        let outcomes = try await BirthdaysCommand.Channels.ChannelsTest.test([channel.name], context: context)
        if let outcome = outcomes.first, outcome.error == nil {
            try output(l(.onboardingChannelsSent(name: channel.name)))
        } else {
            let reason = outcomes.first?.error.map { l(.testError($0)) } ?? l(.testNoChannels)
            try output(l(.onboardingChannelsFailed(name: channel.name, reason: reason)))
        }
        return true
    }

    /// Whether `channel` already delivers to what was typed: the same address, or the same ntfy URL (kept in its secret file).
    private func sameTarget(_ channel: RemoteChannel, kind: RemoteChannel.Kind, target: String) -> Bool {
        guard channel.kind == kind else { return false }
        let typed = target.trimmingWhitespace()
        switch kind {
        case .email:
            return channel.target.trimmingWhitespace().lowercased() == typed.lowercased()
        case .ntfy:
            let file = ChannelSecrets(databasePath: context.database.path).file(name: channel.name, kind: .ntfy)
            return (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingWhitespace() == typed
        default:
            return false
        }
    }

    /// `channels add` for an onboarding answer, parsed and checked as that command line would be.
    static func addCommand(
        kind: RemoteChannel.Kind,
        target: String,
        sendmail: String?,
        name: String
    ) throws
        -> BirthdaysCommand.Channels.ChannelsAdd
    {
        var arguments = ["--name", name]
        if kind == .email, let sendmail { arguments += ["--sendmail", sendmail] }
        let command = try BirthdaysCommand.Channels.ChannelsAdd.parse(arguments + ["--", kind.rawValue, target])
        try command.validate()
        return command
    }

    // MARK: - The daemon without systemd

    /// Starts `birthdays run` in the background (no systemd user manager
    /// here), checks that it holds the daemon lock, and says for how long
    /// it runs and how to start it at every boot. Whether it runs.
    private func startInBackground(localizer l: Localizer) async throws -> Bool {
        let service = context.userService()
        if DaemonLock.holder(database: service.database) != nil { return true }
        switch await DetachedDaemon.start(service, environment: context.environment) {
        case .running(let pid):
            try output(l(.onboardingStartStarted(pid: String(pid), log: service.logPath)))
            try output("  " + service.cronLine)
            return true
        case .notYetRunning(let pid):
            try output(l(.onboardingStartSlow(pid: String(pid), log: service.logPath)))
            return false
        case .exited(let reason), .failed(let reason):
            try output(l(.onboardingStartFailed(reason: reason, log: service.logPath)))
            try output("  " + service.manualCommand)
            return false
        }
    }

    /// One test notification through the configured channels, and how each did.
    private func sendTest(localizer l: Localizer) async throws {
        try output(l(.onboardingTestSending))
        let (settings, zone) = try await context.settings()
        let outcomes = await NotificationTester.send(context: context, settings: settings, channels: settings.channels, zone: zone, localizer: l)
        try await NotificationTester.report(outcomes, context: context, settings: settings, localizer: l)
    }

    private func showNext(_ result: RescheduleResult, localizer l: Localizer) throws {
        guard !result.requests.isEmpty else {
            try output(l(.onboardingNextNone))
            return
        }
        try output(l(.onboardingNextTitle))
        let rows = result.requests.prefix(5).map { [Wording.wallClock($0.fireAt, zone: result.timeZone), $0.title, $0.body] }
        let width = Table.fitWidth.map { $0 - 2 }
        try output(Table.render(rows, shrinkable: [1, 2], width: width).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        if result.scheduled > 5 { try output("  " + l(.onboardingNextMore(pending: result.scheduled))) }
    }

    /// The welcome, and on a terminal "Press Enter to continue" (Ctrl-D pauses).
    private static func welcome(localizer l: Localizer, interactive: Bool) throws {
        try output(l(.onboardingWelcome))
        try output(l(.onboardingWelcomeDetail))
        if interactive { _ = try ask(l(.onboardingContinue)) }
    }

    /// Prints `prompt`, reads one line; Ctrl-D pauses the flow.
    private func ask(_ prompt: String) throws -> String {
        try Self.ask(prompt)
    }

    private static func ask(_ prompt: String) throws -> String {
        try output(prompt + " ", terminator: "")
        fflush(nil)
        guard let line = readLine() else { throw Paused() }
        return line
    }

    /// Shows two choices (`[E]nable notifications   [M]aybe later`) and asks
    /// until the answer starts with the letter in brackets of one of them;
    /// returns whether it was the first.
    private func choose(_ first: String, or second: String, localizer l: Localizer) throws -> Bool {
        try output(first + "   " + second)
        let keys = (OnboardingFlow.key(of: first), OnboardingFlow.key(of: second))
        while true {
            let answer = try ask(">").trimmingCharacters(in: .whitespaces).lowercased()
            if let typed = answer.first {
                if typed == keys.0 { return true }
                if typed == keys.1 { return false }
            }
            try output(l(.onboardingChooseAgain(keys.0.uppercased(), keys.1.uppercased())))
        }
    }

    /// Shows the choices on one line and asks until the answer starts with
    /// the letter in brackets of one of them; returns its index.
    private func choose(among labels: [String], localizer l: Localizer) throws -> Int {
        try output(labels.joined(separator: "   "))
        let keys = labels.map(OnboardingFlow.key(of:))
        while true {
            let answer = try ask(">").trimmingCharacters(in: .whitespaces).lowercased()
            if let typed = answer.first, let index = keys.firstIndex(of: typed) { return index }
            try output(l(.onboardingChooseAmong(keys.map { $0.uppercased() }.joined(separator: ", "))))
        }
    }

    /// The lowercased letter in brackets in a choice's label: `e` for `[E]nable notifications`.
    static func key(of label: String) -> Character {
        guard let open = label.firstIndex(of: "["), let key = label[label.index(after: open)...].first else {
            return label.lowercased().first ?? "?"
        }
        return Character(key.lowercased())
    }
}
