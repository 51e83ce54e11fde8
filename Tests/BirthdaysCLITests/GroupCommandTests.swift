import Foundation
import TestSupport
import Testing

/// `groups`, and `exclude`, `include`, `remind` and `people` with `--group`
/// and `--source`, through the real binary (issue 26).
@Suite struct GroupCommandTests {
    /// Ada (Family, Chess club; Mar 20), Bob (Google-style label file below; Mar 25),
    /// and a vCard 4 group card "Work" listing Bob.
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        BDAY:1990-03-20\r
        CATEGORIES:Family,Chess club\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        UID:bob\r
        FN:Bob\r
        BDAY:--0325\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        KIND:group\r
        FN:Work\r
        MEMBER:urn:uuid:bob\r
        UID:urn:uuid:work\r
        END:VCARD\r

        """

    private func setUp() async throws -> CLIProcess {
        let cli = try CLIProcess()
        let file = try cli.write("contacts.vcf", Self.cards)
        let imported = try await cli.run("import", file)
        try #require(imported.status == 0, "\(imported.stderr)")
        try await cli.enableNotifications()
        return cli
    }

    private func pendingIDs(_ cli: CLIProcess) async throws -> [String] {
        try await CLIProcess.array(try cli.run("pending", "--json").stdout).compactMap { $0["id"] as? String }.sorted()
    }

    @Test func groupsListsThemWithTheirCountsAndRules() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let excluded = try await cli.run("exclude", "--group", "family")
        #expect(excluded.status == 0, "\(excluded.stderr)")
        let reminded = try await cli.run("remind", "--group", "Work", "--days", "7,0")
        #expect(reminded.status == 0, "\(reminded.stderr)")
        let listed = try CLIProcess.array(try await cli.run("groups", "--json").stdout)
        #expect(listed.map { $0["name"] as? String } == ["Chess club", "Family", "Work"])
        #expect(listed.map { $0["people"] as? Int } == [1, 1, 1])
        #expect(listed[1]["exclusion"] as? String == "exclude" && listed[1]["reminder_days"] is NSNull)
        #expect(listed[2]["reminder_days"] as? [Int] == [7, 0] && listed[2]["exclusion"] is NSNull)
        let table = try await cli.run("groups").stdout
        #expect(table.contains("Family") && table.contains("excluded") && table.contains("reminders 7,0"))
        #expect(try await pendingIDs(cli) == ["bob-birthday-7daysbefore", "bob-birthday-dayof"])
        // The feed follows: Ada has no event, Bob's alarms come 7 days ahead and on the day.
        let feed = try await cli.run("export").stdout
        #expect(!feed.contains("Ada Lovelace") && feed.contains("Bob"))
        #expect(feed.contains("TRIGGER;RELATED=START:-P6DT15H\r\n") && !feed.contains("TRIGGER;RELATED=START:-PT15H\r\n"))

        // The date is kept: people and show still have Ada, and say why she gets nothing.
        let people = try CLIProcess.array(try await cli.run("people", "--group", "Family", "--json").stdout)
        #expect(people.map { $0["id"] as? String } == ["ada"])
        let show = try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)
        #expect(show["groups"] as? [String] == ["Chess club", "Family"])
        #expect(show["excluded"] as? Bool == true && show["excluded_by"] as? String == "group" && show["excluded_by_name"] as? String == "Family")
        #expect(show["birthday"] != nil)
        let text = try await cli.run("show", "ada").stdout
        #expect(text.contains("Groups: Chess club, Family"))
        #expect(text.contains("Left out with the group Family"))
        #expect(try await cli.run("show", "bob").stdout.contains("Reminders: 7,0 days before (from Work)"))

        // include --group takes her back in: include beats exclude between groups.
        #expect(try await cli.run("include", "--group", "Chess club").status == 0)
        #expect(try await pendingIDs(cli).contains("ada-birthday-dayof"))
        #expect(try await cli.run("show", "ada").stdout.contains("Kept in by the group Chess club"))
    }

    @Test func unknownGroupsAndSourcesAreUsageErrorsWithSuggestions() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let typo = try await cli.run("exclude", "--group", "Famly")
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("no group is called 'Famly'; did you mean 'Family'?"))
        let source = try await cli.run("include", "--source", "work")
        #expect(source.status == 64 && source.stderr.contains("no source is called 'work'"))
        #expect(try await cli.run("exclude").status == 64)
        #expect(try await cli.run("exclude", "ada", "--group", "Family").status == 64)
        #expect(try await cli.run("remind", "--group", "Family", "--weekend", "friday").status == 64)
        #expect(try await cli.run("people", "--group", "Nobody").status == 64)
        #expect(try await pendingIDs(cli).count == 4, "nothing changed")
    }

    @Test func aSourceRuleIsListedAndRanksWithTheGroups() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let folder = cli.directory.appendingPathComponent("book").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:cy\r\nFN:Cy\r\nBDAY:1970-03-28\r\nCATEGORIES:Family\r\nEND:VCARD\r\n"
        try Data(card.utf8).write(to: URL(fileURLWithPath: folder + "/cy.vcf"))
        let dee = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dee\r\nFN:Dee\r\nBDAY:1971-03-29\r\nEND:VCARD\r\n"
        try Data(dee.utf8).write(to: URL(fileURLWithPath: folder + "/dee.vcf"))
        let added = try await cli.run("sources", "add", folder, "--name", "office")
        try #require(added.status == 0, "\(added.stderr)")
        #expect(try await cli.run("exclude", "--source", "Office").status == 0)
        #expect(try await cli.run("include", "--group", "Family").status == 0)
        let ids = try await pendingIDs(cli)
        #expect(ids.contains("cy-birthday-dayof") && !ids.contains { $0.hasPrefix("dee-") })
        let listed = try await cli.run("groups").stdout
        #expect(listed.contains("SOURCE") && listed.contains("office") && listed.contains("excluded"))
        let rule = try CLIProcess.object(try await cli.run("include", "--source", "office", "--json").stdout)
        #expect(rule["scope"] as? String == "source" && rule["exclusion"] as? String == "include")
        #expect(try await pendingIDs(cli).contains("dee-birthday-dayof"))
    }
}
