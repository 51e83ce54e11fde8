import Foundation
import TestSupport
import Testing

/// The exit statuses of docs/commands.md, one rule for every command: a bad argument or value
/// is a usage error (64: the error naming what is allowed, then the usage);
/// something that failed at run time (nothing matched, a file missing, a
/// server down) is 1, with one line.
@Suite struct ExitStatusTests {
    @Test(arguments: [
        ["show", "nobody"],
        ["people", "nobody"],
        ["dismiss", "nobody-birthday-dayof"],
        ["snooze", "nobody-birthday-dayof"],
        ["remind", "nobody", "--days", "7,1,0"],
        ["exclude", "nobody"],
        ["include", "nobody"],
        ["import", "missing.vcf"],
        ["export", "--output", "/nonexistent/birthdays/feed.ics"],
        ["sources", "add", "missing.vcf"],
        ["sources", "add", "https://127.0.0.1:1/dav/"],
        ["sources", "remove", "nothing"],
        ["sources", "sync", "nothing"],
        ["publish", "add", "https://127.0.0.1:1/dav/"],
        ["publish", "remove", "nothing"],
        ["publish", "sync", "nothing"],
        ["onboard", "--contacts", "missing.vcf", "--no-notifications", "--no-service"],
    ])
    func aRuntimeFailureIsOneLineAndStatusOne(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let result = try await cli.run(arguments)
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "), "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line, no usage text: \(result.stderr)")
        #expect(!result.stderr.contains("Usage:"))
    }

    @Test(arguments: [
        // Values a command or setting does not take.
        (["upcoming", "--days=-1"], "--days must be 0 or more"),
        (["upcoming", "--limit", "0"], "--limit must be at least 1"),
        (["status", "--days=-1"], "--days must be 0 or more"),
        (["snooze", "ada-birthday-dayof", "--for", "soon"], "use 15m, 1h, 90s, 1d, tonight or tomorrow"),
        (["remind", "ada", "--days", "999"], "allowed:"),
        (["remind", "ada"], "give --days"),
        (["settings", "set", "colour", "blue"], "colour"),
        (["settings", "set", "delivery-time", "25:00"], "allowed:"),
        (["settings", "set", "reminders", "999"], "allowed:"),
        (["settings", "reset", "colour"], "colour"),
        (["import", "--date-order", "dym", "contacts.csv"], "dym"),
        (["export", "--output", ""], "--output must name a file"),
        (["feed", "url", "--port", "0"], "--port must be between 1 and 65535"),
        (["feed", "url", "--host", "my host"], "--host must be a host name"),
        (["serve", "--port", "70000"], "--port must be between 1 and 65535"),
        (["serve", "--host", ""], "--host must be an address"),
        (["sources", "add", "contacts.vcf", "--username", "ada"], "for CardDAV URLs only"),
        (["sources", "add", "contacts.vcf", "--name", " "], "--name must not be empty"),
        (["notifications", "test", "--channel", "Pigeon Post"], "Pigeon Post"),
        (["onboard", "--contacts", "contacts.vcf", "--no-contacts"], "exclude each other"),
        // Unknown commands and flags, missing arguments.
        (["frobnicate"], "frobnicate"),
        (["show"], "person"),
        (["dismiss"], "Missing"),
        (["pending", "--everything"], "--everything"),
        (["deliver", "--everything"], "--everything"),
        (["reschedule", "--everything"], "--everything"),
        (["run", "--everything"], "--everything"),
        (["feed", "rotate", "now"], "now"),
        (["service", "install", "--everything"], "--everything"),
        (["sources", "list", "--everything"], "--everything"),
        (["notifications", "enable", "--everything"], "--everything"),
    ])
    func aBadArgumentIsAUsageErrorWithStatus64(_ arguments: [String], names: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("Error: "), "\(arguments): \(result.stderr)")
        #expect(first.contains(names), "the first line says what is wrong or allowed: \(result.stderr)")
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
