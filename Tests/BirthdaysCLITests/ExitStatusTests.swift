import Foundation
import TestSupport
import Testing

/// The README's exit statuses: 1 with one line for something that failed,
/// 64 with the usage text for a bad argument.
@Suite struct ExitStatusTests {
    @Test(arguments: [
        ["show", "nobody"],
        ["dismiss", "nobody-birthday-dayof"],
        ["snooze", "nobody-birthday-dayof"],
    ])
    func aRuntimeFailureIsOneLineAndStatusOne(_ arguments: [String]) throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Seed.twoPeople(cli)
        let result = try cli.run(arguments)
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
    ])
    func aBadArgumentIsAUsageErrorWithStatus64(_ arguments: [String]) throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("See 'birthdays"))
    }
}
