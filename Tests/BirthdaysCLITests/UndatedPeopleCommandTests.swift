import Foundation
import TestSupport
import Testing

/// Contacts without any date are kept (issue 34): counted as kept, marked by
/// `people`, listed by `people --undated`, shown by `show`, never reminded,
/// never in `upcoming` or the feed; exclusions and groups apply to them.
@Suite struct UndatedPeopleCommandTests {
    /// Ada with a birthday; Cy (Family) and Dee without any date; a card with neither a name nor a date.
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        BDAY:1990-03-20\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:cy\r
        FN:Cy Young\r
        CATEGORIES:Family\r
        EMAIL:cy@example.org\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:dee\r
        FN:Dee Undated\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:nobody\r
        FN:\r
        END:VCARD\r

        """

    private func setUp() async throws -> (CLIProcess, CLIProcess.Output) {
        let cli = try CLIProcess()
        let imported = try await cli.run("import", try cli.write("contacts.vcf", Self.cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        return (cli, imported)
    }

    @Test func theyAreKeptCountedAndMarked() async throws {
        let (cli, imported) = try await setUp()
        defer { cli.cleanUp() }
        #expect(
            imported.stdout
                == "imported 1 file: 3 added, 0 updated, 0 unchanged, 0 with invalid dates; 2 contacts without dates kept; "
                + "1 contact without a name or a date skipped\n",
            "\(imported.stdout)"
        )
        let people = try CLIProcess.array(try await cli.run("people", "--json").stdout)
        #expect(people.map { "\($0["id"]!) \($0["undated"]!)" } == ["ada 0", "cy 1", "dee 1"])
        let undated = try CLIProcess.array(try await cli.run("people", "--undated", "--json").stdout)
        #expect(undated.compactMap { $0["id"] as? String } == ["cy", "dee"])
        let table = try await cli.run("people", "--undated").stdout
        #expect(table.contains("Cy Young") && table.contains("no date") && !table.contains("Ada"), "\(table)")
        let show = try await cli.run("show", "dee")
        #expect(show.stdout == "Dee Undated\nId: dee\nNo date known: no reminders\n", "\(show.stdout)")
        // A second import of the same file changes nothing.
        let again = try await cli.json(["import", cli.path("contacts.vcf")])
        #expect((again as? [String: Any])?["unchanged"] as? Int == 3)
        #expect((again as? [String: Any])?["without_dates"] as? Int == 2)
    }

    @Test func theyAreNeitherRemindedNorInTheFeed() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        #expect(!pending.isEmpty && pending.allSatisfy { ($0["id"] as? String)?.hasPrefix("ada-") == true }, "\(pending)")
        let upcoming = try CLIProcess.array(try await cli.run("upcoming", "--days", "366", "--json").stdout)
        #expect(upcoming.compactMap { $0["id"] as? String } == ["ada"])
        let feed = try await cli.run("export")
        #expect(feed.status == 0, "\(feed.stderr)")
        #expect(feed.stdout.contains("Ada Lovelace") && !feed.stdout.contains("Cy Young") && !feed.stdout.contains("Dee Undated"))
    }

    @Test func exclusionsAndGroupsApplyToThem() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let excluded = try await cli.run("exclude", "dee")
        #expect(excluded.status == 0, "\(excluded.stderr)")
        let people = try CLIProcess.array(try await cli.run("people", "--undated", "--json").stdout)
        #expect(people.map { "\($0["id"]!) \($0["excluded"]!)" } == ["cy 0", "dee 1"])
        let family = try CLIProcess.array(try await cli.run("people", "--group", "family", "--json").stdout)
        #expect(family.compactMap { $0["id"] as? String } == ["cy"])
        // A birthday added to the card later finds the same person, and keeps the choice.
        let dated = Self.cards.replacingOccurrences(of: "FN:Dee Undated\r\n", with: "FN:Dee Undated\r\nBDAY:2001-04-05\r\n")
        let report = try await cli.json(["import", try cli.write("contacts.vcf", dated)])
        #expect((report as? [String: Any])?["updated"] as? Int == 1)
        #expect((report as? [String: Any])?["added"] as? Int == 0)
        let dee = try CLIProcess.object(try await cli.run("show", "dee", "--json").stdout)
        #expect(dee["undated"] as? Bool == false && dee["excluded"] as? Bool == true)
    }
}
