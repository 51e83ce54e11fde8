import Foundation
import TestSupport
import Testing

/// The exit statuses of docs/commands.md: 1 with one line for something that failed,
/// 64 with the usage text for a bad argument.
@Suite struct ExitStatusTests {
    @Test(arguments: [
        ["show", "nobody"],
        ["dismiss", "nobody-birthday-dayof"],
        ["snooze", "nobody-birthday-dayof"],
    ])
    func aRuntimeFailureIsOneLineAndStatusOne(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let result = try await cli.run(arguments)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.split(separator: "\n").count == 1, "one line, no usage text: \(result.stderr)")
        #expect(!result.stderr.contains("Usage:"))
    }

    @Test(arguments: [
        ["upcoming", "--days", "-1"],
        ["snooze", "ada-birthday-dayof", "--for", "soon"],
        ["settings", "set", "colour", "blue"],
        ["frobnicate"],
        ["import", "--date-order", "dym", "contacts.csv"],
    ])
    func aBadArgumentIsAUsageErrorWithStatus64(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("See 'birthdays"))
    }

    /// `--version`: the number in the VERSION file, and `git describe` in
    /// parentheses when built from a checkout that is not exactly a release tag.
    @Test func versionComesFromTheVersionFile() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("--version")
        #expect(result.status == 0)
        let version = try String(contentsOf: Repository.root.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines
        )
        #expect(result.stdout == version + "\n" || (result.stdout.hasPrefix(version + " (") && result.stdout.hasSuffix(")\n")), "\(result.stdout)")
        if FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(".git").path), SystemTools.path("git") != nil {
            // Built from this checkout: the description follows unless HEAD is exactly the release tag.
            // (The binary may predate the last commit, so the description itself is not compared.)
            let describe = try await TestProcess.run(
                ["/usr/bin/env", "git", "-C", Repository.root.path, "describe", "--tags", "--always", "--dirty", "--match", "v[0-9]*"]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(result.stdout.hasPrefix(version + " (") == (describe != "v" + version), "\(result.stdout) vs \(describe)")
        }
    }
}
