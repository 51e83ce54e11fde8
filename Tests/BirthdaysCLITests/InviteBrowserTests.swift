import Foundation
import TestSupport
import Testing

/// An invitation's form in a real browser (issue 35): Debian's Chromium
/// through chromium-driver and python3-selenium (`Tests/Browser/invite_check.py`),
/// against the real `birthdays serve`: filled and sent as a person would,
/// the answer then in `invites`; a `<script>` in the name runs neither on
/// the form shown again nor on the owner's page once accepted; axe-core has
/// no serious or critical finding on the form. Skips as PageBrowserTests does.
@Suite(.serialized, .enabled(if: BrowserTools.missing == nil, "\(BrowserTools.missing ?? "")"))
struct InviteBrowserTests {
    static let script = Repository.root.appendingPathComponent("Tests/Browser/invite_check.py").path

    static func fill(_ url: String, name: String, day: String, month: String, year: String = "") async throws -> [String: Any] {
        let arguments = [SystemTools.python, script, url, name, day, month] + (year.isEmpty ? [] : [year])
        let result = try await TestProcess.run(arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        try #require(result.status == 0, "invite_check.py failed: \(result.stderr.suffix(3000))")
        return try CLIProcess.object(result.stdout)
    }

    @Test func theFormIsFilledAndSentInABrowserAndItsAnswerWaits() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends", "--group", "Family")
        let hostile = "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">Eve"
        let facts = try await Self.fill(InviteCommandTests.url(served, token), name: hostile, day: "24", month: "12", year: "1980")
        #expect(facts["fields"] as? [String] == ["day", "month", "name", "nonce", "year"])
        #expect(facts["lang"] as? String == "en")
        #expect(facts["axe"] as? [String] == [], "axe's serious and critical violations: \(facts["axe"] ?? "")")
        #expect((facts["invalid_problem"] as? [String])?.first?.contains("This date does not exist") == true, "\(facts)")
        #expect(facts["invalid_name_back"] as? String == hostile, "what was typed, as typed")
        #expect(facts["invalid_script_ran"] as? Bool == false)
        #expect((facts["sent_text"] as? String)?.contains("Thank you") == true, "\(facts["sent_text"] ?? "")")
        #expect(facts["sent_script_ran"] as? Bool == false)
        // The one console error is the form shown again with its status, 400 (Bad Request).
        let errors = (facts["console_errors"] as? [String] ?? []).filter { !$0.contains("status of 400") }
        #expect(errors == [], "\(facts["console_errors"] ?? "")")
        #expect(facts["csp_violations"] as? [String] == [])
        #expect(facts["foreign_requests"] as? [String] == [])

        let answers = try await InviteCommandTests.answers(served.cli)
        #expect(answers.count == 1, "the invalid send stored nothing")
        #expect(answers.first?["name"] as? String == hostile)
        #expect(answers.first?["date"] as? String == "1980-12-24")

        // Accepted, the name is on the owner's page (in the Family group, on a share's too): shown, never run.
        #expect(try await served.cli.run("invites", "accept", "1").status == 0)
        let page = try await PageBrowserTests.check(served.page)
        #expect((page["names"] as? [String] ?? []).contains { $0.hasPrefix("<script>window.pwned=1</script>") }, "\(page["names"] ?? "")")
        #expect(page["script_ran"] as? Bool == false)
        #expect(page["csp_violations"] as? [String] == [])
        let share = try ShareCommandTests.token(try await served.cli.run("share", "add", "Family", "--group", "Family").stdout)
        let shared = try await PageBrowserTests.check("http://127.0.0.1:\(served.port)/calendar/\(share)")
        #expect((shared["names"] as? [String] ?? []).contains { $0.hasPrefix("<script>window.pwned=1</script>") })
        #expect(shared["script_ran"] as? Bool == false)
    }

    @Test func theFormIsInTheOwnersLanguage() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        try await served.cli.set("language", "de")
        let token = try await InviteCommandTests.invite(served, "Freunde", "--note", "Nur Ada sieht das.")
        let facts = try await Self.fill(InviteCommandTests.url(served, token), name: "Grete", day: "29", month: "2")
        #expect(facts["lang"] as? String == "de")
        #expect((facts["form_text"] as? String)?.contains("Nur Ada sieht das.") == true)
        #expect((facts["sent_text"] as? String)?.contains("Danke") == true)
        #expect(facts["axe"] as? [String] == [])
        #expect(try await InviteCommandTests.answers(served.cli).first?["date"] as? String == "--02-29")
    }
}
