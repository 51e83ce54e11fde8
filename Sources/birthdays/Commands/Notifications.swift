import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notifications",
            _superCommandName: "birthdays",
            abstract: "Show, enable or disable notifications (the permission, like the system Settings app).",
            discussion: """
                Status is notDetermined until onboarding asks, authorized, provisional (quiet: reminders go to the log only, until \
                birthdays run finds a desktop notification server and moves to authorized by itself) \
                or denied. Once denied, only 'birthdays notifications enable' turns reminders back on.
                """,
            subcommands: [NotificationsStatus.self, NotificationsEnable.self, NotificationsDisable.self, NotificationsTest.self],
            defaultSubcommand: NotificationsStatus.self
        )
    }
}
