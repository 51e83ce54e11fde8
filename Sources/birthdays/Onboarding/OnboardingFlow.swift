import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// Runs ``OnboardingMachine`` on a terminal: shows what its actions say,
/// reads answers (or takes them from options), and performs the I/O it asks
/// for. The flow's rules are the machine's; this only talks and does.
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
    }

    static let primerTitle = "Never Miss a Birthday"
    static let primerReason = "Get notified the day before and the day of each birthday so you always have time to prepare."

    let context: Context
    let answers: Answers
    let interactive: Bool

    /// Standard input closed (Ctrl-D): the progress is saved, the flow stops.
    struct Paused: Error {}

    func run() async throws {
        var machine = try await context.database.onboardingMachine()
        if !interactive && machine.step != .complete && answers.notifications == nil {
            throw CLIError(
                "standard input is not a terminal, so onboarding cannot ask; "
                    + "pass --enable-notifications or --no-notifications (and --contacts PATH or --no-contacts)"
            )
        }
        var action = machine.handle(.start)
        do {
            while let event = try await perform(action, machine: machine) {
                action = machine.handle(event)
                try await context.database.saveOnboarding(machine)
            }
        } catch is Paused {
            try await context.database.saveOnboarding(machine)
            try output("\nOnboarding paused. Run 'birthdays onboard' to continue where you left off.")
        }
    }

    /// Does what `action` says; returns the next event, or `nil` when the flow is over.
    private func perform(_ action: OnboardingMachine.Action, machine: OnboardingMachine) async throws -> OnboardingMachine.Event? {
        switch action {
        case .showWelcome:
            try output("Welcome to birthdays!")
            try output("Import your contacts' birthdays, and get a reminder the day before and on the day.")
            if interactive { _ = try ask("Press Enter to continue.") }
            return .welcomeAcknowledged

        case .askForContacts(let problem):
            switch answers.contacts {
            case .path(let path):
                if let problem {
                    // The step is saved, so a corrected --contacts resumes here.
                    printError("Error: could not import: \(problem)")
                    throw ExitCode.failure
                }
                return .importContacts(path: path)
            case .skip:
                return .skipContacts
            case nil:
                guard interactive else {
                    try output("Contacts: skipped (no --contacts given).")
                    return .skipContacts
                }
                try output("")
                if let problem { try output("Could not import: \(problem)") }
                try output("Import contacts")
                try output("Path to a vCard (.vcf) or CSV export, or a folder of .vcf files. Leave empty to skip.")
                let answer = try ask(">").trimmingCharacters(in: .whitespaces)
                return answer.isEmpty || answer.lowercased() == "skip" ? .skipContacts : .importContacts(path: answer)
            }

        case .importContacts(let path):
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
                report = try await importer.importPaths([path])
            } catch {
                return .importFailed(message: error.description)
            }
            try output((report.problems.map(\.description) + [ImportOutput.summary(report, dryRun: false)]).joined(separator: "\n"))
            return .importSucceeded

        case .showPrimer:
            try output("")
            try output(Self.primerTitle)
            try output(Self.primerReason)
            if let enable = answers.notifications { return enable ? .enableNotifications : .maybeLater }
            let choice = try choose("[E]nable notifications   [M]aybe later", keys: ["e": "enable", "m": "maybe later"])
            return choice == "e" ? .enableNotifications : .maybeLater

        case .probeChannel:
            let (settings, _) = try await context.settings()
            let result = await DesktopNotificationProbe(channels: settings.channels).probe()
            if !result.reachable {
                try output("Note: \(result.detail).")
                try output("If you allow notifications now, reminders are delivered quietly to the log (provisional) until a channel is reachable.")
            }
            return .channelProbed(reachable: result.reachable)

        case .askForPermission:
            if answers.notifications == true { return .permissionAnswered(allowed: true) }
            try output("")
            try output("\"birthdays\" would like to send you notifications.")
            let choice = try choose("[A]llow   [D]on't allow", keys: ["a": "allow", "d": "don't allow"])
            return .permissionAnswered(allowed: choice == "a")

        case .finish(let finish):
            try await context.database.saveOnboarding(machine)
            try output("")
            switch finish {
            case .notificationsOn(let status):
                let result = try await context.scheduler().reschedule()
                try output(
                    status == .provisional
                        ? "Notifications are on, quietly: reminders go to the log until a channel is reachable."
                        : "Notifications are on."
                )
                try showNext(result)
            case .notificationsOff(let status):
                try output(
                    status == .denied
                        ? "Notifications are off. Turn them on any time with: birthdays notifications enable"
                        : "No problem. Turn reminders on any time with: birthdays notifications enable"
                )
            case .alreadyDenied:
                try output("Notifications were turned off earlier, so you were not asked again. Turn them on with: birthdays notifications enable")
            }
            try output("You're all set.")
            return nil

        case .alreadyComplete(let status):
            try output("Onboarding is already complete (notifications: \(status.rawValue)). Change it with: birthdays notifications enable | disable")
            return nil

        case .ignored:
            return nil
        }
    }

    private func showNext(_ result: RescheduleResult) throws {
        guard !result.requests.isEmpty else {
            try output("No reminders yet: import contacts with 'birthdays import PATH'.")
            return
        }
        try output("Next reminders:")
        let rows = result.requests.prefix(5).map { [Wording.wallClock($0.fireAt, zone: result.timeZone), $0.title, $0.body] }
        try output(Table.render(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        if result.scheduled > 5 { try output("  … \(result.scheduled) pending in all (birthdays pending)") }
    }

    /// Prints `prompt`, reads one line; Ctrl-D pauses the flow.
    private func ask(_ prompt: String) throws -> String {
        try output(prompt + " ", terminator: "")
        fflush(nil)
        guard let line = readLine() else { throw Paused() }
        return line
    }

    /// Asks until the answer starts with one of `keys`; returns that key.
    private func choose(_ prompt: String, keys: [String: String]) throws -> String {
        try output(prompt)
        while true {
            let answer = try ask(">").trimmingCharacters(in: .whitespaces).lowercased()
            if let key = answer.first.map(String.init), keys[key] != nil { return key }
            try output("Please type " + keys.keys.sorted().map { $0.uppercased() }.joined(separator: " or ") + ".")
        }
    }
}
