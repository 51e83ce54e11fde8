import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the pending reminders, soonest first.",
            discussion: "Fire times are shown in your time zone (setting time-zone, else TZ, else the system's)."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array of {id, person_id, kind, when, fire_at, title, body}.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (_, zone, localizer) = try await context.settingsAndLanguage()
            let requests = try await context.database.pendingRequests()
            if json {
                try output(JSONOutput.string(requests.map { PendingOutput($0, zone: zone) }, pretty: true))
            } else if requests.isEmpty {
                let status = try await context.database.authorizationStatus()
                try output(localizer(status.allowsScheduling ? .plain(.pendingNone) : .pendingNoneDisabled(status: status.rawValue)))
            } else {
                try output(PendingOutput.table(requests, zone: zone, in: localizer))
            }
        }
    }
}
