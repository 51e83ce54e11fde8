import Foundation
import TestSupport
import Testing

/// Labelled dates (issue 34) through the real binary: an iPhone card with
/// Apple's and custom labels, a Google CSV with Event columns, what `import`,
/// `show` and `people --json` say, and a second import of the edited card.
@Suite struct LabelledDatesCommandTests {
    static func card(startedWork: String = "2019-03-03", childLabel: String = "Child's birthday") -> String {
        """
        BEGIN:VCARD\r
        VERSION:3.0\r
        PRODID:-//Apple Inc.//iPhone OS 18.0//EN\r
        UID:johnny\r
        N:Appleseed;Johnny;;;\r
        FN:Johnny Appleseed\r
        item1.X-ABDATE;type=pref:2008-06-21\r
        item1.X-ABLabel:_$!<Anniversary>!$_\r
        item2.X-ABDATE:2015-12-01\r
        item2.X-ABLabel:\(childLabel)\r
        item3.X-ABDATE:\(startedWork)\r
        item3.X-ABLabel:Started work\r
        item4.X-ABDATE:1999-02-30\r
        item4.X-ABLabel:_$!<Other>!$_\r
        END:VCARD\r

        """
    }

    static func imported() async throws -> (CLIProcess, String) {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        let file = try cli.write("iphone.vcf", card())
        let result = try await cli.run("import", file)
        #expect(result.status == 0, "\(result.stderr)")
        // The only problem: the date that is not one, with its line, property and label.
        #expect(result.stderr.contains("iphone.vcf:13: X-ABDATE labelled 'Other' '1999-02-30' is not a date"), "\(result.stderr)")
        #expect(result.stdout.contains("1 added"), "\(result.stdout)")
        #expect(!result.stderr.contains("Johnny"))
        return (cli, file)
    }

    @Test func showAndPeopleCarryTheLabels() async throws {
        let (cli, _) = try await Self.imported()
        defer { cli.cleanUp() }
        let show = try await cli.run("show", "johnny").stdout
        #expect(show.contains("Anniversary: 2008-06-21; next 2027-06-21 (in 205 days), 19 years"), "\(show)")
        #expect(show.contains("Child's birthday: 2015-12-01; next 2026-12-01 (in 3 days), turns 11"), "\(show)")
        #expect(show.contains("Started work: 2019-03-03; next 2027-03-03 (in 95 days), 8 years"), "\(show)")

        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let johnny = try #require(people.first)
        let labelled = try #require(johnny["labelled_dates"] as? [[String: Any]])
        #expect(labelled.map { $0["label"] as? String } == ["Child's birthday", "Started work"])
        #expect(labelled.map { $0["birthday"] as? Bool } == [true, false])
        let started = try #require(labelled.last?["date"] as? [String: Any])
        #expect(started["year"] as? Int == 2019 && started["month"] as? Int == 3 && started["day"] as? Int == 3)
        #expect(johnny["invalid_dates"] as? [String] == ["1999-02-30"])
        let table = try await cli.run("people").stdout
        #expect(table.contains("dates Child's birthday 2015-12-01, Started work 2019-03-03"), "\(table)")
        let shown = try await #require(try cli.json(["show", "johnny"]) as? [String: Any])
        let next = try #require(shown["next"] as? [[String: Any]])
        #expect(next.compactMap { $0["label"] as? String } == ["Child's birthday", "Started work"])
    }

    @Test func theDatesFollowTheCardOnTheNextImport() async throws {
        let (cli, file) = try await Self.imported()
        defer { cli.cleanUp() }
        let again = try await cli.run("import", file)
        #expect(again.stdout.contains("1 unchanged"), "\(again.stdout)")

        _ = try cli.write("iphone.vcf", Self.card(startedWork: "2020-01-06", childLabel: "Daughter's birthday"))
        let edited = try await cli.run("import", file)
        #expect(edited.stdout.contains("1 updated"), "\(edited.stdout)")
        let show = try await cli.run("show", "johnny").stdout
        #expect(show.contains("Started work: 2020-01-06; next 2027-01-06 (in 39 days), 7 years"), "\(show)")
        #expect(show.contains("Daughter's birthday: 2015-12-01"), "\(show)")
        #expect(!show.contains("Child's birthday"), "\(show)")
    }

    @Test func upcomingPendingAndTheFeedCarryTheLabel() async throws {
        let (cli, _) = try await Self.imported()
        defer { cli.cleanUp() }
        let table = try await cli.run("upcoming", "--days", "100").stdout
        #expect(table.contains("Johnny Appleseed  Child's birthday, turns 11"), "\(table)")
        #expect(table.contains("Johnny Appleseed  Started work, 8 years"), "\(table)")
        let upcoming = try await #require(try cli.json(["upcoming", "--days", "100"]) as? [[String: Any]])
        #expect(upcoming.map { $0["label"] as? String } == ["Child's birthday", "Started work"])
        #expect(upcoming.map { $0["kind"] as? String } == ["labelled", "labelled"])
        #expect(upcoming.map { $0["age"] as? Int } == [11, 8])

        try await cli.enableNotifications()
        let pending = try await #require(try cli.json(["pending"]) as? [[String: Any]])
        let ids = pending.compactMap { $0["id"] as? String }
        // <person>-date-<8 hex digits of the label's hash>-<timing>
        let child = try #require(ids.first)
        #expect(child.hasPrefix("johnny-date-") && child.hasSuffix("-daybefore") && child.count == "johnny-date-12345678-daybefore".count, "\(ids)")
        #expect(ids.prefix(2) == [child, child.replacingOccurrences(of: "-daybefore", with: "-dayof")])
        #expect(pending.first?["title"] as? String == "Johnny Appleseed: Child's birthday")
        #expect(pending.first?["body"] as? String == "Child's birthday, turns 11 (tomorrow)")

        let feed = try await cli.run("export").stdout
        #expect(feed.contains("SUMMARY:📅 Johnny Appleseed: Started work (8)\r\n"))
        #expect(feed.contains("X-BIRTHDAYS-LABEL:Child's birthday\r\n"))
    }

    @Test func theSettingAndTheLabelChoicesOutlastImports() async throws {
        let (cli, file) = try await Self.imported()
        defer { cli.cleanUp() }
        func labels() async throws -> [String] {
            let upcoming = try await #require(try cli.json(["upcoming", "--days", "366"]) as? [[String: Any]])
            return upcoming.compactMap { $0["label"] as? String }
        }
        let excluded = try await cli.run("exclude", "--label", "STARTED work")
        #expect(excluded.status == 0 && excluded.stdout.contains("Left out: dates labelled 'STARTED work' (1 date)"), "\(excluded.stdout)")
        #expect(try await labels() == ["Child's birthday"])
        _ = try await cli.run("import", file)
        #expect(try await labels() == ["Child's birthday"])
        try await cli.set("labelled-dates", "off")
        #expect(try await labels() == [])
        // The anniversary is no labelled date: the setting leaves it alone.
        #expect(try await cli.run("upcoming", "--days", "366").stdout.contains("anniversary, 19 years"))
        _ = try await cli.run("include", "--label", "started work")
        #expect(try await labels() == ["Started work"])
        let both = try await cli.run("exclude", "johnny", "--label", "x")
        #expect(both.status == 64 && both.stderr.contains("only one of them"), "\(both.stderr)")
    }

    @Test func googleEventColumns() async throws {
        let cli = try CLIProcess(now: "2026-11-28T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "google.csv",
            """
            First Name,Last Name,Birthday,Event 1 - Label,Event 1 - Value,Event 2 - Label,Event 2 - Value
            Johnny,Appleseed,,Anniversary,2008-06-21,Started work,2019-03-03

            """
        )
        let result = try await cli.run("import", file)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let labelled = try #require(people.first?["labelled_dates"] as? [[String: Any]])
        #expect(labelled.map { $0["label"] as? String } == ["Started work"])
        #expect((people.first?["anniversary"] as? [String: Any])?["year"] as? Int == 2008)
    }
}
