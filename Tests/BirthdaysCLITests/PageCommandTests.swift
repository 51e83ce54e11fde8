import BirthdayCore
import Foundation
import TestSupport
import Testing

/// The page for the year (issue 35) from the real `birthdays serve`, over
/// real HTTP with curl: headers, tags, the token rules, the language, and
/// hostile names.
@Suite struct PageCommandTests {
    /// A served database and the page's address.
    struct Served {
        let cli: CLIProcess
        let server: TestProcess
        let port: Int
        let token: String
        var page: String { "http://127.0.0.1:\(port)/calendar/\(token)" }

        func stop() {
            server.stop()
            cli.cleanUp()
        }
    }

    /// `birthdays serve` on a free port over `cards`, at 2026-03-10 08:00 Berlin.
    static func serve(_ cards: [(uid: String, name: String, birthday: String)], settings: [(String, String)] = []) async throws -> Served {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        try await cli.seed(cards)
        for (key, value) in settings { try await cli.set(key, value) }
        return try await serve(cli)
    }

    /// `birthdays serve` on a free port over `cli`'s database.
    static func serve(_ cli: CLIProcess) async throws -> Served {
        let port = try Loopback.freePort()
        let server = try TestProcess(
            [try CLIProcess.binary(), "serve", "--port", String(port)],
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        let healthz = "http://127.0.0.1:\(port)/healthz"
        try await server.waitUntil("the server") { _ in await (try? curl(["-o", "/dev/null", "-w", "%{http_code}", healthz]))?.stdout == "200" }
        let url = try await cli.run("feed", "url", "--port", String(port)).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let token = String(try #require(url.split(separator: "/").last).dropLast(4))
        return Served(cli: cli, server: server, port: port, token: token)
    }

    static func curl(_ arguments: [String]) async throws -> CLIProcess.Output {
        try await TestProcess.run(["/usr/bin/env", "curl", "-s", "--max-time", "20"] + arguments)
    }

    /// The status line's code and the headers (lower-cased names) of a `curl -D -` answer.
    static func headers(_ text: String) -> (status: Int, fields: [String: String]) {
        var fields: [String: String] = [:]
        var status = 0
        for line in text.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return (status, fields)
    }

    static let people: [(uid: String, name: String, birthday: String)] = [
        ("ada", "Ada Lovelace", "1990-03-11"),
        ("alan", "Alan Turing", "1996-06-23"),
        ("grace", "Grace Hopper", "--12-09"),
    ]

    @Test func thePageHasTheNextBirthdaysTheTwelveMonthsAndAStrictPolicy() async throws {
        let served = try await Self.serve(Self.people)
        defer { served.stop() }
        let answer = try await Self.curl(["-D", "-", served.page])
        let (head, body) = try #require(answer.stdout.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init).twoParts)
        let (status, fields) = Self.headers(head)
        #expect(status == 200)
        #expect(fields["content-type"] == "text/html; charset=utf-8")
        #expect(fields["content-security-policy"]?.hasPrefix("default-src 'none'; style-src 'self'; img-src 'self'") == true)
        #expect(fields["referrer-policy"] == "no-referrer")
        #expect(fields["x-content-type-options"] == "nosniff")
        #expect(body.occurrences(of: "<section class=\"month\"") == 12)
        #expect(!body.contains("<script"), "no script on the page")
        // Ada turns 36 tomorrow, the first of the next events; Alan's dot is on 23 June, a round one.
        let next = try #require(body.range(of: "<ol>").map { body[$0.upperBound...] })
        #expect(next.prefix(400).contains("tomorrow"))
        #expect(next.prefix(400).contains("Ada Lovelace"))
        #expect(body.contains("birthday, turns 36"))
        #expect(
            body.contains(
                "<td class=\"has round\" tabindex=\"0\"><span class=\"day\">23</span><span class=\"who\"><span><span class=\"sym\" aria-hidden=\"true\">● </span>Alan Turing"
            ),
            "30: round"
        )
        #expect(body.contains("<td class=\"today\"><span class=\"day\" aria-current=\"date\">10</span>"))
        #expect(body.contains("href=\"\(served.token).ics\""), "the feed, relative to the page")
        #expect(body.contains("webcal://127.0.0.1:\(served.port)/calendar/\(served.token).ics"))
        #expect(body.contains("<svg"), "the QR code, drawn inline")
        // Its stylesheet and icon come from the same server, without the token.
        #expect(
            try await Self.curl(["-o", "/dev/null", "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(served.port)/page.css"]).stdout
                == "200 text/css; charset=utf-8"
        )
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(served.port)/favicon.svg"]).stdout == "200")
        // The access log never holds the token or a name.
        #expect(!served.server.stderr.contains(served.token) && !served.server.stdout.contains(served.token))
        #expect(!served.server.stderr.contains("Ada") && !served.server.stdout.contains("Ada"))
    }

    @Test func thePageHasTheFeedsTagsRevalidationAndGzip() async throws {
        let served = try await Self.serve(Self.people)
        defer { served.stop() }
        let first = Self.headers(try await Self.curl(["-D", "-", "-o", "/dev/null", served.page]).stdout)
        let etag = try #require(first.fields["etag"])
        let again = Self.headers(try await Self.curl(["-D", "-", "-o", "/dev/null", "-H", "If-None-Match: \(etag)", served.page]).stdout)
        #expect(again.status == 304)
        #expect(again.fields["content-security-policy"] != nil)
        let zipped = Self.headers(try await Self.curl(["-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", served.page]).stdout)
        #expect(zipped.fields["content-encoding"] == "gzip")
        #expect(zipped.fields["etag"] != etag)
        // A change to the data is a new page.
        try await served.cli.seed([("mei", "Mei Chen", "1985-03-12")])
        let changed = try await Self.curl(["-D", "-", "-H", "If-None-Match: \(etag)", served.page]).stdout
        #expect(Self.headers(changed).status == 200)
        #expect(changed.contains("Mei Chen"))
    }

    @Test func aWrongTokenIsTheOne404() async throws {
        let served = try await Self.serve(Self.people)
        defer { served.stop() }
        let unknown = try await Self.curl(["-w", " %{http_code}", "http://127.0.0.1:\(served.port)/nothing"]).stdout
        let other = served.token.hasSuffix("0") ? "1" : "0"
        for path in [String(served.token.dropLast()) + other, "", served.token.uppercased(), served.token + ".html", served.token + "x"] {
            let answer = try await Self.curl(["-w", " %{http_code}", "http://127.0.0.1:\(served.port)/calendar/\(path)"]).stdout
            #expect(answer == unknown, "\(path)")
        }
        // A rotated token locks the old page out at once.
        #expect(try await served.cli.run("feed", "rotate").status == 0)
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", served.page]).stdout == "404")
    }

    @Test func thePageSpeaksTheUsersLanguage() async throws {
        let served = try await Self.serve(Self.people, settings: [("language", "de")])
        defer { served.stop() }
        let body = try await Self.curl([served.page]).stdout
        #expect(body.contains("<html lang=\"de\">"))
        #expect(body.contains("Das Jahr 2026"))
        #expect(body.contains("März"))
        #expect(body.contains("morgen"))
        #expect(body.contains("Geburtstag, wird 36"))
    }

    @Test func aHostileNameIsShownAsTypedAndNeverAsMarkup() async throws {
        let served = try await Self.serve([("x", "<script>window.pwned=1</script><img src=x onerror=alert(1)> \"Bob\" & 'Co'", "1990-03-11")])
        defer { served.stop() }
        let body = try await Self.curl([served.page]).stdout
        #expect(!body.contains("<script>"))
        #expect(!body.contains("<img"))
        #expect(body.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &quot;Bob&quot; &amp; &#39;Co&#39;"))
    }

    @Test func eachPersonHasALineOnTheOwnersPageWithLinksOnlyUnderContactLinksAndNoneOnAShare() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let cards = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:ada\r
            FN:Ada Lovelace\r
            BDAY:1990-03-11\r
            CATEGORIES:Family,Engines\r
            EMAIL:ada@example.org\r
            TEL:+44 20 7946 0000\r
            TZ:Asia/Tokyo\r
            NOTE:likes engines\r
            END:VCARD\r

            """
        let imported = try await cli.run("import", try cli.write("cards.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        let served = try await Self.serve(cli)
        defer { served.stop() }

        // Off by default: the line, without links.
        let plain = try await Self.curl([served.page]).stdout
        let line = try #require(plain.range(of: "<span class=\"line\">").map { String(plain[$0.lowerBound...].prefix(while: { $0 != "\n" })) })
        #expect(!line.contains("2026-03-11"), "the birthday it is under is not repeated: \(line)")
        #expect(line.contains("<span class=\"zone\">Tokyo</span>"), "\(line)")
        #expect(line.contains("Groups: Engines, Family"), "\(line)")
        for hidden in ["mailto:", "tel:", "sms:", "ada@example.org", "likes engines"] { #expect(!plain.contains(hidden), "\(hidden)") }

        // contact-links on: a new page, with the links.
        try await cli.set("contact-links", "on")
        let linked = try await Self.curl([served.page]).stdout
        #expect(linked.contains("<a href=\"mailto:ada@example.org?subject=Happy%20birthday%21\">Write to Ada Lovelace</a>"))
        #expect(linked.contains("<a href=\"tel:+442079460000\">Call Ada Lovelace</a>"))
        #expect(linked.contains("<a href=\"sms:+442079460000\">"))
        #expect(!linked.contains("likes engines"), "never the note")

        // A share shows names, dates and ages only.
        let added = try await cli.run("share", "add", "Family", "--group", "Family", "--port", String(served.port))
        try #require(added.status == 0, "\(added.stderr)")
        let token = try ShareCommandTests.token(added.stdout)
        let shared = try await Self.curl([served.page.replacingOccurrences(of: served.token, with: token)]).stdout
        #expect(shared.contains("Ada Lovelace"))
        for hidden in ["class=\"line\"", "mailto:", "tel:", "sms:", "Tokyo", "Engines"] {
            #expect(!shared.contains(hidden), "a share shows \(hidden)")
        }
    }

    /// Issue 41, on 6 December: the months are the coming twelve (December to
    /// November), and each person's line names every date by its label and
    /// does not repeat the event it sits under, which falls early next year.
    @Test func inDecemberThePageShowsTheComingTwelveMonthsAndEachLineNamesItsDatesByTheirLabels() async throws {
        let cli = try CLIProcess(now: "2026-12-06T08:00:00+01:00")
        let cards =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-01-05\r\nANNIVERSARY:2015-06-01\r\n"
            + "item1.X-ABDATE:2019-03-03\r\nitem1.X-ABLabel:Started work\r\nitem2.X-ABDATE:2015-12-20\r\nitem2.X-ABLabel:Child's birthday\r\n"
            + "END:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:janis\r\nN:Bērziņš;Jānis;;;\r\nFN:Jānis Bērziņš\r\nBDAY:1980-04-12\r\nEND:VCARD\r\n"
        let imported = try await cli.run("import", try cli.write("cards.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        try await cli.set("name-days", "lv")
        let served = try await Self.serve(cli)
        defer { served.stop() }
        let body = try await Self.curl([served.page]).stdout

        #expect(body.contains("<h2 id=\"year\">December 2026 – November 2027</h2>"), "the coming twelve months")
        let headings = body.components(separatedBy: "<h3 id=\"").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(headings.first == "m12\">December 2026" && headings.last == "m11\">November 2027", "\(headings)")
        let january = try #require(body.range(of: "<h3 id=\"m1\">").map { String(body[$0.lowerBound...].prefix(4000)) })
        #expect(january.contains("Ada Lovelace"), "her birthday of January 2027 is in the grid")

        let lines = body.components(separatedBy: "<li").dropFirst().compactMap { item -> (String, String)? in
            guard let date = item.range(of: "<time datetime=\""), let line = item.range(of: "<span class=\"line\">") else { return nil }
            return (String(item[date.upperBound...].prefix(10)), String(item[line.lowerBound...].prefix { $0 != "\n" }))
        }
        let underBirthday = try #require(lines.first { $0.0 == "2027-01-05" }?.1)
        #expect(!underBirthday.contains("-01-05"), "the birthday it sits under is not repeated: \(underBirthday)")
        #expect(underBirthday.contains("Child&#39;s birthday <time datetime=\"2026-12-20\">"), "\(underBirthday)")
        #expect(underBirthday.contains("Started work <time datetime=\"2027-03-03\">"), "\(underBirthday)")
        #expect(underBirthday.contains("anniversary <time datetime=\"2027-06-01\">"), "\(underBirthday)")
        #expect(!underBirthday.contains("anniversary <time datetime=\"2027-03-03\">"), "\(underBirthday)")
        let underJanis = try #require(lines.first { $0.0 == "2027-04-12" }?.1)
        #expect(underJanis.contains("Name day <time datetime="), "\(underJanis)")
        #expect(!underJanis.contains("anniversary"), "\(underJanis)")
    }

    /// Issue 41, in June: the calendar year, January to December.
    @Test func inJuneThePageShowsTheCalendarYear() async throws {
        let cli = try CLIProcess(now: "2026-06-15T08:00:00+02:00")
        try await cli.seed(Self.people)
        let served = try await Self.serve(cli)
        defer { served.stop() }
        let body = try await Self.curl([served.page]).stdout
        #expect(body.contains("<h2 id=\"year\">The year 2026</h2>"))
        let headings = body.components(separatedBy: "<h3 id=\"").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(headings.first == "m1\">January" && headings.last == "m12\">December", "\(headings)")
    }

    @Test func printMonthIsAVariantWithItsOwnTag() async throws {
        let served = try await Self.serve(Self.people)
        defer { served.stop() }
        let year = Self.headers(try await Self.curl(["-D", "-", "-o", "/dev/null", served.page]).stdout)
        let month = try await Self.curl(["-D", "-", served.page + "?print=month"]).stdout
        #expect(month.contains("<body class=\"print-month\">"))
        #expect(Self.headers(month).fields["etag"] != year.fields["etag"])
    }
}

extension Array where Element == String {
    fileprivate var twoParts: (String, String)? { count == 2 ? (self[0], self[1]) : nil }
}
