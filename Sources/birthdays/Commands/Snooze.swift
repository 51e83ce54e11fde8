import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand {
    struct Snooze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snooze",
            _superCommandName: "birthdays",
            abstract: "Show a reminder again later (as <id>-snooze); one that has not fired yet is postponed.",
            discussion: """
                The id is the short one 'birthdays pending' shows (such as r-3f9c), the one in the log line or 'birthdays status' \
                (r-3f9ce1a07b5d2c48), or the stored id of 'pending --json'. A reminder that has fired comes back --for after now. \
                One that has not fired yet is postponed: --for counts from its own time, and tonight or tomorrow must come after it; \
                a snooze never makes a reminder fire earlier.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        @Option(
            name: .customLong("for"),
            help: ArgumentHelp(
                "How long: 15m, 1h, 90s, 1d, or tonight (20:00) or tomorrow (at the delivery time).",
                valueName: "duration"
            ),
            transform: DurationArgument.parse
        )
        var duration = DurationArgument.fifteenMinutes

        func run() async throws {
            let context = try Context(global)
            let ledger = DeliveryLedger(database: context.database)
            let reminder = try await ReminderChoice.resolve(id, ledger)
            let (settings, zone) = try await context.settings()
            let target = try duration.target(now: context.now, zone: zone, deliveryTime: settings.deliveryTime)
            switch try await ledger.snooze(reminder, to: target, now: context.now) {
            case .notFound:
                throw CLIError(ReminderChoice.unknown(id))
            case .notAfter(let start):
                throw CLIError(
                    "\(duration) is not after \(ISOInstant.format(start, in: zone))"
                        + (start > context.now ? ", when the reminder fires; a snooze never makes it fire earlier" : "")
                )
            case .snoozed(let entry, let postponed):
                let until = ISOInstant.format(entry.fireAt, in: zone)
                try output(
                    postponed
                        ? "Postponed \(DeliveryLedger.baseID(id)) to \(until) (it had not fired yet)."
                        : "Snoozed \(DeliveryLedger.baseID(id)) until \(until)."
                )
            }
        }
    }
}

/// The reminder a typed id names, or a ``CLIError`` that says why none is.
enum ReminderChoice {
    static func resolve(_ typed: String, _ ledger: DeliveryLedger) async throws -> ReminderReference {
        switch try await ledger.resolve(typed) {
        case .found(let reminder): return reminder
        case .unknown: throw CLIError(unknown(typed))
        case .ambiguous(let ids):
            throw CLIError("'\(SafeText.line(typed))' starts \(ids.count) reminders' ids: \(ids.joined(separator: ", ")); type more of it")
        }
    }

    static func unknown(_ typed: String) -> String {
        "no reminder with the id '\(SafeText.line(typed))' is pending or in the ledger; see 'birthdays pending' or 'birthdays status'"
    }
}
