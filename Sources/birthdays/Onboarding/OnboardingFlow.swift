import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
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
        /// `true`: install and start the service; `false`: not now. Without
        /// a terminal and without an answer, it is not installed.
        var service: Bool?
    }

    let context: Context
    let answers: Answers
    let interactive: Bool

    /// Standard input closed (Ctrl-D): the progress is saved, the flow stops.
    struct Paused: Error {}

    func run() async throws {
        let localizer = try await context.localizer()
        var machine = try await context.database.onboardingMachine()
        if !interactive && machine.step != .complete && answers.notifications == nil {
            throw CLIError(
                "standard input is not a terminal, so onboarding cannot ask; "
                    + "pass --enable-notifications or --no-notifications (and --contacts PATH or --no-contacts)"
            )
        }
        var action = machine.handle(.start)
        do {
            while let event = try await perform(action, machine: machine, localizer: localizer) {
                action = machine.handle(event)
                try await context.database.saveOnboarding(machine)
            }
        } catch is Paused {
            try await context.database.saveOnboarding(machine)
            try output("\n" + localizer(.onboardingPaused))
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
            try output(l(.onboardingWelcome))
            try output(l(.onboardingWelcomeDetail))
            if interactive { _ = try ask(l(.onboardingContinue)) }
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
            let importer = ContactImporter(
                database: context.database,
                now: context.now,
                referenceYear: today.year,
                today: today,
                scheduler: context.scheduler()
            )
            let report: ImportReport
            do {
                report = try await importer.importPaths(paths)
            } catch {
                return .importFailed(message: error.description)
            }
            try output((report.problems.map(\.description) + [ImportOutput.summary(report, dryRun: false)]).joined(separator: "\n"))
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

        case .offerService(let status):
            try await context.database.saveOnboarding(machine)
            try output("")
            let result = try await context.scheduler().reschedule()
            try output(l(status == .provisional ? .onboardingOnProvisional : .onboardingOn))
            try showNext(result, localizer: l)
            if let install = answers.service { return .serviceAnswered(install: install) }
            guard interactive else { return .serviceAnswered(install: false) }
            try output("")
            try output(l(.onboardingServiceTitle))
            try output(l(.onboardingServiceReason))
            let install = try choose(l(.onboardingServiceInstall), or: l(.onboardingServiceSkip), localizer: l)
            return .serviceAnswered(install: install)

        case .finish(let finish):
            try await context.database.saveOnboarding(machine)
            try output("")
            // "You're all set" only when reminders will really be sent: a daemon runs, or the service was just started.
            var running = true
            switch finish {
            case .notificationsOn(_, let installService):
                var started = false
                if installService {
                    do {
                        try await ServiceSetup.install(context.userService(), start: true, trial: context.isTrial, localizer: l)
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

    /// One test notification through the configured channels, and how each did.
    private func sendTest(localizer l: Localizer) async throws {
        try output(l(.onboardingTestSending))
        let (settings, zone) = try await context.settings()
        let outcomes = await NotificationTester.send(context: context, settings: settings, channels: settings.channels, zone: zone, localizer: l)
        try NotificationTester.report(outcomes, settings: settings, status: try await context.database.authorizationStatus(), localizer: l)
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

    /// Prints `prompt`, reads one line; Ctrl-D pauses the flow.
    private func ask(_ prompt: String) throws -> String {
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

    /// The lowercased letter in brackets in a choice's label: `e` for `[E]nable notifications`.
    static func key(of label: String) -> Character {
        guard let open = label.firstIndex(of: "["), let key = label[label.index(after: open)...].first else {
            return label.lowercased().first ?? "?"
        }
        return Character(key.lowercased())
    }
}
