import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand.Notifications {
    struct NotificationsEnable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Allow notifications (no prompt) and reschedule.",
            discussion: "Warns, without failing, when no notification channel is reachable right now."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\", \"scheduled\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let (settings, _) = try await context.settings()
            let probe = await DesktopNotificationProbe(channels: settings.channels).probe()
            if !probe.reachable {
                printError("warning: \(probe.detail); reminders stay pending and are delivered once a channel is reachable")
            }
            try await context.database.setAuthorizationStatus(.authorized)
            let result = try await context.scheduler().reschedule()
            try output(json ? JSONOutput.string(PermissionOutput(result)) : "Notifications enabled. " + RescheduleOutput.text(result))
        }
    }
}
