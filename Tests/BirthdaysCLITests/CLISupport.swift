import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `birthdays` binary (built by `swift build`, which this test
/// target depends on) against a private database, with a fixed clock and zone.
struct CLIProcess {
    typealias Output = TestProcess.Result

    struct BinaryMissing: Error, CustomStringConvertible {
        var paths: [String]
        var description: String { "the birthdays binary is not built (looked in \(paths.joined(separator: ", "))); run swift build first" }
    }

    /// The binary next to the test bundle (same configuration), else `.build/debug/birthdays`.
    static func binary() throws -> String {
        var candidates: [String] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("birthdays").path)
        }
        candidates.append(Repository.root.appendingPathComponent(".build/debug/birthdays").path)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BinaryMissing(paths: candidates)
        }
        return found
    }

    /// `samples/` of the repository.
    static var samples: String { Repository.samples.path }

    let directory: URL
    let databasePath: String
    var now: String
    var timeZone: String
    /// Added to (or replacing) the standard environment of every run.
    var extraEnvironment: [String: String] = [:]

    init(now: String = "2026-03-10T08:00:00+01:00", timeZone: String = "Europe/Berlin") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-cli-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("birthdays.sqlite").path
        self.now = now
        self.timeZone = timeZone
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The environment every run gets: no session bus and no display, so the
    /// channel probe fails fast and the same way everywhere. Pretend time
    /// writes this test's own database (`BIRTHDAYS_NOW_WRITES=1`); the tests
    /// of trials at pretend time remove it.
    var environment: [String: String] {
        [
            "PATH": "/usr/bin:/bin",
            "HOME": directory.path,
            "BIRTHDAYS_DATABASE": databasePath,
            "BIRTHDAYS_NOW": now,
            "BIRTHDAYS_NOW_WRITES": "1",
            "TZ": timeZone,
            "LANG": "C.UTF-8",
        ].merging(extraEnvironment) { $1 }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The database's own secrets folder: `birthdays.sqlite.secrets` beside it.
    var secretsFolder: String { databasePath + ".secrets" }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// Runs `birthdays arguments…` with standard input from a file (not a terminal).
    func run(_ arguments: String..., stdin: String = "") async throws -> Output {
        try await run(arguments, stdin: stdin)
    }

    func run(_ arguments: [String], stdin: String = "") async throws -> Output {
        try await TestProcess.run([try CLIProcess.binary()] + arguments, environment: environment, stdin: stdin)
    }

    /// Runs a one-shot command as if it were `now`.
    func run(at now: String, _ arguments: String...) async throws -> Output {
        var at = self
        at.now = now
        return try await at.run(arguments)
    }

    /// Runs a command that must succeed with `--json` and parses its output.
    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments) failed: \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }

    /// Parses a JSON object printed by the binary.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// Parses a JSON array of objects printed by the binary.
    static func array(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }

    /// Imports a vCard file with these cards, through the binary.
    func seed(_ cards: [(uid: String, name: String, birthday: String)]) async throws {
        let text = cards.map { "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\($0.uid)\r\nFN:\($0.name)\r\nBDAY:\($0.birthday)\r\nEND:VCARD\r\n" }.joined()
        let imported = try await run("import", try write("seed-\(UUID().uuidString).vcf", text))
        try #require(imported.status == 0, "seeding failed: \(imported.stderr)")
    }
}

/// The setup every `birthdays run` test shares.
extension CLIProcess {
    /// A database with Ada Lovelace, born 1990-03-10, so at the default
    /// `BIRTHDAYS_NOW` (08:00 Europe/Berlin on 2026-03-10) her day-of
    /// reminder is due at 09:00; day-before reminders off, then `settings`.
    static func withAda(settings: [(String, String)] = [], enableNotifications: Bool) async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        try await cli.set("day-before", "off")
        for (key, value) in settings { try await cli.set(key, value) }
        if enableNotifications { try await cli.enableNotifications() }
        return cli
    }

    func enableNotifications() async throws {
        let enable = try await run("notifications", "enable")
        try #require(enable.status == 0, "\(enable.stderr)")
    }

    func set(_ key: String, _ value: String) async throws {
        let set = try await run("settings", "set", key, value)
        try #require(set.status == 0, "settings set \(key): \(set.stderr)")
    }

    /// The value `settings show` prints for `key` (its table's columns are as
    /// wide as the longest key, so the spaces between are not compared).
    static func shownSetting(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
            return String(line.dropFirst(key.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// `birthdays run` in the background, its clock starting at `now`, logging at info.
    func daemon(now: String, name: String = "daemon", extraEnvironment: [String: String] = [:]) throws -> TestProcess {
        var at = self
        at.now = now
        var environment = at.environment
        environment["BIRTHDAYS_LOG_LEVEL"] = "info"
        environment.merge(extraEnvironment) { $1 }
        return try TestProcess([try CLIProcess.binary(), "run"], environment: environment, directory: directory, name: name)
    }

    /// A process that takes the daemon lock as `birthdays run` does (an
    /// exclusive flock on `<database>.lock` holding its pid), then does
    /// nothing: a daemon that is stuck, for `status` and onboarding.
    func holdDaemonLock(python: String) async throws -> TestProcess {
        let holder = try TestProcess(
            [
                python, "-c",
                "import fcntl, os, signal, sys\nf = open(sys.argv[1], 'w')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
                    + "f.write(str(os.getpid())); f.flush()\nprint('locked', flush=True)\nsignal.pause()",
                databasePath + ".lock",
            ],
            environment: ["PATH": "/usr/bin:/bin"],
            name: "lock"
        )
        try await holder.waitUntil("the lock") { $0.stdout.contains("locked") }
        return holder
    }

    /// The delivery ledger, read in-process.
    func deliveries() async throws -> [DeliveryEntry] {
        try await AppDatabase.openFile(at: databasePath, create: false).deliveries(updatedSince: .distantPast)
    }

    /// The public form (`r-…`) of reminder `id` in this database, as logs and `status` show it.
    func publicID(_ id: String) async throws -> String {
        try await AppDatabase.openFile(at: databasePath, create: false).publicIDs().reminder(id)
    }

    /// The delivery ledger's states, in the order the store lists them.
    func ledgerStates() async throws -> [String] {
        try await deliveries().map(\.state.rawValue)
    }
}

extension String {
    func occurrences(of needle: String) -> Int { components(separatedBy: needle).count - 1 }
}

enum Seed {
    /// Ada (born 1990-03-11: tomorrow at the default BIRTHDAYS_NOW) and Bob (year-less, Mar 20).
    static func twoPeople(_ cli: CLIProcess) async throws {
        try await cli.seed([("ada", "Ada", "1990-03-11"), ("bob", "Bob", "--0320")])
    }
}

/// A `birthdays` process in a real pseudo-terminal: a private tmux server
/// (`tmux -L <unique socket>`), driven with send-keys and read with capture-pane.
final class TerminalSession {
    static var tmuxAvailable: Bool { SystemTools.path("tmux") != nil }

    private let socket = "birthdays-test-" + UUID().uuidString.prefix(8)

    /// Starts `birthdays arguments…` in a 120×40 terminal; when it exits, the pane shows `[exit N]`.
    init(_ cli: CLIProcess, _ arguments: [String]) async throws {
        let environment = cli.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(TerminalSession.quote($0.value))" }.joined(separator: " ")
        let command =
            "cd \(TerminalSession.quote(cli.directory.path)) && env -i \(environment) TERM=xterm "
            + ([try CLIProcess.binary()] + arguments).map(TerminalSession.quote).joined(separator: " ")
            + "; echo \"[exit $?]\"; read -r line"
        try await tmux(["new-session", "-d", "-x", "120", "-y", "40", command])
    }

    deinit {
        _ = try? TestProcess.runBlocking(["/usr/bin/env", "tmux", "-L", socket, "-f", "/dev/null", "kill-server"])
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(socket)")
    }

    /// Types `text` literally, then presses Enter.
    func type(_ text: String) async throws {
        if !text.isEmpty { try await tmux(["send-keys", "-t", "0", "-l", text]) }
        try await tmux(["send-keys", "-t", "0", "Enter"])
    }

    /// Presses a key by its tmux name, e.g. `C-d`.
    func press(_ key: String) async throws {
        try await tmux(["send-keys", "-t", "0", key])
    }

    /// The screen with its scrollback.
    func screen() async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", "0", "-S", "-500"])
    }

    /// Polls the screen until it contains `text`; throws with the screen after `seconds`.
    @discardableResult
    func waitFor(_ text: String, seconds: Int = 90) async throws -> String {
        var last = ""
        do {
            try await eventually("\"\(text)\" on the screen", seconds: seconds) {
                last = try await screen()
                return last.contains(text)
            }
        } catch {
            throw TestSupportError("\(error); the screen was:\n\(last)")
        }
        return last
    }

    /// Runs one tmux client command and returns what it printed.
    @discardableResult
    private func tmux(_ arguments: [String]) async throws -> String {
        try await TestProcess.run(["/usr/bin/env", "tmux", "-L", socket, "-f", "/dev/null"] + arguments).stdout
    }

    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Runs ../shared/tools/gen-contacts.py into the test's folder.
func generateContacts(count: Int, format: String, seed: Int, into cli: CLIProcess) async throws -> (file: String, truth: String) {
    let generator = try #require(Repository.generator)
    let ext = format.hasSuffix("csv") ? "csv" : "vcf"
    let truth = cli.path("gen-\(format)-\(seed).tsv")
    let result = try await TestProcess.run(
        [SystemTools.python, generator.path, "--count", String(count), "--format", format, "--seed", String(seed), "--truth", truth]
    )
    try #require(result.status == 0, "gen-contacts.py failed: \(result.stderr)")
    return (try cli.write("gen-\(format)-\(seed).\(ext)", result.stdout), truth)
}
