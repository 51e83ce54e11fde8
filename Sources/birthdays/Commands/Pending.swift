import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pending",
            _superCommandName: "birthdays",
            abstract: "List the pending reminders and snoozes, soonest first, each with the short id snooze, dismiss and show take.",
            discussion: "Fire times are shown in your time zone (setting time-zone, else TZ, else the system's)."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array of {id, short_id, person_id, kind, when, fire_at, snoozed, title, body}.")
        var json = false

        @Flag(name: .shortAndLong, help: "Print nothing when nothing is pending.")
        var quiet = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (_, zone, localizer) = try await context.settingsAndLanguage()
            let reminders = try await context.database.pendingReminders()
            if json {
                try output(JSONOutput.string(reminders.map { PendingOutput($0, zone: zone) }, pretty: true))
            } else if reminders.isEmpty {
                guard !quiet else { return }
                let (_, status, consent) = try await context.database.channelConsent()
                try output(localizer(consent.delivers ? .plain(.pendingNone) : .pendingNoneDisabled(status: status.rawValue)))
            } else {
                try output(PendingOutput.table(reminders, zone: zone, in: localizer))
            }
        }
    }
}
