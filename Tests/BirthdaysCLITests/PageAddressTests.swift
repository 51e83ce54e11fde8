import Foundation
import TestSupport
import Testing

/// Issue 41: the small untruths around the feed and shares. Where the page
/// is (`feed url`, `serve`'s log and help), what the QR code of a loopback
/// address says on the page and under `share add` and `invite`, and how
/// `share add` counts.
@Suite struct PageAddressTests {
    @Test func feedURLPrintsThePageBesideTheFeedAndItsJSON() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-11")])
        let printed = try await cli.run("feed", "url", "--port", "9000")
        #expect(printed.status == 0, "\(printed.stderr)")
        let lines = printed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        let ics = try #require(lines.first)
        #expect(ics.hasPrefix("http://127.0.0.1:9000/calendar/") && ics.hasSuffix(".ics"))
        #expect(lines.last == String(ics.dropLast(4)), "the page is the address without an extension: \(lines)")
        let json = try #require(try await cli.json(["feed", "url", "--port", "9000"]) as? [String: String])
        #expect(json["page"] == lines.last)
        #expect(json["http"] == ics && json["json"] == String(ics.dropLast(4)) + ".json")
    }

    @Test func serveLogsWhereThePageIsWithoutItsTokenAndItsHelpNamesThePageSharesAndInvitations() async throws {
        let served = try await PageCommandTests.serve([("ada", "Ada Lovelace", "1990-03-11")])
        defer { served.stop() }
        let log = served.server.stderr
        #expect(log.contains("the page for the year is http://127.0.0.1:\(served.port)/calendar/<token>"), "\(log)")
        #expect(!log.contains(served.token), "the token is never logged")

        let help = try await served.cli.run("serve", "--help")
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for named in ["/calendar/<token> (the web page for the year", "share add", "/invite/<token>", "birthdays invite"] {
            #expect(text.contains(named), "serve --help names \(named): \(text)")
        }
    }

    /// The page's own QR code says under a loopback address that no phone reaches it, and only then.
    @Test func thePagesQRCodeOfALoopbackAddressSaysAPhoneCannotReachIt() async throws {
        let served = try await PageCommandTests.serve([("ada", "Ada Lovelace", "1990-03-11")])
        defer { served.stop() }
        let local = try await PageCommandTests.curl([served.page]).stdout
        #expect(local.contains("<figcaption>This address is this computer&#39;s own: a phone cannot reach it."), "\(local.suffix(1500))")
        let lan = try await PageCommandTests.curl(["-H", "Host: birthdays.example:\(served.port)", served.page]).stdout
        #expect(lan.contains("<figcaption>Scan this code with a phone&#39;s camera to subscribe.</figcaption>"))
        #expect(!lan.contains("cannot reach"))
    }

    /// A share's and an invitation's link is shown once and a second `add` of the
    /// name fails: the note under a loopback code names what makes a new link.
    @Test func theNoteUnderAShareOrInvitationsCodeNamesWhatMakesANewLink() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let imported = try await cli.run("import", try cli.write("cards.vcf", ShareCommandTests.cards))
        try #require(imported.status == 0, "\(imported.stderr)")

        let share = try await cli.run("share", "add", "Family and friends", "--group", "Family")
        try #require(share.status == 0, "\(share.stderr)")
        let shareText = share.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(shareText.contains("a phone cannot reach it"))
        #expect(shareText.contains("then birthdays share rotate 'Family and friends'."), "\(shareText)")
        #expect(!shareText.contains("run this again"))
        let rotated = try await cli.run("share", "rotate", "Family and friends")
        #expect(rotated.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("then run this again."))

        let invite = try await cli.run("invite", "Friends")
        try #require(invite.status == 0, "\(invite.stderr)")
        let inviteText = invite.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(inviteText.contains("birthdays invite remove Friends (answers already sent stay), then birthdays invite Friends"), "\(inviteText)")
        #expect(!inviteText.contains("run this again"))
    }

    /// Labelled dates and name days are not shared, nor without years dates in
    /// other calendars: `share add` says how many of the groups' people that leaves out.
    @Test func shareAddSaysWhoItsCountLeavesOutAndWhy() async throws {
        let cli = try CLIProcess(now: "2026-03-01T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let cards = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:ada\r
            FN:Ada Lovelace\r
            BDAY:1990-03-11\r
            CATEGORIES:Family\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:mei\r
            FN:Mei Chen\r
            X-ALTBDAY;CALSCALE=chinese:007800021101\r
            CATEGORIES:Family\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:sam\r
            FN:Sam Worker\r
            item1.X-ABDATE:2019-03-03\r
            item1.X-ABLabel:Started work\r
            CATEGORIES:Family\r
            END:VCARD\r

            """
        let imported = try await cli.run("import", try cli.write("cards.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")

        let withYears = try await cli.run("share", "add", "Family", "--group", "Family", "--host", "birthdays.example")
        try #require(withYears.status == 0, "\(withYears.stderr)")
        #expect(
            withYears.stdout.hasPrefix(
                "Share Family made: 2 people now (1 more in its groups has only labelled dates, which no share shows). Its link (shown once):\n"
            ),
            "\(withYears.stdout)"
        )
        let noYears = try await cli.run("share", "add", "Family2", "--group", "Family", "--no-years", "--host", "birthdays.example")
        try #require(noYears.status == 0, "\(noYears.stderr)")
        #expect(
            noYears.stdout.hasPrefix(
                "Share Family2 made: 1 person now (2 more in its groups have only labelled dates or dates in other calendars, "
                    + "which a share without years does not show). Its link (shown once):\n"
            ),
            "\(noYears.stdout)"
        )
    }
}
