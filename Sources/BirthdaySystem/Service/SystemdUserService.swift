import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays run` as a systemd user service, for one database: the unit
/// file, written with this binary's path and the database filled in, and
/// the `systemctl --user` commands that install, start and remove it; or,
/// where no systemd user manager runs (a container, WSL, a system without
/// systemd), the exact commands to start the daemon by hand.
///
/// ## The unit
/// `$XDG_CONFIG_HOME/systemd/user/birthdays.service` (normally
/// `~/.config/systemd/user/`): `ExecStart=<binary> run --database <database>`
/// (for a user's database `run --user NAME`, the users root in
/// `BIRTHDAYS_USERS_DIR`, so that a removed user's daemon stops instead of
/// making the user again),
/// restarted on failure, reloaded with SIGHUP, and hardened: the whole file
/// system is read-only for it (`ProtectSystem=strict`) except the folder of
/// the database, where SQLite writes its journal and the daemon its lock;
/// the folder of the file a symbolic link leads to as well. `PrivateTmp=`
/// gives it a /tmp of its own, unless the database lives in /tmp.
/// The home folder stays readable (no `ProtectHome=`): a sendmail such as
/// msmtp reads `~/.msmtprc`, and a token command reads its password store.
/// A tool that must write elsewhere (a password manager's agent starting
/// its socket, a mail queue) needs a drop-in with `ReadWritePaths=`; the
/// unit's comments and the README say how.
package struct SystemdUserService: Sendable {
    /// The unit's name.
    package static let unitName = "birthdays.service"

    /// The `birthdays` binary the unit runs (absolute).
    package let binary: String
    /// The database the daemon delivers from (absolute).
    package let database: String
    /// The user whose database it is, or `nil`.
    package let user: UserName?
    /// The users root the user is in (absolute), with ``user``.
    package let usersRoot: String?
    private let environment: [String: String]

    /// - Parameters:
    ///   - binary: the executable; made absolute.
    ///   - database: the database file; made absolute.
    ///   - user: the user whose database it is and the users root, when it is one's.
    ///   - environment: where `HOME`, `XDG_CONFIG_HOME`, `XDG_RUNTIME_DIR` and `PATH` come from.
    package init(binary: String, database: String, user: (name: UserName, root: String)? = nil, environment: [String: String]) {
        self.binary = Self.absolute(binary)
        self.database = Self.absolute(database)
        self.user = user?.name
        self.usersRoot = user.map { Self.absolute($0.root) }
        self.environment = environment
    }

    /// The daemon's arguments after the binary: `run --database <database>`,
    /// or `run --user NAME` for a user's database (which checks that the
    /// user exists at every start).
    package var daemonArguments: [String] {
        if let user { return ["run", "--user", user.rawValue] }
        return ["run", "--database", database]
    }

    /// What the daemon's environment must hold besides the caller's: the
    /// users root of a user's daemon.
    package var daemonEnvironment: [String: String] {
        usersRoot.map { [UserLayout.rootVariable: $0] } ?? [:]
    }

    /// This process's executable (`/proc/self/exe`), else `fallback`.
    package static func currentBinary(fallback: String) -> String {
        guard let real = realpath("/proc/self/exe", nil) else { return fallback }
        defer { free(real) }
        return String(cString: real)
    }

    /// Where the unit file goes.
    package var unitPath: String {
        let config: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            config = home + "/.config"
        }
        return config + "/systemd/user/" + Self.unitName
    }

    /// Whether the unit file exists.
    package var isInstalled: Bool { FileManager.default.fileExists(atPath: unitPath) }

    /// The folders the daemon writes: the database's, and the folder of the
    /// file it links to when that is elsewhere.
    package var writablePaths: [String] {
        let folder = (database as NSString).deletingLastPathComponent
        var paths = [folder]
        if let real = realpath(database, nil) {
            defer { free(real) }
            let target = (String(cString: real) as NSString).deletingLastPathComponent
            if target != folder { paths.append(target) }
        }
        return paths
    }

    /// The unit file's text.
    package var unitText: String {
        """
        \(Self.writtenFor)\(Self.comment(database)).
        # `birthdays service uninstall` removes it; `birthdays status` shows how it runs.
        [Unit]
        Description=Birthday reminders (birthdays run)
        After=graphical-session.target dbus.socket

        [Service]
        Type=exec
        \(environmentLines)\
        ExecStart=\(([binary] + daemonArguments).map { Self.quoted($0) }.joined(separator: " "))
        ExecReload=/bin/kill -HUP $MAINPID
        Restart=on-failure
        RestartSec=30
        # Hardening: it writes only next to its database (the journal and the daemon lock).
        # The home folder stays readable (~/.msmtprc, a password store). When a sendmail or a
        # token command must write elsewhere, add the folders in a drop-in:
        #   systemctl --user edit birthdays   then   [Service]  ReadWritePaths=-%h/.gnupg
        NoNewPrivileges=yes
        \(writablePaths.contains(where: Self.isTemporary) ? "# PrivateTmp is off: the database is in a temporary folder." : "PrivateTmp=yes")
        ProtectSystem=strict
        ReadWritePaths=\(writablePaths.map { Self.quoted("-" + $0) }.joined(separator: " "))

        [Install]
        WantedBy=default.target

        """
    }

    /// The unit's first line up to its database (``installedDatabase``).
    static let writtenFor = "# Written by `birthdays service install` for "

    /// The database the installed unit runs, as its first line names it;
    /// `nil` when no unit is installed or its first line names none (one
    /// written by hand).
    package var installedDatabase: String? {
        guard let text = try? String(contentsOfFile: unitPath, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(Self.writtenFor) }), line.hasSuffix(".")
        else { return nil }
        return String(line.dropFirst(Self.writtenFor.count).dropLast())
    }

    /// The database the installed unit runs when it is not this one (by
    /// name, nor the same file under another name); `nil` when it is this
    /// one or none is installed.
    package var otherInstalledDatabase: String? {
        guard let installed = installedDatabase, installed != database else { return nil }
        var theirs = stat()
        var ours = stat()
        if stat(installed, &theirs) == 0, stat(database, &ours) == 0, theirs.st_dev == ours.st_dev, theirs.st_ino == ours.st_ino { return nil }
        return installed
    }

    /// Whether `path` is in a folder `PrivateTmp=` would hide from the service.
    static func isTemporary(_ path: String) -> Bool {
        ["/tmp", "/var/tmp"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// Whether a systemd user manager answers here (`systemctl --user show-environment` succeeds).
    package func managerAvailable() async -> Bool {
        guard let systemctl = SystemCommand.find("systemctl", environment: environment) else { return false }
        return await SystemCommand.run([systemctl, "--user", "show-environment"], environment: environment).status == 0
    }

    /// What ``install(start:)`` did.
    package struct Step: Sendable, Equatable {
        /// The command as a user would type it.
        package var command: String
        package var result: SystemCommand.Result

        /// What went wrong, as one line ("COMMAND failed: its output", or its exit status when it said
        /// nothing), or `nil` when the command succeeded.
        package var failure: String? {
            guard result.status != 0 else { return nil }
            return "\(command) failed: " + (result.output.isEmpty ? "exit status \(result.status)" : result.output)
        }
    }

    /// Writes the unit, reloads the manager and enables the service
    /// (starting it now with `start`). Stops at the first command that fails.
    ///
    /// - Returns: the `systemctl` commands run, with their results.
    /// - Throws: ``ServiceError`` when the unit file cannot be written or
    ///   systemctl is missing, or the installed unit runs another database
    ///   (one unit per account runs one database: it is not replaced).
    package func install(start: Bool) async throws(ServiceError) -> [Step] {
        if let other = otherInstalledDatabase { throw .anotherDatabase(installed: other, asked: database, removing: false) }
        guard let systemctl = SystemCommand.find("systemctl", environment: environment) else { throw .noSystemctl }
        let folder = (unitPath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(unitText.utf8).write(to: URL(fileURLWithPath: unitPath), options: .atomic)
        } catch {
            throw .cannotWrite(path: unitPath, reason: error.localizedDescription)
        }
        let commands = [["--user", "daemon-reload"], ["--user", "enable"] + (start ? ["--now"] : []) + [Self.unitName]]
        return await run(commands, systemctl: systemctl)
    }

    /// Stops and disables the service and removes the unit file.
    ///
    /// - Throws: ``ServiceError`` when systemctl is missing, the unit file
    ///   cannot be removed, or the installed unit runs another database (it is left alone).
    package func uninstall() async throws(ServiceError) -> [Step] {
        if let other = otherInstalledDatabase { throw .anotherDatabase(installed: other, asked: database, removing: true) }
        guard let systemctl = SystemCommand.find("systemctl", environment: environment) else { throw .noSystemctl }
        var steps = await run([["--user", "disable", "--now", Self.unitName]], systemctl: systemctl)
        if isInstalled {
            do {
                try FileManager.default.removeItem(atPath: unitPath)
            } catch {
                throw .cannotWrite(path: unitPath, reason: error.localizedDescription)
            }
        }
        steps += await run([["--user", "daemon-reload"]], systemctl: systemctl)
        return steps
    }

    private func run(_ commands: [[String]], systemctl: String) async -> [Step] {
        var steps: [Step] = []
        for arguments in commands {
            let result = await SystemCommand.run([systemctl] + arguments, environment: environment)
            steps.append(Step(command: (["systemctl"] + arguments).joined(separator: " "), result: result))
            if result.status != 0 { break }
        }
        return steps
    }

    /// Where a daemon started without systemd logs: next to the database.
    package var logPath: String { (database as NSString).deletingLastPathComponent + "/birthdays-run.log" }

    /// The commands that start the daemon by hand where no systemd user
    /// manager runs: in the background, its log next to the database.
    package var manualCommand: String {
        "\(shellPrefix)nohup \(shellCommand) >>\(Self.shellQuoted(logPath)) 2>&1 &"
    }

    /// A crontab line (`crontab -e`) that starts the daemon at every boot,
    /// where no systemd user manager runs: `%`, which cron turns into a new
    /// line, is escaped.
    package var cronLine: String {
        let command = "\(shellPrefix)\(shellCommand) >>\(Self.shellQuoted(logPath)) 2>&1"
        return "@reboot " + command.replacingOccurrences(of: "%", with: "\\%")
    }

    /// ``daemonEnvironment`` as the unit's `Environment=` lines, each ending in a new line.
    private var environmentLines: String {
        daemonEnvironment.sorted { $0.key < $1.key }.map { "Environment=" + Self.quoted($0.key + "=" + $0.value, variables: false) + "\n" }.joined()
    }

    /// The daemon for `/bin/sh`: the binary and ``daemonArguments``.
    private var shellCommand: String { ([binary] + daemonArguments).map(Self.shellQuoted).joined(separator: " ") }

    /// ``daemonEnvironment`` as assignments before a command for `/bin/sh`, each followed by a space.
    private var shellPrefix: String {
        daemonEnvironment.sorted { $0.key < $1.key }.map { $0.key + "=" + Self.shellQuoted($0.value) + " " }.joined()
    }

    /// `path` made absolute against the working folder, `..` and `.` removed.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (full as NSString).standardizingPath
    }

    /// A word for a unit file: `%` and `$` escaped (specifiers, variables;
    /// `variables: false` where systemd expands none, as in `Environment=`),
    /// in double quotes with `"` and `\` escaped when it has spaces or quotes.
    static func quoted(_ text: String, variables: Bool = true) -> String {
        var escaped = text.replacingOccurrences(of: "%", with: "%%")
        if variables { escaped = escaped.replacingOccurrences(of: "$", with: "$$") }
        guard escaped.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || $0 == "'" || $0 == "\t" }) else { return escaped }
        escaped = escaped.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + escaped + "\""
    }

    /// `text` for a comment line: one line.
    static func comment(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// `text` as one word for `/bin/sh`.
    package static func shellQuoted(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "/._-+:@=,".contains($0) }) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The service could not be installed or removed.
package enum ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSystemctl
    case cannotWrite(path: String, reason: String)
    /// The installed unit runs `installed`, not `asked`: one unit per
    /// account runs one database, so it is neither replaced nor (`removing`) removed.
    case anotherDatabase(installed: String, asked: String, removing: Bool)

    package var description: String {
        switch self {
        case .noSystemctl: "systemctl is not installed, so there is no systemd user service to manage"
        case .anotherDatabase(let installed, let asked, false):
            "\(SystemdUserService.unitName) already runs the database \(installed); one unit per account runs one database, "
                + "so it is not replaced for \(asked) (until one daemon runs every user's)"
        case .anotherDatabase(let installed, let asked, true):
            "\(SystemdUserService.unitName) runs the database \(installed), not \(asked); one unit per account runs one database, "
                + "so it is left alone (birthdays service uninstall --database \(SystemdUserService.shellQuoted(installed)) removes it)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
