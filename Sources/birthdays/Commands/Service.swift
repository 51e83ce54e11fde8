import ArgumentParser
import BirthdayCore
import BirthdayServer
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

        @OptionGroup var system: AllUsersServiceOptions

        func validate() throws { try system.validate(global) }

        func run() async throws {
            if system.allUsers {
                let service = try system.service(environment: ProcessInfo.processInfo.environment)
                if dryRun {
                    for unit in service.units {
                        try output("# " + service.folder + "/" + unit.name)
                        try output(unit.text, terminator: "")
                    }
                    return
                }
                try await system.install(service, start: !noStart)
                return
            }
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

        @Flag(help: "Remove the system units of 'service install --all-users' (birthdays.service, birthdays-serve.service).")
        var allUsers = false

        @Option(help: ArgumentHelp("With --all-users: the folder of the system units.", valueName: "folder"))
        var unitFolder = SystemdSystemService.defaultFolder

        func validate() throws {
            if allUsers { try GlobalOptions.refuseWithAllUsers(global) }
        }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            if allUsers {
                let service = SystemdSystemService(
                    binary: "birthdays",
                    usersRoot: "/",
                    account: "",
                    serve: nil,
                    folder: unitFolder,
                    environment: environment
                )
                let steps: [SystemdUserService.Step]
                do {
                    steps = try await service.uninstall()
                } catch {
                    throw CLIError(error.description)
                }
                try output("Removed \(SystemdSystemService.daemonUnit) and \(SystemdSystemService.serveUnit) from \(service.folder).")
                if let failure = steps.lazy.compactMap(\.failure).first {
                    // The unit files are gone, but a service systemctl could not stop may still run.
                    throw CLIError("\(failure) (the services may still run: systemctl status birthdays)")
                }
                return
            }
            // A removed user's database is named all the same: their daemon's unit is still to be removed.
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
        if let failure = steps.lazy.compactMap(\.failure).first { throw CLIError(failure) }
        try output(l(.serviceInstalled(service.unitPath)))
        try output(l(start ? .serviceStarted : .serviceEnabled))
        return start ? .started : .enabled
    }
}

/// `service install --all-users` and its options: the system units of
/// ``SystemdSystemService`` for every user of the users root.
struct AllUsersServiceOptions: ParsableArguments {
    @Flag(help: "Install system units (as root) that run 'run --all-users' (and with --serve-port 'serve --all-users') as a service account.")
    var allUsers = false

    @Option(
        help: ArgumentHelp(
            "With --all-users: the account the services run as (default: the one running this command, unless root).",
            valueName: "name"
        )
    )
    var account: String?

    @Option(help: ArgumentHelp("With --all-users: also run 'serve --all-users' on this port (birthdays-serve.service).", valueName: "port"))
    var servePort: Int?

    @Option(help: ArgumentHelp("With --serve-port: the address it listens on.", valueName: "address"))
    var serveHost = FeedServerDefaults.host

    @Option(help: ArgumentHelp("With --serve-port: the reverse proxy's IP address (serve --trusted-proxy).", valueName: "address"))
    var trustedProxy: String?

    @Option(
        help: ArgumentHelp("With --serve-port and --trusted-proxy: the header naming the user logged in (serve --user-header).", valueName: "name")
    )
    var userHeader: String?

    @Option(help: ArgumentHelp("With --all-users: the folder the system units are written to.", valueName: "folder"))
    var unitFolder = SystemdSystemService.defaultFolder

    func validate(_ global: GlobalOptions) throws {
        guard allUsers else {
            if account != nil || servePort != nil || trustedProxy != nil || userHeader != nil || serveHost != FeedServerDefaults.host
                || unitFolder != SystemdSystemService.defaultFolder
            {
                throw ValidationError("--account, --serve-port, --serve-host, --trusted-proxy, --user-header and --unit-folder go with --all-users")
            }
            return
        }
        try GlobalOptions.refuseWithAllUsers(global)
        if let account, account.isEmpty || account.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace || $0.isNewline }) {
            throw ValidationError("--account must be the name of a Unix account, not '\(SafeText.line(account))'")
        }
        if let account, let entry = getpwnam(account), entry.pointee.pw_uid == 0 {
            throw ValidationError("--account must not be root (uid 0): the services never run as root; name a service account")
        }
        guard servePort != nil || (trustedProxy == nil && userHeader == nil && serveHost == FeedServerDefaults.host) else {
            throw ValidationError("--serve-host, --trusted-proxy and --user-header go with --serve-port (the feed server's unit)")
        }
        if let servePort, !FeedAddress.ports.contains(servePort) {
            throw ValidationError("--serve-port must be between 1 and 65535, not \(servePort)")
        }
        guard FeedAddress.isHostName(serveHost) else {
            throw ValidationError("--serve-host must be an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::")
        }
        if let trustedProxy, TrustedProxy(trustedProxy) == nil {
            throw ValidationError("--trusted-proxy must be an IP address, such as 127.0.0.1 or ::1, not '\(SafeText.line(trustedProxy))'")
        }
        if let userHeader {
            guard let proxy = trustedProxy.flatMap(TrustedProxy.init) else {
                throw ValidationError("--user-header needs --trusted-proxy (the proxy whose header counts)")
            }
            if UserHeader(proxy: proxy, name: userHeader) == nil {
                throw ValidationError("--user-header must be a header's name, such as Remote-User, not '\(SafeText.line(userHeader))'")
            }
        }
    }

    /// The units for the account and the users root: `BIRTHDAYS_USERS_DIR` when set, else the root under the
    /// account's home (`~/.local/share/birthdays/users`), or this account's own root when it is the one running.
    ///
    /// - Throws: ``CLIError`` when no account is named as root, or the account does not exist.
    func service(environment: [String: String]) throws -> SystemdSystemService {
        let current = SystemdSystemService.currentAccount
        guard let name = account ?? (geteuid() == 0 ? nil : current) else {
            throw CLIError(
                "--all-users runs the services as a service account, not as root: name it with --account NAME "
                    + "(make one with: useradd --system --create-home --home-dir /var/lib/birthdays birthdays)"
            )
        }
        guard let home = SystemdSystemService.home(of: name) else {
            throw CLIError(
                "there is no account called '\(SafeText.line(name))' "
                    + "(make one with: useradd --system --create-home --home-dir /var/lib/birthdays \(SystemdUserService.shellQuoted(name)))"
            )
        }
        let root: String
        if let explicit = environment[UserLayout.rootVariable], !explicit.isEmpty {
            root = explicit
        } else if name == current {
            root = Context.users(environment).folders.root
        } else {
            root = home + "/.local/share/birthdays/" + UserLayout.rootName
        }
        return SystemdSystemService(
            binary: SystemdUserService.currentBinary(fallback: CommandLine.arguments.first ?? "birthdays"),
            usersRoot: root,
            account: name,
            serve: servePort.map { SystemdSystemService.Serve(host: serveHost, port: $0, trustedProxy: trustedProxy, userHeader: userHeader) },
            folder: unitFolder,
            environment: environment
        )
    }

    /// Writes the units and enables (with `start`, starts) them, saying what it did.
    func install(_ service: SystemdSystemService, start: Bool) async throws {
        let steps: [SystemdUserService.Step]
        do {
            steps = try await service.install(start: start)
        } catch {
            throw CLIError(error.description)
        }
        if let failure = steps.lazy.compactMap(\.failure).first { throw CLIError(failure) }
        for unit in service.units { try output("Wrote \(service.folder)/\(unit.name)") }
        try output(
            (start ? "Started" : "Enabled") + " \(service.units.map(\.name).joined(separator: " and ")) as \(service.account), "
                + "for every user of \(service.usersRoot). Add users with: sudo -u \(SystemdUserService.shellQuoted(service.account)) "
                + "BIRTHDAYS_USERS_DIR=\(SystemdUserService.shellQuoted(service.usersRoot)) birthdays users add NAME"
        )
    }
}
