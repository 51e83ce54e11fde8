import Foundation

/// Runs an installed program for cross-checks against other implementations.
/// Tests that need one skip with a message naming the Debian package when it
/// is missing.
public enum ExternalTool {
    public typealias Output = TestProcess.Result

    /// The system Python, not a pyenv shim on `PATH` that lacks the modules.
    public static let python = SystemTools.python
    public static let khal = "/usr/bin/khal"

    public static var hasPythonICalendar: Bool { SystemTools.pythonHas("icalendar", "dateutil.rrule") }

    public static var hasKhal: Bool { FileManager.default.isExecutableFile(atPath: khal) }

    /// Runs `executable` to completion (the current environment unless one is given).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> Output {
        try await TestProcess.run([executable] + arguments, environment: environment)
    }
}
