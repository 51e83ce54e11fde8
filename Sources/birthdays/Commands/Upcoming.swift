import ArgumentParser
import BirthdayKit
import Foundation

extension BirthdaysCommand {
    struct Upcoming: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the next birthdays and anniversaries, nearest first.",
            discussion: "Dates are computed in your time zone (setting time-zone, else TZ, else the system's)."
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only events at most this many days away (0 = today only).")
        var days: Int = 30

        @Option(help: "At most this many events.")
        var limit: Int?

        @Flag(help: "Print a JSON array.")
        var json = false

        func validate() throws {
            guard days >= 0 else { throw ValidationError("--days must be 0 or more") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let context = try Context(global)
            let (settings, zone) = try context.settings()
            let upcoming = UpcomingEvents(today: LocalDate.today(at: context.now, in: zone), leapDay: settings.leapDay, includeAnniversaries: settings.anniversaries)
            let events = try context.database.upcoming(upcoming, withinDays: days, limit: limit)
            if json {
                print(JSONValue.array(events.map(UpcomingOutput.json)).serialized(pretty: true))
            } else if events.isEmpty {
                print(days == 0 ? "No birthdays today." : "No birthdays in the next \(days) days.")
            } else {
                print(UpcomingOutput.table(events))
            }
        }
    }
}

enum UpcomingOutput {
    static func json(_ event: Occurrence) -> JSONValue {
        .object([
            ("id", .string(event.personID)),
            ("name", .string(event.name)),
            ("kind", .string(event.kind.rawValue)),
            ("date", .string(event.date.description)),
            ("month", .int(event.eventDate.month)),
            ("day", .int(event.eventDate.day)),
            ("year", .optional(event.eventDate.year)),
            ("age", .optional(event.age)),
            ("days_until", .int(event.daysUntil)),
        ])
    }

    /// "today", "tomorrow", "in 5 days".
    static func when(_ days: Int) -> String {
        switch days {
        case 0: "today"
        case 1: "tomorrow"
        default: "in \(days) days"
        }
    }

    static func what(_ event: Occurrence) -> String {
        switch (event.kind, event.age) {
        case (.birthday, let age?): "birthday, turns \(age)"
        case (.birthday, nil): "birthday"
        case (.anniversary, let years?): "anniversary, \(years) year\(years == 1 ? "" : "s")"
        case (.anniversary, nil): "anniversary"
        }
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sat 21 Nov".
    static func shortDate(_ date: LocalDate) -> String {
        // 1970-01-01 was a Thursday.
        let weekday = ((date.dayNumber % 7) + 11) % 7
        return weekdays[weekday] + " " + (date.day < 10 ? " " : "") + String(date.day) + " " + months[date.month - 1]
    }

    static func table(_ events: [Occurrence]) -> String {
        let rows = events.map { [when($0.daysUntil), shortDate($0.date), $0.name.isEmpty ? "(no name)" : $0.name, what($0)] }
        return Table.render(rows)
    }
}

/// Left-aligned columns separated by two spaces. Widths count Unicode
/// scalars, which matches the terminal for everything but wide (CJK) and
/// combining characters, and is cheap enough for ten thousand rows.
enum Table {
    static func render(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = (header.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.unicodeScalars.count) }
        }
        return all.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.unicodeScalars.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
