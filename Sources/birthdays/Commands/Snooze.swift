import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand {
    struct Snooze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a delivered reminder again later (as <id>-snooze).",
            discussion: "The id is the one in the log line or 'birthdays status' (such as r-3f9ce1a07b5d2c48), or in 'birthdays pending'."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        @Option(
            name: .customLong("for"),
            help: ArgumentHelp("How long: minutes, hours or seconds such as 15m, 1h or 90s.", valueName: "duration"),
            transform: DurationArgument.parse
        )
        var duration = DurationArgument.fifteenMinutes

        func run() async throws {
            let context = try Context(global)
            let until = context.now.addingTimeInterval(duration.seconds)
            guard try await DeliveryLedger(database: context.database).snooze(id: id, until: until, now: context.now) != nil else {
                throw CLIError("no reminder has the id '\(id)'; see 'birthdays status' or 'birthdays pending'")
            }
            DaemonSignal.reload(context)
            let (_, zone) = try await context.settings()
            try output("Snoozed \(DeliveryLedger.baseID(id)) until \(ISOInstant.format(until, in: zone)).")
        }
    }
}

/// Tells a running daemon to look again (SIGHUP), after a change to the ledger.
enum DaemonSignal {
    static func reload(_ context: Context) {
        if let pid = DaemonLock.holder(database: context.database.path), pid > 0 { kill(pid, SIGHUP) }
    }
}
