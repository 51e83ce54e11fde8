import ArgumentParser
import BirthdayKit
import Foundation

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file.", valueName: "path"))
    var database: String?
}

/// What a command needs from the outside world, gathered in one place:
/// the only code that reads the real clock, the system time zone and the
/// environment.
struct Context {
    let database: AppDatabase
    let environment: [String: String]
    /// The current instant (or BIRTHDAYS_NOW).
    let now: Date
    /// The zone from the environment (TZ) or the system, before settings apply.
    let systemTimeZone: TimeZone

    init(_ options: GlobalOptions) throws {
        environment = ProcessInfo.processInfo.environment
        systemTimeZone = Context.systemTimeZone(environment)
        if let override = environment["BIRTHDAYS_NOW"], !override.isEmpty {
            guard let date = ReferenceTime.parse(override, timeZone: systemTimeZone) else {
                throw ValidationError("BIRTHDAYS_NOW '\(override)' is not an ISO 8601 date-time such as 2026-03-10T08:00:00Z")
            }
            now = date
        } else {
            now = Date()
        }
        database = try AppDatabase(path: options.database ?? AppDatabase.defaultPath(environment: environment))
    }

    static func systemTimeZone(_ environment: [String: String]) -> TimeZone {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if let zone = TimeZone(identifier: tz) { return zone }
        }
        return TimeZone.current
    }

    /// The user's settings and the zone they resolve to.
    func settings() throws -> (Settings, TimeZone) {
        let settings = try database.settings()
        return (settings, settings.resolvedTimeZone(system: systemTimeZone))
    }

    /// Today in the user's zone.
    func today() throws -> LocalDate {
        let (_, zone) = try settings()
        return LocalDate.today(at: now, in: zone)
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension FileHandle {
    /// Whether the descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
