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
}
