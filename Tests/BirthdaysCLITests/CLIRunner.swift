import Foundation
import Testing

/// Runs the real `birthdays` binary built by `swift build`, with a private
/// database and a fixed clock.
struct CLI {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binary: String { root.appendingPathComponent(".build/debug/birthdays").path }
    static var samples: String { root.appendingPathComponent("samples").path }
    static var shared: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("corpus/public/expected.tsv").path) ? url : nil
    }
    static let sharedMissing = "../shared (corpus and gen-contacts.py) is not beside the repository; CI always has it"

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let directory: URL
    let database: String
    var environment: [String: String]

    init(now: String = "2026-11-21T08:00:00Z", timeZone: String = "UTC") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-cli-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("test.sqlite").path
        environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "TZ": timeZone, "BIRTHDAYS_NOW": now, "LANG": "C.UTF-8"]
    }

    func cleanup() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// Runs `birthdays ARGS --database <private db>`.
    func run(_ arguments: [String], database: Bool = true) throws -> Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build the binary first: swift build")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments + (database ? ["--database", self.database] : [])
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a command that must succeed and parses its JSON output.
    func json(_ arguments: [String]) throws -> Any {
        let result = try run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments) failed: \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// Runs ../shared/tools/gen-contacts.py.
func generateContacts(count: Int, format: String, seed: Int, into cli: CLI) throws -> (file: String, truth: String) {
    let shared = try #require(CLI.shared)
    let ext = format.hasSuffix("csv") ? "csv" : "vcf"
    let file = cli.path("gen-\(format)-\(seed).\(ext)")
    let truth = cli.path("gen-\(format)-\(seed).tsv")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", shared.appendingPathComponent("tools/gen-contacts.py").path, "--count", String(count), "--format", format,
                         "--seed", String(seed), "--truth", truth]
    _ = FileManager.default.createFile(atPath: file, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return (file, truth)
}
