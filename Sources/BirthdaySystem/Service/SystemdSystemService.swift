import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays run --all-users` (and, when asked, `birthdays serve
/// --all-users`) as systemd system services under a service account: the
/// units for every user of one users root, written with this binary's path,
/// the root and the account filled in, and the `systemctl` commands that
/// install, start and remove them (`service install --all-users`).
///
/// ## The units
/// `/etc/systemd/system/birthdays.service` runs `run --all-users` as
/// `User=ACCOUNT` with `BIRTHDAYS_USERS_DIR=ROOT`; with a port,
/// `birthdays-serve.service` runs `serve --all-users --port PORT` beside it
/// (with `--trusted-proxy` and `--user-header` when given). Both are
/// hardened as the single user's unit is (``SystemdUserService``): the
/// whole file system read-only (`ProtectSystem=strict`) except the users
/// root (the server writes there too: an invitation's answer, a feed token
/// made on first use), a /tmp of their own, no new privileges; their limit
/// of open files raised (`LimitNOFILE=`), since each user holds about eight.
/// A users root that does not exist yet is made (0700, the account's) as
/// they are installed: the services write only folders that exist as they start.
package struct SystemdSystemService: Sendable {
    /// The daemon's unit.
    package static let daemonUnit = "birthdays.service"
    /// The feed server's unit.
    package static let serveUnit = "birthdays-serve.service"
    /// Where system units go unless told otherwise.
    package static let defaultFolder = "/etc/systemd/system"

    /// What `serve --all-users` is started with.
    package struct Serve: Sendable, Equatable {
        package var host: String
        package var port: Int
        package var trustedProxy: String?
        package var userHeader: String?

        package init(host: String, port: Int, trustedProxy: String? = nil, userHeader: String? = nil) {
            self.host = host
            self.port = port
            self.trustedProxy = trustedProxy
            self.userHeader = userHeader
        }
    }

    /// The `birthdays` binary the units run (absolute).
    package let binary: String
    /// The users root (absolute).
    package let usersRoot: String
    /// The Unix account the services run as.
    package let account: String
    /// The feed server's options, or `nil` for no feed server.
    package let serve: Serve?
    /// The folder the units are written to (absolute).
    package let folder: String
    private let environment: [String: String]

    package init(binary: String, usersRoot: String, account: String, serve: Serve?, folder: String = defaultFolder, environment: [String: String]) {
        self.binary = SystemdUserService.absolute(binary)
        self.usersRoot = SystemdUserService.absolute(usersRoot)
        self.account = account
        self.serve = serve
        self.folder = SystemdUserService.absolute(folder)
        self.environment = environment
    }

    /// The home folder of `account`, from the password database; `nil` for no such account.
    package static func home(of account: String) -> String? {
        guard let entry = getpwnam(account), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }

    /// The name of the account this process runs as.
    package static var currentAccount: String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// The units written, by name, with their text: the daemon's, then the feed server's when asked.
    package var units: [(name: String, text: String)] {
        [(Self.daemonUnit, daemonText)] + (serve.map { [(Self.serveUnit, serveText($0))] } ?? [])
    }

    /// The daemon's arguments after the binary.
    package var daemonArguments: [String] { ["run", "--all-users"] }

    /// The feed server's arguments after the binary.
    package func serveArguments(_ serve: Serve) -> [String] {
        var arguments = ["serve", "--all-users", "--host", serve.host, "--port", String(serve.port)]
        if let proxy = serve.trustedProxy { arguments += ["--trusted-proxy", proxy] }
        if let header = serve.userHeader { arguments += ["--user-header", header] }
        return arguments
    }

    private var daemonText: String {
        unit(
            description: "Birthday reminders for every user (birthdays run --all-users)",
            arguments: daemonArguments,
            drop: "birthdays"
        )
    }

    private func serveText(_ serve: Serve) -> String {
        unit(
            description: "Birthday pages and feeds for every user (birthdays serve --all-users)",
            arguments: serveArguments(serve),
            drop: "birthdays-serve"
        )
    }

    /// The first line of every unit written here, up to the users root.
    static let writtenFor = "# Written by `birthdays service install --all-users` for the users root "

    /// The folders the services write: the users root, and the folder it leads to when it is a link.
    package var writablePaths: [String] {
        var paths = [usersRoot]
        if let real = realpath(usersRoot, nil) {
            defer { free(real) }
            let target = String(cString: real)
            if target != usersRoot { paths.append(target) }
        }
        return paths
    }

    private func unit(description: String, arguments: [String], drop: String) -> String {
        let root = writablePaths.map { SystemdUserService.quoted("-" + $0) }.joined(separator: " ")
        return """
            \(Self.writtenFor)\(SystemdUserService.comment(usersRoot)).
            # `birthdays service uninstall --all-users` removes it; add users with:
            #   sudo -u \(SystemdUserService.comment(account)) BIRTHDAYS_USERS_DIR=\(SystemdUserService.comment(SystemdUserService.shellQuoted(usersRoot))) birthdays users add NAME
            [Unit]
            Description=\(description)
            After=network-online.target
            Wants=network-online.target

            [Service]
            Type=exec
            User=\(SystemdUserService.quoted(account))
            UMask=0077
            Environment=\(SystemdUserService.quoted(UserLayout.rootVariable + "=" + usersRoot, variables: false))
            ExecStart=\(([binary] + arguments).map { SystemdUserService.quoted($0) }.joined(separator: " "))
            ExecReload=/bin/kill -HUP $MAINPID
            Restart=on-failure
            RestartSec=30
            # Each user holds about eight open files (their database, its log, their watch).
            LimitNOFILE=65536
            # Hardening: it writes only in the users root (each user's database, its journal and lock).
            # The account's home stays readable (~/.msmtprc, a password store). When a sendmail or a
            # token command must write elsewhere, add the folders in a drop-in:
            #   systemctl edit \(drop)   then   [Service]  ReadWritePaths=-%h/.gnupg
            NoNewPrivileges=yes
            \(SystemdUserService.isTemporary(usersRoot) ? "# PrivateTmp is off: the users root is in a temporary folder." : "PrivateTmp=yes")
            ProtectSystem=strict
            ReadWritePaths=\(root)

            [Install]
            WantedBy=multi-user.target

            """
    }

    /// The users root an installed daemon's unit runs, as its first line names it; `nil` when none is installed
    /// here or its first line names none (one written by hand).
    package var installedRoot: String? {
        guard let text = try? String(contentsOfFile: folder + "/" + Self.daemonUnit, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(Self.writtenFor) }), line.hasSuffix(".")
        else { return nil }
        return String(line.dropFirst(Self.writtenFor.count).dropLast())
    }

    /// Writes the units, reloads the manager and enables them (starting them now with `start`); a unit that was
    /// installed with another text is restarted if it runs (`try-restart`), so it runs the new one. A feed server's
    /// unit left from an earlier install that asked for one is removed when this one does not.
    ///
    /// - Returns: the `systemctl` commands run, with their results; it stops at the first that fails.
    /// - Throws: ``ServiceError`` when a unit cannot be written or systemctl is missing.
    package func install(start: Bool) async throws(ServiceError) -> [SystemdUserService.Step] {
        guard let systemctl = SystemCommand.find("systemctl", environment: environment) else { throw .noSystemctl }
        try makeRoot()
        var changed: [String] = []
        for unit in units {
            let path = folder + "/" + unit.name
            if let before = try? String(contentsOfFile: path, encoding: .utf8), before != unit.text { changed.append(unit.name) }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(unit.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                // Unit files are read by systemd and by anyone: they hold no secret.
                _ = chmod(path, 0o644)
            } catch {
                throw .cannotWrite(path: path, reason: error.localizedDescription + Self.asRoot)
            }
        }
        var commands: [[String]] = []
        let stale = folder + "/" + Self.serveUnit
        if serve == nil, FileManager.default.fileExists(atPath: stale) {
            commands.append(["disable", "--now", Self.serveUnit])
            do {
                try FileManager.default.removeItem(atPath: stale)
            } catch {
                throw .cannotWrite(path: stale, reason: error.localizedDescription + Self.asRoot)
            }
        }
        commands += [["daemon-reload"], ["enable"] + (start ? ["--now"] : []) + units.map(\.name)]
        if !changed.isEmpty { commands.append(["try-restart"] + changed) }
        return await run(commands, systemctl: systemctl)
    }

    /// Makes the users root when it is missing (0700, the account's): the services may write only folders that
    /// exist as they start (`ReadWritePaths=`), so the daemon could not make it itself. A missing folder above
    /// it is made too: the account's (0700) inside the account's home, which is theirs; anywhere else this
    /// process's (root's), 0755, so that the account is given no folder outside its own.
    private func makeRoot() throws(ServiceError) {
        guard let entry = getpwnam(account) else { throw .cannotWrite(path: usersRoot, reason: "there is no account called '\(account)'") }
        let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        let home = entry.pointee.pw_dir.map { String(cString: $0) }.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        var missing: [String] = []
        var folder = usersRoot
        var info = stat()
        while folder != "/", !folder.isEmpty, stat(folder, &info) != 0 {
            missing.insert(folder, at: 0)
            folder = (folder as NSString).deletingLastPathComponent
        }
        for path in missing {
            let accounts = path == usersRoot || home.map { $0 != "/" && path.hasPrefix($0) } == true
            let mode: mode_t = accounts ? 0o700 : 0o755
            guard mkdir(path, mode) == 0 || errno == EEXIST else {
                throw .cannotWrite(path: path, reason: String(cString: strerror(errno)) + Self.asRoot)
            }
            _ = chmod(path, mode)
            guard !accounts || chown(path, uid, gid) == 0 else {
                throw .cannotWrite(path: path, reason: String(cString: strerror(errno)) + Self.asRoot)
            }
        }
    }

    /// Stops and disables both services and removes their unit files.
    ///
    /// - Throws: ``ServiceError`` when systemctl is missing or a unit file cannot be removed.
    package func uninstall() async throws(ServiceError) -> [SystemdUserService.Step] {
        guard let systemctl = SystemCommand.find("systemctl", environment: environment) else { throw .noSystemctl }
        let installed = [Self.daemonUnit, Self.serveUnit].filter { FileManager.default.fileExists(atPath: folder + "/" + $0) }
        var steps = installed.isEmpty ? [] : await run([["disable", "--now"] + installed], systemctl: systemctl)
        for name in installed {
            do {
                try FileManager.default.removeItem(atPath: folder + "/" + name)
            } catch {
                throw .cannotWrite(path: folder + "/" + name, reason: error.localizedDescription + Self.asRoot)
            }
        }
        steps += await run([["daemon-reload"]], systemctl: systemctl)
        return steps
    }

    /// Said after a unit that could not be written: system units are root's.
    private static var asRoot: String { geteuid() == 0 ? "" : " (system units are written as root: sudo birthdays service install --all-users)" }

    private func run(_ commands: [[String]], systemctl: String) async -> [SystemdUserService.Step] {
        var steps: [SystemdUserService.Step] = []
        for arguments in commands {
            let result = await SystemCommand.run([systemctl] + arguments, environment: environment)
            steps.append(SystemdUserService.Step(command: (["systemctl"] + arguments).joined(separator: " "), result: result))
            if result.status != 0 { break }
        }
        return steps
    }
}
