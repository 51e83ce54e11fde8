import Foundation
import TestSupport
import Testing

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
