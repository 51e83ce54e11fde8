import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.Notifications {
    struct NotificationsDisable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Deny notifications and remove every pending reminder.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\", \"scheduled\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            try await context.database.setAuthorizationStatus(.denied)
            let result = try await context.scheduler().reschedule()
            try output(
                json
                    ? JSONOutput.string(PermissionOutput(result))
                    : "Notifications disabled; no reminders pending. Turn them back on with: birthdays notifications enable"
            )
        }
    }
}
