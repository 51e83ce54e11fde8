import Foundation
import TestSupport
import Testing

/// The commands that only read write nothing: the database file is not
/// written (its bytes and its modification time stay) and its write-ahead
/// log holds what it held before (nothing, when the import's process
/// checkpointed it on closing; under load that process may end first). (Opening the database as a writer did
/// write: GRDB fills an empty log by creating and dropping a table, and the
/// last connection checkpoints it into the file, the same bytes again.)
@Suite struct ReadingCommandTests {
    @Test func readingCommandsLeaveTheDatabaseAsItWas() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
        let modified = try FileManager.default.attributesOfItem(atPath: cli.databasePath)[.modificationDate] as? Date
        let logBefore = try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))
        for arguments in [["upcoming", "--days", "365"], ["people"], ["show", "ada"], ["pending"], ["export"], ["settings", "show"]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(try await cli.run("upcoming", "--days", "365").stdout.contains("Ada"))
        let after = try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
        #expect(after == before, "a reading command changed the database file")
        #expect(try FileManager.default.attributesOfItem(atPath: cli.databasePath)[.modificationDate] as? Date == modified, "written")
        let logAfter = try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))
        #expect(
            (logAfter ?? Data()) == (logBefore ?? Data()),
            "the write-ahead log went from \(logBefore?.count ?? 0) to \(logAfter?.count ?? 0) bytes"
        )
    }

    /// A command parsed from its own branch of the command tree reports a
    /// usage error and prints its help as when the whole tree is parsed: the
    /// full command path, from `birthdays`.
    @Test(arguments: [
        (["upcoming", "--days"], "Usage: birthdays upcoming "),
        (["upcoming", "--nonsense"], "Usage: birthdays upcoming "),
        (["settings", "set"], "Usage: birthdays settings set "),
        (["upcoming", "--help"], "USAGE: birthdays upcoming "),
        (["upcoming", "-h"], "USAGE: birthdays upcoming "),
        (["settings", "set", "--help"], "USAGE: birthdays settings set "),
        (["help", "upcoming"], "USAGE: birthdays upcoming "),
        (["settings", "help", "set"], "Usage: birthdays settings "),
    ])
    func aBranchParsesAsTheWholeTreeDoes(_ arguments: [String], _ usage: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect((result.stdout + result.stderr).contains(usage), "\(arguments): \(result.stdout)\(result.stderr)")
    }
}
