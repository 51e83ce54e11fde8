import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the daemon, permission, channels, pending reminders and recent deliveries (no names).",
            discussion: "Recent problems are failed, missed, interrupted and retrying reminders of the last --days days."
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "How many days back to report deliveries.")
        var days = 7

        @Flag(help: "Print the status as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let report = try StatusReport(context: context, days: days)
            print(json ? report.json.serialized() : report.text)
        }
    }
}

/// What `birthdays status` reports; built from the database and the lock only.
struct StatusReport {
    var pid: Int32?
    var permission: AuthorizationStatus
    var channels: [String]
    var pending: Int
    var nextFire: Date?
    var last: DeliveryEntry?
    var recent: [DeliveryEntry]
    var days: Int
    var zone: TimeZone

    init(context: Context, days: Int) throws {
        let (settings, zone) = try context.settings()
        self.zone = zone
        self.days = days
        pid = DaemonLock.holder(database: context.database.path)
        permission = try context.notificationCenter.authorizationStatus()
        channels = permission == .provisional ? ["log"] : settings.channels.map(\.rawValue)
        let requests = try context.notificationCenter.pending()
        pending = requests.count
        nextFire = [requests.first?.fireAt, try context.database.nextLedgerWork()].compactMap { $0 }.min()
        last = try context.database.lastDelivery()
        recent = try context.database.deliveries(updatedSince: context.now.addingTimeInterval(-Double(max(days, 0)) * 86_400))
    }

    static let problemStates: [DeliveryEntry.State] = [.failed, .missed, .interrupted, .retrying]

    func count(_ state: DeliveryEntry.State) -> Int { recent.filter { $0.state == state }.count }

    var problems: [DeliveryEntry] { recent.filter { Self.problemStates.contains($0.state) } }

    func iso(_ date: Date?) -> String? { date.map { ISOInstant.format($0, in: zone) } }

    var json: JSONValue {
        .object([
            ("daemon", .object([("running", .bool(pid != nil)), ("pid", .optional(pid.map(Int.init)))])),
            ("permission", .string(permission.rawValue)),
            ("channels", .array(channels.map(JSONValue.string))),
            ("pending", .int(pending)),
            ("next_fire", .optional(iso(nextFire))),
            ("last_delivery", last.map { entry in
                .object([
                    ("id", .string(entry.notificationID)), ("occurrence", .string(entry.occurrenceDate.description)),
                    ("fire_at", .string(ISOInstant.format(entry.fireAt, in: zone))), ("delivered_at", .optional(iso(entry.deliveredAt))),
                    ("late", .bool(entry.late)),
                ])
            } ?? .null),
            ("recent", .object([("days", .int(days))] + DeliveryEntry.State.allCases.filter { $0 != .queued && $0 != .sending }.map { ($0.rawValue, .int(count($0))) })),
            ("problems", .array(problems.map { entry in
                .object([
                    ("id", .string(entry.notificationID)), ("occurrence", .string(entry.occurrenceDate.description)),
                    ("state", .string(entry.state.rawValue)), ("fire_at", .string(ISOInstant.format(entry.fireAt, in: zone))),
                    ("attempts", .int(entry.attempts)), ("next_attempt_at", .optional(iso(entry.nextAttemptAt))),
                    ("error", .optional(entry.lastError)),
                ])
            })),
        ])
    }

    var text: String {
        var lines: [String] = []
        lines.append("Daemon: " + (pid.map { "running (pid \($0))" } ?? "not running"))
        lines.append("Notifications: \(permission.rawValue); channels: \(channels.isEmpty ? "none" : channels.joined(separator: ","))")
        lines.append("Pending: \(pending)" + (iso(nextFire).map { "; next \($0)" } ?? ""))
        if let last {
            lines.append("Last delivery: \(last.notificationID) at \(iso(last.deliveredAt) ?? "?")\(last.late ? " (late)" : "")")
        }
        lines.append("Last \(days) days: \(count(.delivered)) delivered, \(count(.failed)) failed, \(count(.missed)) missed, "
            + "\(count(.interrupted)) interrupted, \(count(.retrying)) retrying, \(count(.dismissed)) dismissed")
        for entry in problems {
            lines.append("  \(entry.state.rawValue) \(entry.notificationID) (\(entry.occurrenceDate))" + (entry.lastError.map { ": \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
