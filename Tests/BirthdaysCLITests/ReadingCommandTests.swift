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

    /// Command lines the branch takes (every CLI suite's lines are such;
    /// these are the shapes a branch could get wrong): a default subcommand,
    /// a nested subcommand with its value, options after the command, the
    /// same lines answered as the whole tree answers them (`feed` is
    /// `feed url`; a setting set is the setting shown).
    @Test func linesTheBranchTakesDoWhatTheyAsk() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let feed = try await cli.run("feed")
        let feedURL = try await cli.run("feed", "url")
        #expect(feed.status == 0 && feed.stdout == feedURL.stdout && feed.stdout.contains("/calendar/"))
        #expect(try await cli.run("settings", "set", "emoji", "off").status == 0)
        let shown = try await cli.run("settings", "show", "--json")
        #expect(shown.stdout.contains("\"emoji\"") && shown.stdout.contains("off"), "\(shown.stdout)")
        let year = try await cli.run("upcoming", "--days", "365", "--json")
        let week = try await cli.run("upcoming", "--json", "--days", "5")
        #expect(year.status == 0 && year.stdout.contains("Ada") && year.stdout.contains("Bob"))
        #expect(
            week.status == 0 && week.stdout.contains("Ada") && !week.stdout.contains("Bob"),
            "the options after the command are read: \(week.stdout)"
        )
    }

    /// A command that writes leaves everything in the database file: its
    /// connections are closed before the process ends, the writer last, so
    /// the write-ahead log is folded in and removed. A copy of the file
    /// alone (a backup, `cp`) holds the people. Before, the last reference
    /// could go on a pool thread after the command ended (a quarter of the
    /// imports left their writes in the log), and since reading commands
    /// open read-only, nothing folded them in later.
    @Test func aWritingCommandLeavesEverythingInTheFile() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let cards = (0..<200).map { "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:p\($0)\r\nFN:Person \($0)\r\nBDAY:1990-03-11\r\nEND:VCARD\r\n" }.joined()
        let file = try cli.write("many.vcf", cards)
        for round in 0..<8 {
            try? FileManager.default.removeItem(atPath: cli.databasePath)
            let imported = try await cli.run("import", file)
            #expect(imported.status == 0, "\(imported.stderr)")
            let log = (try? FileManager.default.attributesOfItem(atPath: cli.databasePath + "-wal")[.size] as? NSNumber)?.intValue ?? 0
            #expect(log == 0, "round \(round): the write-ahead log holds \(log) bytes")
        }
        let copy = cli.databasePath + ".copy"
        try FileManager.default.copyItem(atPath: cli.databasePath, toPath: copy)
        let people = try await cli.run("people", "--database", copy)
        #expect(people.stdout.contains("Person 199"), "\(people.stdout)\(people.stderr)")
    }
}
