import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Reschedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the pending reminders with the next ones (at most 64).",
            discussion: """
                Reminders fire the day before and the day of each birthday and anniversary at the delivery time, \
                in your time zone. Only the soonest 64 are kept pending, as on iOS; run this again (the daemon does) \
                as time passes to fill the freed slots. Nothing is scheduled until notifications are enabled.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"scheduled\",\"people\",\"first\",\"last\"} as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let result = try await context.scheduler().reschedule()
            print(json ? SchedulingOutput.summaryJSON(result).serialized() : SchedulingOutput.summaryText(result))
        }
    }
}

enum SchedulingOutput {
    static func summaryJSON(_ result: RescheduleResult) -> JSONValue {
        .object([
            ("scheduled", .int(result.scheduled)),
            ("people", .int(result.people)),
            ("first", .optional(result.first.map { ISOInstant.format($0, in: result.timeZone) })),
            ("last", .optional(result.last.map { ISOInstant.format($0, in: result.timeZone) })),
        ])
    }

    static func summaryText(_ result: RescheduleResult) -> String {
        guard result.status.allowsScheduling else {
            return "Notifications are not enabled (\(result.status.rawValue)); no reminders pending. "
                + "Turn them on with: birthdays notifications enable"
        }
        guard let first = result.first, let last = result.last else { return "No reminders to schedule." }
        return "Scheduled \(result.scheduled) reminder\(result.scheduled == 1 ? "" : "s") for \(result.people) "
            + "\(result.people == 1 ? "person" : "people"); first \(ISOInstant.format(first, in: result.timeZone)), "
            + "last \(ISOInstant.format(last, in: result.timeZone))."
    }

    static func requestJSON(_ request: NotificationRequest, zone: TimeZone) -> JSONValue {
        .object([
            ("id", .string(request.id)),
            ("person_id", .string(request.personID)),
            ("kind", .string(request.kind.rawValue)),
            ("when", .string(request.timing.rawValue)),
            ("fire_at", .string(ISOInstant.format(request.fireAt, in: zone))),
            ("title", .string(request.title)),
            ("body", .string(request.body)),
        ])
    }

    /// "2026-03-11 09:00", the fire instant on the wall clock of `zone`.
    static func wallClock(_ instant: Date, zone: TimeZone) -> String {
        let iso = ISOInstant.format(instant, in: zone)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    static func table(_ requests: [NotificationRequest], zone: TimeZone) -> String {
        Table.render(requests.map { [wallClock($0.fireAt, zone: zone), $0.timing.rawValue, $0.title, $0.body] }, header: ["FIRES", "WHEN", "TITLE", "BODY"])
    }
}
