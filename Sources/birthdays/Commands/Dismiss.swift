import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a reminder (and its snooze) for this occurrence: it is not sent, retried or snoozed."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        func run() async throws {
            let context = try Context(global)
            guard try await DeliveryLedger(database: context.database).dismiss(id: id, now: context.now) > 0 else {
                throw CLIError("no reminder with the id '\(id)' is waiting or delivered (already dismissed?)")
            }
            DaemonSignal.reload(context)
            try output("Dismissed \(DeliveryLedger.baseID(id)).")
        }
    }
}
