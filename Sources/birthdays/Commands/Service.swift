import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct ServiceCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service",
            _superCommandName: "birthdays",
            abstract: "Keep 'birthdays run' running: install or remove it as a systemd user service.",
            discussion: """
                'install' writes ~/.config/systemd/user/birthdays.service with this binary and the database filled in, \
                then runs 'systemctl --user enable --now birthdays.service'. Where no systemd user manager runs, it prints \
                the command that starts the daemon by hand instead.
                """,
            subcommands: [ServiceInstall.self, ServiceUninstall.self]
        )
    }
}

extension BirthdaysCommand.ServiceCommand {
    struct ServiceInstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install",
            abstract: "Install and start birthdays run as a systemd user service (or print how to start it without systemd)."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Enable it without starting it now.")
        var noStart = false

        @Flag(help: "Print the unit file and the commands, change nothing.")
        var dryRun = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let service = context.userService()
            if dryRun {
                try output("# " + service.unitPath)
                try output(service.unitText, terminator: "")
                return
            }
            try await ServiceSetup.install(service, start: !noStart, trial: context.isTrial, localizer: try await context.localizer())
        }
    }

    struct ServiceUninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "uninstall",
            abstract: "Stop and disable the systemd user service and remove its unit file."
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            // A removed user's database is named all the same: their daemon's unit is still to be removed.
            let environment = ProcessInfo.processInfo.environment
            let (database, user) = try Context.database(global, environment: environment, checkingUser: false)
            let service = Context.userService(database: database, user: user, environment: environment)
            let steps: [SystemdUserService.Step]
            do {
                steps = try await service.uninstall()
            } catch {
                throw CLIError(error.description)
            }
            for step in steps where step.result.status != 0 {
                printError("\(step.command): \(step.result.output)")
            }
            let context = try? Context(global, readOnly: true, emptyIfMissing: true)
            let localizer = try? await context?.localizer()
            let l = localizer ?? Localizer(setting: nil, systemLocale: Language.fromEnvironment(environment))
            try output(l(.serviceRemoved(service.unitPath)))
        }
    }
}

extension Context {
    /// The systemd user service for this database (this user's) and this binary.
    func userService() -> SystemdUserService {
        Context.userService(database: databasePath, user: user, environment: environment)
    }

    /// The systemd user service for `database` of `user` (in the users
    /// root `environment` names) and this binary.
    static func userService(database: String, user: UserName?, environment: [String: String]) -> SystemdUserService {
        SystemdUserService(
            binary: SystemdUserService.currentBinary(fallback: CommandLine.arguments.first ?? "birthdays"),
            database: database,
            user: user.map { ($0, users(environment).folders.root) },
            environment: environment
        )
    }

    /// Whether this is a trial at pretend time: BIRTHDAYS_NOW is set and
    /// BIRTHDAYS_NOW_WRITES=1 is not (then commands that write work on a copy).
    var isTrial: Bool { Context.isTrial(environment) }
}

/// Installing the service, shared by `service install` and the onboarding.
enum ServiceSetup {
    /// What happened.
    enum Outcome {
        case started
        case enabled
        case manual
        case skippedForTrial
    }

    /// Installs and (with `start`) starts the service, printing what it
    /// did in the localizer's language; without a systemd user manager,
    /// prints the command that starts the daemon by hand. At pretend time
    /// nothing is installed.
    ///
    /// - Throws: ``CLIError`` when writing the unit or a systemctl command
    ///   failed (with what systemctl said).
    @discardableResult
    ///
    /// - Parameter managerAvailable: whether a systemd user manager answers,
    ///   when the caller asked already; `nil` to ask.
    static func install(
        _ service: SystemdUserService,
        start: Bool,
        trial: Bool,
        managerAvailable: Bool? = nil,
        localizer l: Localizer
    ) async throws -> Outcome {
        if trial {
            try output(l(.serviceTrial))
            return .skippedForTrial
        }
        let available: Bool
        if let managerAvailable { available = managerAvailable } else { available = await service.managerAvailable() }
        guard available else {
            try output(l(.serviceManual))
            try output("  " + service.manualCommand)
            return .manual
        }
        let steps: [SystemdUserService.Step]
        do {
            steps = try await service.install(start: start)
        } catch {
            throw CLIError(error.description)
        }
        if let failed = steps.first(where: { $0.result.status != 0 }) {
            throw CLIError("\(failed.command) failed: \(failed.result.output.isEmpty ? "exit status \(failed.result.status)" : failed.result.output)")
        }
        try output(l(.serviceInstalled(service.unitPath)))
        try output(l(start ? .serviceStarted : .serviceEnabled))
        return start ? .started : .enabled
    }
}
