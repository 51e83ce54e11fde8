import BirthdayKit
import Foundation
import Testing

/// Runs the real `birthdays` binary against a temporary database.
struct CLIProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    enum Failure: Error, CustomStringConvertible {
        case binaryMissing([String])
        var description: String {
            switch self {
            case .binaryMissing(let paths): "the birthdays binary is not built (looked in \(paths.joined(separator: ", "))); run swift build first"
            }
        }
    }

    /// The package root, from this file's path (Tests/BirthdaysCLITests/CLISupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary next to the test bundle (same configuration), else `.build/debug/birthdays`.
    static func binary() throws -> String {
        var candidates: [String] = []
        if let first = CommandLine.arguments.first {
            let directory = URL(fileURLWithPath: first).deletingLastPathComponent()
            candidates.append(directory.appendingPathComponent("birthdays").path)
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/birthdays").path)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Failure.binaryMissing(candidates) }
        return found
    }

    let directory: URL
    let databasePath: String
    var now = "2026-03-10T08:00:00+01:00"
    var timeZone = "Europe/Berlin"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-cli-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("birthdays.sqlite").path
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The environment every run gets: no session bus and no display, so the
    /// channel probe fails fast and the same way everywhere.
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path,
            "BIRTHDAYS_DATABASE": databasePath,
            "BIRTHDAYS_NOW": now,
            "TZ": timeZone,
            "LANG": "C.UTF-8",
        ]
    }

    /// Opens the same database in-process, e.g. to seed people.
    func database() throws -> AppDatabase { try AppDatabase(path: databasePath) }

    /// Runs `birthdays arguments…` with standard input from a file (not a terminal).
    func run(_ arguments: String..., stdin: String = "") throws -> Output {
        let result = try Spawn.run(try CLIProcess.binary(), arguments, environment: environment, stdin: stdin)
        return Output(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Parses a JSON object printed by the CLIProcess.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// Parses a JSON array of objects printed by the CLIProcess.
    static func array(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }
}

/// A `birthdays` process in a real pseudo-terminal: a private tmux server
/// (`tmux -L <unique socket>`), driven with send-keys and read with capture-pane.
final class TerminalSession {
    static var tmuxAvailable: Bool {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private let socket = "birthdays-test-" + UUID().uuidString.prefix(8)

    /// Starts `birthdays arguments…` in a 120×40 terminal; when it exits, the pane shows `[exit N]`.
    init(_ cli: CLIProcess, _ arguments: [String]) throws {
        let environment = cli.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(TerminalSession.quote($0.value))" }.joined(separator: " ")
        let command = "cd \(TerminalSession.quote(cli.directory.path)) && env -i \(environment) TERM=xterm "
            + ([try CLIProcess.binary()] + arguments).map(TerminalSession.quote).joined(separator: " ")
            + "; echo \"[exit $?]\"; read -r line"
        try tmux(["new-session", "-d", "-x", "120", "-y", "40", command])
    }

    deinit {
        _ = try? tmux(["kill-server"])
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(socket)")
    }

    /// Types `text` literally, then presses Enter.
    func type(_ text: String) throws {
        if !text.isEmpty { try tmux(["send-keys", "-t", "0", "-l", text]) }
        try tmux(["send-keys", "-t", "0", "Enter"])
    }

    /// Presses a key by its tmux name, e.g. `C-d`.
    func press(_ key: String) throws {
        try tmux(["send-keys", "-t", "0", key])
    }

    /// The screen with its scrollback.
    func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", "0", "-S", "-500"])
    }

    /// Polls the screen until it contains `text`; records an issue and throws after `seconds`.
    @discardableResult
    func waitFor(_ text: String, seconds: Int = 30, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var last = ""
        while ContinuousClock.now < deadline {
            last = try screen()
            if last.contains(text) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \"\(text)\"; the screen was:\n\(last)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Runs one tmux client command and returns what it printed.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        try Spawn.run("/usr/bin/env", ["tmux", "-L", socket, "-f", "/dev/null"] + arguments).stdout
    }

    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

enum Seed {
    /// Ada (born 1990-03-11: tomorrow at the default BIRTHDAYS_NOW) and Bob (year-less, Mar 20).
    static func twoPeople(_ cli: CLIProcess) throws {
        let source = ContactSource(file: "seed.vcf", index: 0, line: 1)
        try cli.database().insertPeople([
            Person(id: "ada", name: "Ada", source: source, birthday: EventDate(year: 1990, month: 3, day: 11)),
            Person(id: "bob", name: "Bob", source: source, birthday: EventDate(year: nil, month: 3, day: 20)),
        ], now: Date(timeIntervalSince1970: 0))
    }
}
