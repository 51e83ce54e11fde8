import Foundation

/// A throwaway khal setup for cross-checks of the feed: config, vdir and
/// database all inside one directory, with XDG paths pointing there too,
/// in Europe/Berlin and the C locale.
public struct KhalSandbox: Sendable {
    public let directory: TemporaryDirectory
    public var config: String { directory.path + "/khal.conf" }

    /// A sandbox inside `directory` (which its owner removes).
    public init(in directory: TemporaryDirectory) throws {
        self.directory = directory
        let vdir = directory.path + "/calendars/birthdays"
        try FileManager.default.createDirectory(atPath: vdir, withIntermediateDirectories: true)
        let config = """
            [calendars]
            [[birthdays]]
            path = \(vdir)
            type = calendar
            [sqlite]
            path = \(directory.path)/khal.db
            [locale]
            timeformat = %H:%M
            dateformat = %Y-%m-%d
            longdateformat = %Y-%m-%d
            datetimeformat = %Y-%m-%d %H:%M
            longdatetimeformat = %Y-%m-%d %H:%M
            local_timezone = Europe/Berlin
            default_timezone = Europe/Berlin
            [default]
            default_calendar = birthdays

            """
        try config.write(toFile: self.config, atomically: true, encoding: .utf8)
    }

    /// Runs khal with this sandbox's config and environment.
    public func run(_ arguments: [String]) async throws -> ExternalTool.Output {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path + "/config"
        environment["XDG_DATA_HOME"] = directory.path + "/data"
        environment["LC_ALL"] = "C.UTF-8"
        environment["TZ"] = "Europe/Berlin"
        return try await ExternalTool.run(ExternalTool.khal, ["-c", config] + arguments, environment: environment)
    }

    /// Imports the feed at `path` into the calendar; throws with khal's stderr when it fails.
    public func importFeed(_ path: String) async throws {
        let imported = try await run(["import", "--batch", "-a", "birthdays", path])
        guard imported.status == 0 else { throw TestSupportError("khal import failed: \(imported.stderr)") }
    }

    /// `start-date|title` lines for the `days` days from `start` (`YYYY-MM-DD`).
    public func list(from start: String, days: Int) async throws -> [String] {
        let listed = try await run(["list", "--format", "{start-date}|{title}", "--day-format", "", start, "\(days)d"])
        guard listed.status == 0 else { throw TestSupportError("khal list failed: \(listed.stderr)") }
        return listed.stdout.split(separator: "\n").map(String.init)
    }

    /// The titles khal lists for exactly `day`.
    public func titles(on day: String) async throws -> [String] {
        try await list(from: day, days: 1).compactMap { line in
            let parts = line.split(separator: "|", maxSplits: 1)
            return parts.count == 2 && parts[0] == day ? String(parts[1]) : nil
        }
    }
}
