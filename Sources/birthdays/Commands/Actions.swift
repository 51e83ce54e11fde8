import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Snooze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a delivered reminder again later (as <id>-snooze).",
            discussion: "The id is the one in the log line or 'birthdays status', such as c-1a2b3c4d5e6f7a8b-birthday-dayof."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        @Option(name: .customLong("for"), help: ArgumentHelp("How long: 15m, 1h, 90s.", valueName: "duration"))
        var duration = "15m"

        func run() async throws {
            guard let seconds = Snooze.seconds(duration) else {
                throw ValidationError("'\(duration)' is not a duration; use minutes, hours or seconds such as 15m, 1h or 90s")
            }
            let context = try Context(global)
            let until = context.now.addingTimeInterval(seconds)
            guard try DeliveryLedger(database: context.database).snooze(id: id, until: until, now: context.now) != nil else {
                throw ValidationError("no reminder has the id '\(id)'; see 'birthdays status' or 'birthdays pending'")
            }
            DaemonSignal.reload(context)
            let (_, zone) = try context.settings()
            print("Snoozed \(DeliveryLedger.baseID(id)) until \(ISOInstant.format(until, in: zone)).")
        }

        /// `15m`, `1h`, `90s`, or a bare number of minutes.
        static func seconds(_ text: String) -> TimeInterval? {
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600]
            if let last = trimmed.last, let unit = units[last], let value = Double(trimmed.dropLast()), value > 0 { return value * unit }
            if let value = Double(trimmed), value > 0 { return value * 60 }
            return nil
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a reminder (and its snooze) for this occurrence: it is not sent, retried or snoozed.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The reminder id.")
        var id: String

        func run() async throws {
            let context = try Context(global)
            guard try DeliveryLedger(database: context.database).dismiss(id: id, now: context.now) > 0 else {
                throw ValidationError("no reminder with the id '\(id)' is waiting or delivered (already dismissed?)")
            }
            DaemonSignal.reload(context)
            print("Dismissed \(DeliveryLedger.baseID(id)).")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one person: dates, next birthday and anniversary, age (what a click on a reminder shows).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A person id, or their exact name.")
        var person: String

        func run() async throws {
            let context = try Context(global)
            let found: Person
            if let byID = try context.database.person(id: person) {
                found = byID
            } else {
                let matches = try context.database.people().filter { $0.name.caseInsensitiveCompare(person) == .orderedSame }
                guard let first = matches.first else { throw ValidationError("no person has the id or name '\(person)'") }
                guard matches.count == 1 else {
                    throw ValidationError("\(matches.count) people are named '\(person)'; use an id: \(matches.map(\.id).joined(separator: ", "))")
                }
                found = first
            }
            let (settings, _) = try context.settings()
            print(found.name)
            print("Id: \(found.id)")
            PersonDetails.lines(for: found, today: try context.today(), leapDay: settings.leapDay, anniversaries: settings.anniversaries).forEach { print($0) }
        }
    }
}

/// Tells a running daemon to look again (SIGHUP), after a CLI change to the ledger.
enum DaemonSignal {
    static func reload(_ context: Context) {
        if let pid = DaemonLock.holder(database: context.database.path), pid > 0 { kill(pid, SIGHUP) }
    }
}
