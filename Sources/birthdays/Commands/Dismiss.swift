import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss",
            _superCommandName: "birthdays",
            abstract: "Stop a reminder (and its snooze) for this occurrence: it is not sent, retried or snoozed.",
            discussion: "The id as 'birthdays pending' or 'birthdays status' shows it. An id ending in -snooze stops only the snooze."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        func run() async throws {
            let context = try Context(global)
            let ledger = DeliveryLedger(database: context.database)
            let reminder = try await ReminderChoice.resolve(id, ledger)
            guard try await ledger.dismiss(reminder, now: context.now) > 0 else {
                throw CLIError(
                    reminder.snooze
                        ? "the reminder '\(SafeText.line(id))' has no snooze waiting (already dismissed or shown?)"
                        : "no reminder with the id '\(SafeText.line(id))' is waiting or delivered (already dismissed?)"
                )
            }
            try output("Dismissed \(reminder.snooze ? SafeText.line(id) : DeliveryLedger.baseID(SafeText.line(id))).")
        }
    }
}
