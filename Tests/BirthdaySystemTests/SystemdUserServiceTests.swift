import BirthdayCore
import Foundation
import Testing

@testable import BirthdaySystem

@Suite struct SystemdUserServiceTests {
    /// The crontab line onboarding prints where no systemd user manager
    /// runs: the binary, the database and the log as shell words, and every
    /// `%` escaped (cron turns a bare one into a new line).
    @Test func theCronLineStartsTheDaemonAtBootAndEscapesPercent() {
        let service = SystemdUserService(binary: "/opt/b/birthdays", database: "/home/ada/50% data/birthdays.sqlite", environment: [:])
        #expect(service.logPath == "/home/ada/50% data/birthdays-run.log")
        #expect(
            service.cronLine
                == "@reboot /opt/b/birthdays run --database '/home/ada/50\\% data/birthdays.sqlite' >>'/home/ada/50\\% data/birthdays-run.log' 2>&1"
        )
        let plain = SystemdUserService(binary: "/usr/bin/birthdays", database: "/home/ada/.local/share/birthdays/birthdays.sqlite", environment: [:])
        #expect(
            plain.cronLine
                == "@reboot /usr/bin/birthdays run --database /home/ada/.local/share/birthdays/birthdays.sqlite "
                + ">>/home/ada/.local/share/birthdays/birthdays-run.log 2>&1"
        )
    }

    /// A user's daemon is run by the user's name, the users root in its
    /// environment (in the unit, where `%` is escaped and `$` is not, as
    /// systemd expands no variables there), so a removed user's daemon stops.
    @Test func aUsersDaemonIsRunByName() throws {
        let user = try UserName("alice")
        let service = SystemdUserService(
            binary: "/usr/bin/birthdays",
            database: "/srv/50% $users/alice/birthdays.sqlite",
            user: (user, "/srv/50% $users"),
            environment: [:]
        )
        #expect(service.daemonArguments == ["run", "--user", "alice"])
        #expect(service.daemonEnvironment == ["BIRTHDAYS_USERS_DIR": "/srv/50% $users"])
        #expect(service.unitText.contains("\nEnvironment=\"BIRTHDAYS_USERS_DIR=/srv/50%% $users\"\nExecStart=/usr/bin/birthdays run --user alice\n"))
        #expect(
            service.cronLine
                == "@reboot BIRTHDAYS_USERS_DIR='/srv/50\\% $users' /usr/bin/birthdays run --user alice >>'/srv/50\\% $users/alice/birthdays-run.log' 2>&1"
        )
        #expect(service.manualCommand.hasPrefix("BIRTHDAYS_USERS_DIR='/srv/50% $users' nohup /usr/bin/birthdays run --user alice >>"))
    }

    /// The installed unit's database is read from its first line; another
    /// database is one neither by name nor as the same file.
    @Test func theInstalledUnitsDatabaseIsReadFromItsFirstLine() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["HOME": home]
        let alice = SystemdUserService(binary: "/usr/bin/birthdays", database: home + "/a b/birthdays.sqlite", environment: environment)
        #expect(alice.installedDatabase == nil && alice.otherInstalledDatabase == nil)
        try FileManager.default.createDirectory(atPath: home + "/.config/systemd/user", withIntermediateDirectories: true)
        try alice.unitText.write(toFile: alice.unitPath, atomically: true, encoding: .utf8)
        #expect(alice.installedDatabase == home + "/a b/birthdays.sqlite")
        #expect(alice.otherInstalledDatabase == nil)
        let bob = SystemdUserService(binary: "/usr/bin/birthdays", database: home + "/bob.sqlite", environment: environment)
        #expect(bob.otherInstalledDatabase == home + "/a b/birthdays.sqlite")
        // The same file under another name is the same database.
        try FileManager.default.createDirectory(atPath: home + "/a b", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: home + "/a b/birthdays.sqlite", contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: home + "/link", withDestinationPath: home + "/a b")
        let linked = SystemdUserService(binary: "/usr/bin/birthdays", database: home + "/link/birthdays.sqlite", environment: environment)
        #expect(linked.otherInstalledDatabase == nil)
    }
}
