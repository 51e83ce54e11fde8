import Foundation
import TestSupport
import Testing

/// The page for the year in a real browser: Debian's Chromium, driven by
/// chromium-driver through python3-selenium (`Tests/Browser/page_check.py`),
/// against the real `birthdays serve`, with axe-core (PyPI's
/// axe-selenium-python) as the accessibility check. `make deps-test`
/// installs all of it; without it the suite skips, naming what is missing.
@Suite(.serialized, .enabled(if: BrowserTools.missing == nil, "\(BrowserTools.missing ?? "")"))
struct PageBrowserTests {
    static let script = Repository.root.appendingPathComponent("Tests/Browser/page_check.py").path

    /// Opens `url` and returns what the page showed and did (the script's JSON).
    static func check(_ url: String, screenshot: String? = nil, popupsAt width: Int? = nil) async throws -> [String: Any] {
        var arguments = [SystemTools.python, script, url, "--axe"]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        if let width { arguments += ["--popups", String(width)] }
        let result = try await TestProcess.run(arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        try #require(result.status == 0, "page_check.py failed: \(result.stderr.suffix(3000))")
        return try CLIProcess.object(result.stdout)
    }

    @Test func thePageRendersWithNothingFromElsewhereNoScriptAndOneLandscapePage() async throws {
        let served = try await PageCommandTests.serve(
            [
                ("ada", "Ada Lovelace", "1990-03-11"), ("alan", "Alan Turing", "1996-06-23"),
                ("x", "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">Eve", "1980-12-24"),
            ]
        )
        defer { served.stop() }
        let screenshot = served.cli.path("page.png")
        let facts = try await Self.check(served.page, screenshot: screenshot)
        #expect(facts["months"] as? Int == 12)
        #expect((facts["next"] as? Int ?? 0) >= 3)
        let names = facts["names"] as? [String] ?? []
        #expect(names.contains { $0.hasPrefix("Ada Lovelace") })
        #expect(names.contains { $0.hasPrefix("<script>window.pwned=1</script>") }, "the name shown as typed: \(names)")
        #expect(facts["script_ran"] as? Bool == false)
        #expect(facts["console_errors"] as? [String] == [], "\(facts["console_errors"] ?? "")")
        #expect(facts["foreign_requests"] as? [String] == [], "\(facts["requests"] ?? "")")
        #expect((facts["csp"] as? String)?.hasPrefix("default-src 'none'") == true)
        #expect(facts["csp_violations"] as? [String] == [])
        #expect(facts["pdf_pages"] as? Int == 1, "the year on one page")
        #expect(facts["pdf_landscape"] as? Bool == true)
        #expect(facts["pdf_month_pages"] as? Int == 12, "?print=month: a month a page")
        #expect(facts["axe"] as? [String] == [], "axe's serious and critical violations: \(facts["axe"] ?? "")")
    }

    /// A share's page in the browser holds its group's people only.
    @Test func aSharesPageShowsOnlyItsGroups() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", try cli.write("cards.vcf", ShareCommandTests.cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }
        let token = try ShareCommandTests.token(try await cli.run("share", "add", "Team", "--group", "Team").stdout)
        let facts = try await Self.check("http://127.0.0.1:\(served.port)/calendar/\(token)")
        let names = facts["names"] as? [String] ?? []
        #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("Bob Builder") }, "\(names)")
        #expect(facts["console_errors"] as? [String] == [])
        #expect(facts["axe"] as? [String] == [])
    }

    /// The owner's page with `contact-links` on: each of the next birthdays
    /// has its person's line, Ada's with her links, and axe still finds nothing.
    @Test func theOwnersPageHasEachPersonsLineWithTheirLinks() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", try cli.write("cards.vcf", ShareCommandTests.cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        try await cli.set("contact-links", "on")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }
        let facts = try await Self.check(served.page)
        let lines = facts["lines"] as? Int ?? 0
        #expect(lines >= 1 && lines <= facts["next"] as? Int ?? 0, "at most one line per item: \(lines)")
        let links = facts["links"] as? [String] ?? []
        #expect(links.contains("mailto:ada@example.org?subject=Happy%20birthday%21"), "\(links)")
        #expect(links.contains("tel:+442079460000") && links.contains("sms:+442079460000"), "\(links)")
        #expect(facts["csp_violations"] as? [String] == [])
        #expect(facts["console_errors"] as? [String] == [])
        #expect(facts["axe"] as? [String] == [], "axe's serious and critical violations: \(facts["axe"] ?? "")")
    }

    /// Issue 41: on a 375 px phone every named day's pop-up lies within the
    /// screen, the Sunday column's (the first in English) and Saturday's too.
    @Test func onAPhoneEveryDaysPopUpIsWithinTheScreen() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", CLIProcess.samples + "/contacts.vcf")
        try #require(imported.status == 0, "\(imported.stderr)")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }
        let facts = try await Self.check(served.page, popupsAt: 375)
        #expect((facts["popups"] as? Int ?? 0) >= 40, "the samples name many days: \(facts["popups"] ?? "")")
        #expect(facts["popups_outside"] as? [String] == [], "\(facts["popups_outside"] ?? "")")
    }

    /// `count` people with a birthday each, every third with an anniversary and
    /// every fifth with a labelled date, spread over the year as people are.
    static func cards(_ count: Int) -> String {
        let given = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tim"]
        let family = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth", "Perlman"]
        var state: UInt64 = 41
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { index in
            let day = { String(format: "%02d-%02d", 1 + next(12), 1 + next(28)) }
            var card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:p\(index)\r\n"
            card += "FN:\(given[index % given.count]) \(family[(index / given.count) % family.count]) \(index)\r\n"
            card += "BDAY:19\(50 + next(50))-\(day())\r\n"
            if index % 3 == 0 { card += "ANNIVERSARY:20\(10 + next(15))-\(day())\r\n" }
            if index % 5 == 0 { card += "item1.X-ABDATE:2019-\(day())\r\nitem1.X-ABLabel:Started work\r\n" }
            return card + "END:VCARD\r\n"
        }.joined()
    }

    /// Issue 41: printed, the year is one landscape page at 50, 150 and 400
    /// people, each name marked with its kind's symbol and a legend saying
    /// what they mean.
    @Test(arguments: [50, 150, 400])
    func theYearPrintsOnOneLandscapePageWithEachKindMarked(people: Int) async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", try cli.write("cards.vcf", Self.cards(people)))
        try #require(imported.status == 0, "\(imported.stderr)")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }
        let facts = try await Self.check(served.page)
        #expect(facts["pdf_pages"] as? Int == 1, "the year on one page with \(people) people")
        #expect(facts["pdf_landscape"] as? Bool == true)
        let legend = facts["print_legend"] as? String ?? ""
        #expect(["● birthday", "♥ anniversary", "◆ Started work"].allSatisfy { legend.contains($0) }, "the printed legend: \(legend)")
        #expect((facts["print_symbols"] as? Int ?? 0) >= people, "each printed name has its symbol: \(facts["print_symbols"] ?? "")")
        #expect(facts["print_cut"] as? Int == 0, "no day's names cut off: \(facts["print_cut"] ?? "")")
    }

    /// The picture of the README's tour: the samples at 2026-03-10, taken
    /// here; `BIRTHDAYS_SCREENSHOTS=1` copies it to docs/images/page.png.
    @Test func theToursScreenshot() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", CLIProcess.samples + "/contacts.vcf")
        try #require(imported.status == 0, "\(imported.stderr)")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }
        let screenshot = served.cli.path("page.png")
        let facts = try await Self.check(served.page, screenshot: screenshot)
        #expect(facts["months"] as? Int == 12)
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        if ProcessInfo.processInfo.environment["BIRTHDAYS_SCREENSHOTS"] == "1" {
            let target = Repository.root.appendingPathComponent("docs/images/page.png")
            try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: target)
            try png.write(to: target)
        }
    }
}

/// What the browser tests need.
enum BrowserTools {
    /// What the browser tests need and do not find, or `nil`.
    static var missing: String? {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") { return "needs chromium (apt: chromium)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") { return "needs chromedriver (apt: chromium-driver)" }
        if !SystemTools.pythonHas("selenium") { return "needs python3-selenium (apt: python3-selenium)" }
        if !SystemTools.pythonHas("axe_selenium_python") { return "needs axe-selenium-python (make deps-test installs it from PyPI)" }
        return nil
    }
}
