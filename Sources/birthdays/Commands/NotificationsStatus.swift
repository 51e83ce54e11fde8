import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.Notifications {
    struct NotificationsStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Print the notification status.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"status\": ...}.")
        var json = false

        struct Output: Encodable {
            var status: String
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let status = try await context.database.authorizationStatus()
            if json {
                try output(JSONOutput.string(Output(status: status.rawValue)))
                return
            }
            let (_, zone) = try await context.settings()
            let pending = try await context.database.pendingRequests()
            var line = "Notifications: \(status.rawValue)"
            if let next = pending.first {
                line += "; \(Wording.count(pending.count, "reminder")) pending, next \(ISOInstant.format(next.fireAt, in: zone))"
            } else if !(try await context.database.channelConsent().consent.delivers) {
                line += "; turn them on with: birthdays notifications enable"
            }
            try output(line)
        }
    }
}
