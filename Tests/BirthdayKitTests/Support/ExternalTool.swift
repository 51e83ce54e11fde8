import Foundation

/// Runs an installed program for cross-checks against other implementations.
/// Tests that need one skip with a message naming the Debian package when it
/// is missing.
enum ExternalTool {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The system Python, not a pyenv shim on `PATH` that lacks the modules.
    static let python = "/usr/bin/python3"
    static let khal = "/usr/bin/khal"

    static var hasPythonICalendar: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(python, ["-c", "import icalendar, dateutil.rrule"]).status) == 0
    }

    static var hasKhal: Bool { FileManager.default.isExecutableFile(atPath: khal) }

    /// Runs `executable` to completion. Standard error goes to a file so a
    /// chatty tool cannot fill a pipe and stall.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderrURL = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: stderrURL) }
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        defer { try? stderrHandle.close() }
        process.standardOutput = stdout
        process.standardError = stderrHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: data, as: UTF8.self),
            stderr: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        )
    }
}
