import Foundation
import TestSupport
import Testing

/// Usage errors (issue 31): what the person typed wrong is exit 64 and one
/// clear line; what the world did is exit 1.
@Suite struct UsageTruthTests {
    @Test(arguments: ["gopher://example.org/", "ftp://example.org/contacts.vcf"])
    func aSourceOfAnotherSchemeIsAUsageError(location: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let added = try await cli.run("sources", "add", location)
        #expect(added.status == 64, "\(added.stderr)")
        #expect(added.stderr.contains("not an http(s) URL or a path"), "\(added.stderr)")
        #expect(!added.stderr.contains("no such file or folder"), "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing is created")
    }

    @Test func aMissingPathIsStillWhatTheWorldDid() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let added = try await cli.run("sources", "add", cli.path("nowhere.vcf"))
        #expect(added.status == 1, "\(added.stderr)")
        #expect(added.stderr.contains("no such file or folder"), "\(added.stderr)")
    }
}
