import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, enable or disable notifications (the permission, like the system Settings app).",
            discussion: """
                Status is notDetermined until onboarding asks, authorized, provisional (quiet: reminders go to the log only) \
                or denied. Once denied, only 'birthdays notifications enable' turns reminders back on.
                """,
            subcommands: [Status.self, Enable.self, Disable.self],
            defaultSubcommand: Status.self
        )
    }
}

extension BirthdaysCommand.Notifications {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the notification status.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\": ...}.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let center = context.notificationCenter
            let status = try center.authorizationStatus()
            if json {
                print(JSONValue.object([("status", .string(status.rawValue))]).serialized())
                return
            }
            let (_, zone) = try context.settings()
            let pending = try center.pending()
            var line = "Notifications: \(status.rawValue)"
            if let next = pending.first {
                line += "; \(pending.count) reminder\(pending.count == 1 ? "" : "s") pending, next \(ISOInstant.format(next.fireAt, in: zone))"
            } else if !status.allowsScheduling {
                line += "; turn them on with: birthdays notifications enable"
            }
            print(line)
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Allow notifications (no prompt) and reschedule.",
            discussion: "Warns, without failing, when no notification channel is reachable right now."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\", \"scheduled\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let probe = await context.channelProbe.probe()
            if !probe.reachable {
                printError("warning: \(probe.detail); reminders stay pending and are delivered once a channel is reachable")
            }
            try context.notificationCenter.setAuthorizationStatus(.authorized)
            let result = try await context.scheduler().reschedule()
            print(json ? NotificationsOutput.json(result) : "Notifications enabled. " + SchedulingOutput.summaryText(result))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny notifications and remove every pending reminder.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\", \"scheduled\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            try context.notificationCenter.setAuthorizationStatus(.denied)
            let result = try await context.scheduler().reschedule()
            print(json ? NotificationsOutput.json(result) : "Notifications disabled; no reminders pending. Turn them back on with: birthdays notifications enable")
        }
    }
}

enum NotificationsOutput {
    static func json(_ result: RescheduleResult) -> String {
        JSONValue.object([("status", .string(result.status.rawValue)), ("scheduled", .int(result.scheduled))]).serialized()
    }
}
