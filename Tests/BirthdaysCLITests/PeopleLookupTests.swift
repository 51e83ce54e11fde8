import Foundation
import TestSupport
import Testing

/// People you can find: `show` and `people` take a part of a name in any
/// case, list each id with its date on a tie, suggest names on a miss.
@Suite struct PeopleLookupTests {
    let cli: CLIProcess

    init() async throws {
        cli = try CLIProcess()
        let cards = """
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-11\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:byron\r\nFN:Ada Byron\r\nBDAY:1815-12-10\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:li\r\nFN:李小龍\r\nBDAY:1940-11-27\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:zoe\r\nFN:Zoë 🎂 Smith\r\nBDAY;VALUE=text:circa 1800\r\nEND:VCARD\r

            """
        let imported = try await cli.run("import", try cli.write("people.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    @Test func aPartOfANameInAnyCaseFindsThePerson() async throws {
        defer { cli.cleanUp() }
        let shown = try await cli.run("show", "lovelace")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Ada Lovelace\nId: ada\nBirthday: 1990-03-11;"))
        await #expect(try cli.run("show", "ZOE").stdout.hasPrefix("Zoë 🎂 Smith\n"), "case and accents do not matter")
        await #expect(try cli.run("show", "小龍").stdout.hasPrefix("李小龍\n"))
    }

    @Test func aTieListsEachIdWithItsDate() async throws {
        defer { cli.cleanUp() }
        let tie = try await cli.run("show", "ADA")
        #expect(tie.status == 1)
        #expect(
            tie.stderr == """
                Error: 2 people match 'ADA'; use an id:
                  byron  Ada Byron     birthday 1815-12-10
                  ada    Ada Lovelace  birthday 1990-03-11

                """
        )
        await #expect(try cli.run("show", "byron").stdout.hasPrefix("Ada Byron\n"))
    }

    @Test func aMissSuggestsTheClosestNames() async throws {
        defer { cli.cleanUp() }
        let miss = try await cli.run("show", "Lovelase")
        #expect(miss.status == 1)
        #expect(miss.stderr == "Error: no person's id or name contains 'Lovelase'; did you mean Ada Lovelace (ada)?\n")
        let none = try await cli.run("people", "xyzzy")
        #expect(none.status == 1)
        #expect(none.stderr == "Error: no person's id or name contains 'xyzzy'; see: birthdays people\n")
    }

    @Test func peopleShowsIdsAndFilters() async throws {
        defer { cli.cleanUp() }
        let all = try await cli.run("people")
        #expect(all.stdout.hasPrefix("ID     NAME          BIRTHDAY    ANNIVERSARY\n"), "\(all.stdout)")
        #expect(all.stdout.contains("\nli     李小龍        1940-11-27  -\n"), "padded by display width: \(all.stdout)")
        #expect(all.stdout.contains("\nzoe    Zoë 🎂 Smith  -           -            unreadable: circa 1800\n"), "\(all.stdout)")
        let filtered = try await cli.run("people", "ADA")
        #expect(filtered.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) } == ["byron", "ada"])
        await #expect(try CLIProcess.array(try cli.run("people", "lovelace", "--json").stdout).map { $0["id"] as? String } == ["ada"])
    }

    @Test func showListsUnreadableDatesWithTheirSource() async throws {
        defer { cli.cleanUp() }
        let shown = try await cli.run("show", "zoe")
        #expect(shown.stdout == "Zoë 🎂 Smith\nId: zoe\nUnreadable date: 'circa 1800' (the card at \(cli.path("people.vcf")):19)\n")
    }

    /// An import from a relative path stores where the file is, so `show`
    /// names the card wherever it is run from (issue 24).
    @Test func showNamesTheCardByItsAbsolutePath() async throws {
        defer { cli.cleanUp() }
        let folder = cli.path("exports")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write("exports/phone.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:eve\r\nFN:Eve\r\nBDAY:sometime\r\nEND:VCARD\r\n")
        let imported = try await TestProcess.run(
            ["/bin/sh", "-c", "cd \"$1\" && exec \"$2\" import exports/../exports/phone.vcf", "sh", cli.directory.path, try CLIProcess.binary()],
            environment: cli.environment
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("exports/../exports/phone.vcf:"), "problems name the file as typed: \(imported.stderr)")
        let shown = try await cli.run("show", "eve")
        #expect(shown.stdout == "Eve\nId: eve\nUnreadable date: 'sometime' (the card at \(folder)/phone.vcf:1)\n", "\(shown.stdout)")
    }

    @Test func showJSON() async throws {
        defer { cli.cleanUp() }
        let object = try await CLIProcess.object(try cli.run("show", "ada lovelace", "--json").stdout)
        #expect(object["id"] as? String == "ada")
        #expect((object["public_id"] as? String)?.hasPrefix("p-") == true)
        #expect(object["name"] as? String == "Ada Lovelace")
        #expect((object["birthday"] as? [String: Any])?["year"] as? Int == 1990)
        #expect(object["invalid_dates"] as? [String] == [])
        #expect((object["source"] as? [String: Any])?["line"] as? Int == 1)
        let next = try #require(object["next"] as? [[String: Any]])
        #expect(next.first?["date"] as? String == "2026-03-11")
        #expect(next.first?["days_until"] as? Int == 1)
        #expect(next.first?["age"] as? Int == 36)
        // The public id finds the same person.
        let publicID = try #require(object["public_id"] as? String)
        await #expect(try cli.run("show", publicID).stdout.hasPrefix("Ada Lovelace\n"))
    }
}

/// A whole word of a name wins over the start of another word (issue 24):
/// `exclude ada` means Ada Lovelace, not Zoe Adams.
@Suite struct PersonRankTests {
    @Test func aWholeWordWinsOverTheStartOfAnotherWord() async throws {
        let other = try CLIProcess()
        defer { other.cleanUp() }
        try await other.seed([("ada", "Ada Lovelace", "1990-03-11"), ("zoe", "Zoe Adams", "1985-07-01")])
        let exclude = try await other.run("exclude", "ada")
        #expect(exclude.status == 0, "\(exclude.stderr)")
        #expect(exclude.stdout == "Ada Lovelace is excluded: no reminders, no feed events.\n")
        let people = try CLIProcess.array(try await other.run("people", "--json").stdout)
        #expect(people.filter { $0["excluded"] as? Bool == true }.map { $0["id"] as? String } == ["ada"])
        await #expect(try other.run("show", "adam").stdout.hasPrefix("Zoe Adams\n"), "the start of a word still finds her")
    }
}
