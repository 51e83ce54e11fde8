import BirthdayCore
import Foundation
import TestSupport
import Testing

/// `birthdays share` (issue 35) through the real binary and the real
/// `birthdays serve`: each share's page, feed and JSON hold its groups only,
/// names and dates only, and its token is stored as a hash.
@Suite struct ShareCommandTests {
    /// Ada (Family, with an e-mail address and a note), Bob (Team), Cy (no group).
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada-uid@example.org\r
        FN:Ada Lovelace\r
        BDAY:1990-03-11\r
        CATEGORIES:Family\r
        EMAIL:ada@example.org\r
        TEL:+44 20 7946 0000\r
        NOTE:likes engines\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:bob\r
        FN:Bob Builder\r
        BDAY:1986-03-12\r
        CATEGORIES:Team\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:cy\r
        FN:Cy Nobody\r
        BDAY:1970-03-13\r
        END:VCARD\r

        """

    static func served() async throws -> PageCommandTests.Served {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", try cli.write("cards.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        return try await PageCommandTests.serve(cli)
    }

    /// The token of a `share add` or `share rotate` answer (its page line).
    static func token(_ output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("page:") })
        return String(try #require(line.split(separator: "/").last))
    }

    static func get(_ served: PageCommandTests.Served, _ path: String) async throws -> (status: String, body: String) {
        let answer = try await PageCommandTests.curl(["-w", "\n%{http_code}", "http://127.0.0.1:\(served.port)/calendar/\(path)"]).stdout
        let status = String(answer.split(separator: "\n").last ?? "")
        return (status, String(answer.dropLast(status.count + 1)))
    }

    @Test func aShareShowsItsGroupsNamesAndDatesOnly() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let added = try await served.cli.run("share", "add", "Family", "--group", "Family", "--port", String(served.port))
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("1 person now"))
        #expect(added.stdout.contains("█"), "the QR code")
        let token = try Self.token(added.stdout)
        #expect(FeedToken.isWellFormed(token), "128 random bits")

        for path in [token, token + ".json", token + ".ics"] {
            let (status, body) = try await Self.get(served, path)
            #expect(status == "200", "\(path)")
            #expect(body.contains("Ada Lovelace"), "\(path)")
            for hidden in ["Bob Builder", "Cy Nobody", "ada@example.org", "7946", "likes engines", "ada-uid", "mailto:", "tel:"] {
                #expect(!body.contains(hidden), "\(path) shows \(hidden)")
            }
        }
        let feed = try await Self.get(served, token + ".ics").body
        #expect(!feed.contains("BEGIN:VALARM"), "the owner's reminder settings are not shared")
        let page = try await Self.get(served, token).body
        #expect(page.contains("birthday, turns 36"), "ages by default")
        #expect(page.contains("href=\"\(token).ics\""), "its own links, not the owner's")
        #expect(!page.contains(served.token))

        // The database keeps the token's hash, never the token.
        let database =
            try Data(contentsOf: URL(fileURLWithPath: served.cli.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: served.cli.databasePath + "-wal"))) ?? Data())
        #expect(database.range(of: Data(token.utf8)) == nil)
        #expect(database.range(of: Data(Share.tokenHash(token).utf8)) != nil)
    }

    /// The owner's page, feed and JSON and a share's are revalidated each
    /// with its own tag (the owner's on the server's fast path): one's tag
    /// never gets the other a 304.
    @Test func aSharesTagsAndTheOwnersNeverAnswerEachOther() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let added = try await served.cli.run("share", "add", "Family", "--group", "Family", "--port", String(served.port))
        #expect(added.status == 0, "\(added.stderr)")
        let share = try Self.token(added.stdout)
        func answer(_ url: String, _ tag: String? = nil) async throws -> (status: Int, fields: [String: String]) {
            let condition = tag.map { ["-H", "If-None-Match: \($0)"] } ?? []
            return PageCommandTests.headers(try await PageCommandTests.curl(["-D", "-", "-o", "/dev/null"] + condition + [url]).stdout)
        }
        for suffix in ["", ".json", ".ics"] {
            let owner = "http://127.0.0.1:\(served.port)/calendar/\(served.token)\(suffix)"
            let shared = "http://127.0.0.1:\(served.port)/calendar/\(share)\(suffix)"
            let ownerTag = try #require(try await answer(owner).fields["etag"])
            let shareTag = try #require(try await answer(shared).fields["etag"])
            #expect(ownerTag != shareTag)
            for (url, tag, status) in [(owner, ownerTag, 304), (shared, shareTag, 304), (owner, shareTag, 200), (shared, ownerTag, 200)] {
                let (got, fields) = try await answer(url, tag)
                #expect(got == status, "\(url == owner ? "owner" : "share")\(suffix) with the \(tag == ownerTag ? "owner's" : "share's") tag")
                #expect(fields["etag"] == (url == owner ? ownerTag : shareTag))
                #expect((fields["content-security-policy"] != nil) == suffix.isEmpty)
            }
        }
    }

    @Test func noYearsAndNoAgesAreKept() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let noYears = try Self.token(try await served.cli.run("share", "add", "Kids", "--group", "Family", "--no-years").stdout)
        let noAges = try Self.token(try await served.cli.run("share", "add", "Quiet", "--group", "Family", "--no-ages").stdout)
        let yearless = try await Self.get(served, noYears + ".json").body
        #expect(yearless.contains("\"year\": null") && yearless.contains("\"age\": null"), "\(yearless)")
        #expect(!yearless.contains("1990"))
        #expect(!(try await Self.get(served, noYears + ".ics").body.contains("1990")))
        #expect(!(try await Self.get(served, noYears).body.contains("turns 36")))
        let ageless = try await Self.get(served, noAges + ".json").body
        #expect(ageless.contains("\"age\": null"))
        let agelessFeed = try await Self.get(served, noAges + ".ics").body
        #expect(agelessFeed.contains("Ada Lovelace") && !agelessFeed.contains("1990"), "a year in the feed would tell the age")
        #expect(!(try await Self.get(served, noAges).body.contains("turns 36")))
        let listed = try CLIProcess.array(try await served.cli.run("share", "list", "--json").stdout)
        #expect(listed.map { $0["name"] as? String } == ["Kids", "Quiet"])
        #expect(listed.map { $0["years"] as? Bool } == [false, true])
        #expect(listed.map { $0["ages"] as? Bool } == [false, false])
    }

    @Test func rotatingOrRemovingAShareTouchesNothingElse() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let family = try Self.token(try await served.cli.run("share", "add", "Family", "--group", "Family").stdout)
        let team = try Self.token(try await served.cli.run("share", "add", "Team", "--group", "Team").stdout)
        #expect(try await Self.get(served, team).body.contains("Bob Builder"))
        let rotated = try await served.cli.run("share", "rotate", "Family")
        #expect(rotated.status == 0)
        let newFamily = try Self.token(rotated.stdout)
        #expect(newFamily != family)
        #expect(try await Self.get(served, family).status == "404")
        #expect(try await Self.get(served, newFamily).status == "200")
        #expect(try await Self.get(served, team).status == "200")
        #expect(try await Self.get(served, served.token + ".ics").status == "200", "the owner's feed")
        #expect(try await served.cli.run("share", "remove", "Team").status == 0)
        #expect(try await Self.get(served, team + ".json").status == "404")
        #expect(try await Self.get(served, newFamily + ".json").status == "200")
        let missing = try await served.cli.run("share", "rotate", "Nope")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("there is no share named"))
    }

    @Test func aShareNeedsAGroupAndAFreshName() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        #expect(try await cli.run("import", try cli.write("cards.vcf", Self.cards)).status == 0)
        let noGroup = try await cli.run("share", "add", "Family")
        #expect(noGroup.status == 64)
        #expect(noGroup.stderr.contains("--group"))
        #expect(try await cli.run("share", "add", "Family", "--group", "Family").status == 0)
        let again = try await cli.run("share", "add", "Family", "--group", "Team")
        #expect(again.status == 1)
        #expect(again.stderr.contains("already a share named"))
        let badName = try await cli.run("share", "add", "two\nlines", "--group", "Family")
        #expect(badName.status == 64)
    }
}
