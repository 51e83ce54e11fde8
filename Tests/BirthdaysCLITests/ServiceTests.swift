import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays service install`: a unit systemd accepts, for the database in
/// use; without a systemd user manager, the exact command instead; and
/// `status` saying how to start a daemon that is not running.
@Suite struct ServiceTests {
    /// The unit for a database in a folder of its own passes `systemd-analyze verify`,
    /// runs this binary on that database, and may write only that folder.
    @Test(.enabled(if: SystemTools.path("systemd-analyze") != nil, "needs systemd-analyze (apt: systemd)"))
    func theUnitFollowsTheDatabaseAndSystemdAcceptsIt() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("my data")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        cli.extraEnvironment["BIRTHDAYS_DATABASE"] = folder + "/b%irthdays.sqlite"
        try await Seed.twoPeople(cli)
        let dryRun = try await cli.run("service", "install", "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let lines = dryRun.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "# \(cli.path(".config/systemd/user/birthdays.service"))")
        let unit = lines.dropFirst().joined(separator: "\n")
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
        #expect(unit.contains("\nExecStart=\(binary) run --database \"\(folder)/b%%irthdays.sqlite\"\n"), "\(unit)")
        #expect(unit.contains("\nReadWritePaths=\"-\(folder)\"\n"))
        #expect(unit.contains("\nProtectSystem=strict\n"))
        // The e-mail channel's msmtp reads ~/.msmtprc: the home folder stays readable, and the unit says how to open more.
        #expect(!unit.contains("ProtectHome"))
        #expect(unit.contains("#   systemctl --user edit birthdays   then   [Service]  ReadWritePaths=-%h/.gnupg\n"))
        #expect(!FileManager.default.fileExists(atPath: cli.path(".config")), "a dry run writes nothing")

        let file = try cli.write("birthdays.service", unit)
        let verify = try await TestProcess.run(["/usr/bin/env", "systemd-analyze", "verify", file], environment: ["PATH": "/usr/bin:/bin"])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "systemd has no objection: \(verify.stderr)")
    }

    /// No systemd user manager answers (as in a container): `service install`
    /// prints the exact command and writes nothing (onboarding starts the
    /// daemon itself then: OnboardingDetachedDaemonTests).
    @Test func withoutSystemdTheCommandIsPrinted() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        // A systemctl that finds no user manager, as on a machine without a login session.
        let folder = cli.path("no-manager")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n".write(
            toFile: folder + "/systemctl",
            atomically: true,
            encoding: .utf8
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/systemctl")
        cli.extraEnvironment["PATH"] = folder + ":/usr/bin:/bin"

        let result = try await cli.run("service", "install")
        #expect(result.status == 0, "\(result.stderr)")
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
        #expect(result.stdout.contains("No systemd user manager runs here, so start the daemon yourself"))
        #expect(result.stdout.contains("\n  nohup \(binary) run --database \(cli.databasePath) >>\(cli.path("birthdays-run.log")) 2>&1 &\n"))
        #expect(!FileManager.default.fileExists(atPath: cli.path(".config/systemd/user/birthdays.service")))

        let status = try await cli.run("status")
        #expect(
            status.stdout.hasPrefix("Daemon: not running; reminders are delivered only while it runs, so start it with: birthdays service install")
        )
    }

    /// One unit per account runs one database (until one daemon runs every
    /// user's): installing it for another database, by `service install` or
    /// onboarding, or removing it naming another, is refused with one line
    /// that names the database it runs, and changes nothing; the same
    /// database again is fine.
    @Test func theUnitOfAnotherDatabaseIsNeitherReplacedNorRemoved() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users")
        try await Seed.twoPeople(cli)
        let systemctl = try FakeSystemctl(in: cli)
        cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
        #expect(try await cli.run("users", "add", "bob").status == 0)
        let unitPath = cli.path(".config/systemd/user/birthdays.service")
        let installed = try await cli.run("service", "install")
        #expect(installed.status == 0, "\(installed.stderr)")
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        let again = try await cli.run("service", "install")
        #expect(again.status == 0, "the same database again: \(again.stderr)")
        let calls = try systemctl.calls()

        let bob = cli.path("users/bob/birthdays.sqlite")
        let notReplaced =
            "Error: birthdays.service already runs the database \(cli.databasePath); one unit per account runs one database, "
            + "so it is not replaced for \(bob) (until one daemon runs every user's)\n"
        let refused = try await cli.run("--user", "bob", "service", "install")
        #expect(refused.status == 1 && refused.stderr == notReplaced, "\(refused.stderr)")
        let onboarded = try await cli.run("--user", "bob", "onboard", "--no-contacts", "--enable-notifications", "--service")
        #expect(onboarded.stderr.contains(notReplaced), "\(onboarded.stderr)")
        #expect(!onboarded.stdout.contains("You're all set."), "\(onboarded.stdout)")
        let removing = try await cli.run("service", "uninstall", "--user", "bob")
        #expect(
            removing.status == 1
                && removing.stderr == "Error: birthdays.service runs the database \(cli.databasePath), not \(bob); one unit per account runs one "
                    + "database, so it is left alone (birthdays service uninstall --database \(cli.databasePath) removes it)\n",
            "\(removing.stderr)"
        )
        #expect(try String(contentsOfFile: unitPath, encoding: .utf8) == unit)
        #expect(try systemctl.calls().filter { !$0.hasSuffix("show-environment") } == calls.filter { !$0.hasSuffix("show-environment") })

        #expect(try await cli.run("service", "uninstall").status == 0)
        #expect(!FileManager.default.fileExists(atPath: unitPath))
        let bobs = try await cli.run("--user", "bob", "service", "install")
        #expect(bobs.status == 0, "with none installed, bob's is: \(bobs.stderr)")
        #expect(try String(contentsOfFile: unitPath, encoding: .utf8).contains(" run --user bob\n"))
    }

    /// `service install --all-users` writes the system units for a service
    /// account: `run --all-users` (and with `--serve-port`, `serve
    /// --all-users` with the proxy's options) as that account, the users
    /// root in their environment and the only folder they write, hardened as
    /// the single user's unit; systemd accepts them. Installed again without
    /// a port, the feed server's unit goes; `service uninstall --all-users`
    /// removes both. The single user's unit is not touched.
    @Test func theAllUsersUnitsRunEveryUserAsAServiceAccount() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        let root = cli.path("srv users")
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = root
        let systemctl = try FakeSystemctl(in: cli)
        cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
        let units = cli.path("system")
        // The services never run as root: daemon (a system account) when root runs the test.
        let entry = try #require(geteuid() == 0 ? getpwnam("daemon") : getpwuid(geteuid()))
        let account = String(cString: entry.pointee.pw_name)
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path

        let dryRun = try await cli.run("service", "install", "--all-users", "--account", account, "--unit-folder", units, "--dry-run")
        #expect(dryRun.status == 0 && dryRun.stdout.hasPrefix("# \(units)/birthdays.service\n"), "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(!dryRun.stdout.contains("birthdays-serve.service\n"), "no feed server unless asked")
        #expect(!FileManager.default.fileExists(atPath: units), "a dry run writes nothing")

        let installed = try await cli.run(
            "service",
            "install",
            "--all-users",
            "--account",
            account,
            "--unit-folder",
            units,
            "--serve-port",
            "8485",
            "--trusted-proxy",
            "127.0.0.1",
            "--user-header",
            "Remote-User"
        )
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.contains("Started birthdays.service and birthdays-serve.service as \(account), for every user of \(root)."))
        let daemon = try String(contentsOfFile: units + "/birthdays.service", encoding: .utf8)
        let serve = try String(contentsOfFile: units + "/birthdays-serve.service", encoding: .utf8)
        for unit in [daemon, serve] {
            #expect(unit.contains("\nUser=\(account)\n"), "\(unit)")
            #expect(unit.contains("\nEnvironment=\"BIRTHDAYS_USERS_DIR=\(root)\"\n"))
            #expect(unit.contains("\nReadWritePaths=\"-\(root)\"\n"))
            #expect(unit.contains("\nProtectSystem=strict\n") && unit.contains("\nNoNewPrivileges=yes\n") && unit.contains("\nUMask=0077\n"))
            // A users root in /tmp (this test's) is hidden by PrivateTmp=, so it is off then.
            #expect(unit.contains("\nPrivateTmp=yes\n") != (root.hasPrefix("/tmp/") || root.hasPrefix("/var/tmp/")), "\(unit)")
            #expect(unit.contains("\nLimitNOFILE=65536\n") && unit.contains("\nWantedBy=multi-user.target\n"))
        }
        #expect(daemon.contains("\nExecStart=\(binary) run --all-users\n"))
        #expect(
            serve.contains(
                "\nExecStart=\(binary) serve --all-users --host 127.0.0.1 --port 8485 --trusted-proxy 127.0.0.1 --user-header Remote-User\n"
            )
        )
        #expect(try systemctl.calls() == ["daemon-reload", "enable --now birthdays.service birthdays-serve.service"])
        // The services write only folders that exist as they start: the root is made, 0700, the account's.
        var info = stat()
        #expect(stat(root, &info) == 0 && info.st_mode & 0o7777 == 0o700 && info.st_uid == entry.pointee.pw_uid)
        #expect(!FileManager.default.fileExists(atPath: cli.path(".config/systemd/user/birthdays.service")))

        if SystemTools.path("systemd-analyze") != nil {
            let verify = try await TestProcess.run(
                ["/usr/bin/env", "systemd-analyze", "verify", units + "/birthdays.service", units + "/birthdays-serve.service"],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            #expect(verify.status == 0 && verify.stderr.isEmpty, "systemd has no objection: \(verify.stderr)")
        }

        let again = try await cli.run("service", "install", "--all-users", "--account", account, "--unit-folder", units, "--no-start")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: units + "/birthdays-serve.service"), "a feed server no longer asked for is removed")
        #expect(Array(try systemctl.calls().dropFirst(2)) == ["disable --now birthdays-serve.service", "daemon-reload", "enable birthdays.service"])

        let removed = try await cli.run("service", "uninstall", "--all-users", "--unit-folder", units)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: units).isEmpty)
        #expect(Array(try systemctl.calls().suffix(2)) == ["disable --now birthdays.service", "daemon-reload"])
    }

    /// A users root whose folders above are missing: the root is made the account's (0700), the folders above
    /// it outside the account's home this process's, 0755. A root that is a link: the folder it leads to is
    /// writable too. Installed again with a changed unit, a running one is restarted; an uninstall whose
    /// `systemctl disable` fails says so, exit 1.
    @Test func theAllUsersUnitsMakeOnlyTheRootTheAccountsAndRestartWhenChanged() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        // Another account than this one, which may be root: daemon (a system account) when root runs the test.
        let entry = try #require(geteuid() == 0 ? getpwnam("daemon") : getpwuid(geteuid()))
        let account = String(cString: entry.pointee.pw_name)
        let home = String(cString: entry.pointee.pw_dir)
        try #require(!cli.path("").hasPrefix(home + "/"), "the test folder is outside \(account)'s home")
        let root = cli.path("srv/birthdays/users")
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = root
        let systemctl = try FakeSystemctl(in: cli)
        cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
        let units = cli.path("system")
        let install = { (port: String) in
            try await cli.run("service", "install", "--all-users", "--account", account, "--unit-folder", units, "--serve-port", port)
        }
        let first = try await install("8485")
        #expect(first.status == 0, "\(first.stderr)")
        var info = stat()
        #expect(stat(root, &info) == 0 && info.st_mode & 0o7777 == 0o700 && info.st_uid == entry.pointee.pw_uid, "the root is the account's")
        for parent in [cli.path("srv"), cli.path("srv/birthdays")] {
            #expect(stat(parent, &info) == 0 && info.st_mode & 0o7777 == 0o755 && info.st_uid == geteuid(), "\(parent) is not the account's")
        }
        #expect(try systemctl.calls() == ["daemon-reload", "enable --now birthdays.service birthdays-serve.service"])

        let same = try await install("8485")
        #expect(same.status == 0, "\(same.stderr)")
        let again = Array(try systemctl.calls().dropFirst(2))
        #expect(again == ["daemon-reload", "enable --now birthdays.service birthdays-serve.service"], "the same units: nothing restarted")
        let changed = try await install("8486")
        #expect(changed.status == 0, "\(changed.stderr)")
        let restarted = Array(try systemctl.calls().suffix(3))
        #expect(
            restarted == [
                "daemon-reload", "enable --now birthdays.service birthdays-serve.service", "try-restart birthdays-serve.service",
            ]
        )

        // A root that is a link: the folder it leads to is the one written to, and the one writable.
        let link = cli.path("users-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root)
        var linked = cli
        linked.extraEnvironment["BIRTHDAYS_USERS_DIR"] = link
        let dryRun = try await linked.run("service", "install", "--all-users", "--account", account, "--unit-folder", units, "--dry-run")
        #expect(dryRun.stdout.contains("\nReadWritePaths=-\(root)\n") && !dryRun.stdout.contains(link), "\(dryRun.stdout)")

        // systemctl that cannot stop them: the uninstall says so.
        try "#!/bin/sh\necho \"$*\" >> '\(systemctl.log)'\ncase \"$1\" in disable) echo 'Access denied' >&2; exit 1 ;; esac\nexit 0\n".write(
            toFile: systemctl.folder + "/systemctl",
            atomically: true,
            encoding: .utf8
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: systemctl.folder + "/systemctl")
        let removed = try await cli.run("service", "uninstall", "--all-users", "--unit-folder", units)
        #expect(removed.status == 1, "\(removed.stdout) \(removed.stderr)")
        #expect(
            removed.stderr.hasPrefix("Error: systemctl disable --now birthdays.service birthdays-serve.service failed: Access denied"),
            "\(removed.stderr)"
        )
    }

    /// The options of the system units go with `--all-users` only, `--all-users` not with `--user`, and a
    /// missing account is named: each one line.
    @Test func theAllUsersOptionsAreCheckedInOneLine() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        let systemctl = try FakeSystemctl(in: cli)
        cli.extraEnvironment["PATH"] = systemctl.folder + ":/usr/bin:/bin"
        let units = cli.path("system")
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["service", "install", "--account", "svc"], 64, "go with --all-users"),
            (["service", "install", "--all-users", "--user", "alice"], 64, "cannot be given with --user or --database"),
            (["service", "install", "--all-users", "--account", "svc", "--trusted-proxy", "127.0.0.1"], 64, "go with --serve-port"),
            (
                ["service", "install", "--all-users", "--account", "svc", "--serve-port", "8485", "--user-header", "Remote-User"], 64,
                "needs --trusted-proxy"
            ),
            (
                ["service", "install", "--all-users", "--account", "no-such-account-here", "--unit-folder", units], 1,
                "there is no account called 'no-such-account-here'"
            ),
            (["service", "install", "--all-users", "--account", "root", "--unit-folder", units], 64, "--account must not be root (uid 0)"),
        ]
        for (arguments, status, says) in cases {
            let result = try await cli.run(arguments)
            #expect(result.status == status && result.stderr.hasPrefix("Error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
            if status == 1 { #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)") }
        }
        #expect(!FileManager.default.fileExists(atPath: units))
        #expect(try systemctl.calls().isEmpty)
    }

    /// Without an answer and without a terminal, onboarding installs nothing and says how to start it later.
    @Test func withoutAnAnswerNothingIsInstalled() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications")
        #expect(result.status == 0)
        #expect(result.stdout.contains("start it when you like with: birthdays service install"))
        #expect(!FileManager.default.fileExists(atPath: cli.path(".config")))
    }
}

/// `status` on a terminal names the people; piped, it does not.
@Suite(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed; the terminal status test needs it"))
struct StatusTerminalTests {
    @Test func statusNamesPeopleOnATerminalOnly() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        var late = cli
        late.now = "2026-03-10T09:00:10+01:00"
        _ = try await late.run("deliver", "--once")
        let terminal = try await TerminalSession(late, ["status"])
        let screen = try await terminal.waitFor("[exit 0]")
        let publicID = try await cli.publicID("ada-birthday-dayof")
        #expect(screen.contains("Last delivery: \(publicID) (Ada Lovelace) at 2026-03-10T09:00:10+01:00"), "\(screen)")
        let piped = try await late.run("status")
        #expect(piped.stdout.contains("Last delivery: \(publicID) at"))
        #expect(!piped.stdout.contains("Ada"))
    }
}
