import Foundation
import TestSupport
import Testing

/// One person, many sources (issue 43), through the real binary: cards that
/// are one person are listed, reminded and exported once; `duplicates`
/// suggests what only looks alike; `link` and `unlink` outlast a re-import.
@Suite struct PersonLinkCommandTests {
    static func card(_ uid: String, _ name: String, _ birthday: String, extra: String = "", version: String = "3.0") -> String {
        "BEGIN:VCARD\r\nVERSION:\(version)\r\nUID:\(uid)\r\nFN:\(name)\r\n\(extra)BDAY:\(birthday)\r\nEND:VCARD\r\n"
    }

    /// Ada in an iCloud vCard (UID, e-mail), a Google CSV (the e-mail in
    /// other case, no UID) and a vdir card (another UID, the e-mail, no year).
    static func adaThreeTimes(_ cli: CLIProcess) async throws {
        let icloud = try cli.write("icloud.vcf", card("ada-icloud", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\n"))
        let google = try cli.write(
            "google.csv",
            "Name,Given Name,Family Name,Birthday,E-mail 1 - Value\nAda Lovelace,Ada,Lovelace,1815-12-10,ADA@Example.org\n"
        )
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write("nextcloud/ada.vcf", card("ada-nextcloud", "Ada Lovelace", "--1210", extra: "EMAIL:Ada@Example.ORG\r\n", version: "4.0"))
        let imported = try await cli.run("import", icloud, google)
        try #require(imported.status == 0, "\(imported.stderr)")
        let added = try await cli.run("sources", "add", folder)
        try #require(added.status == 0, "\(added.stderr)")
    }

    @Test func adaFromThreeSourcesIsOnePersonWithOneReminderAndOneEventPerDay() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await Self.adaThreeTimes(cli)
        try await cli.enableNotifications()

        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        try #require(people.count == 1, "\(people.map { $0["id"] ?? "" })")
        #expect(people[0]["id"] as? String == "ada-icloud")
        let cards = try #require(people[0]["cards"] as? [[String: Any]])
        #expect(Set(cards.compactMap { $0["source"] as? String }) == ["icloud.vcf", "google.csv", "nextcloud"])
        #expect(cards.first?["uid"] as? String == "ada-icloud")
        let birthday = try #require(people[0]["birthday"] as? [String: Any])
        #expect(birthday["year"] as? Int == 1815)

        let pending = try await cli.run("pending", "--json")
        #expect(pending.status == 0, "\(pending.stderr)")
        let reminders = try CLIProcess.array(pending.stdout)
        let days = reminders.compactMap { ($0["fire_at"] as? String)?.prefix(10) }
        #expect(!reminders.isEmpty)
        #expect(days.count == Set(days).count, "a reminder twice on one day: \(days)")
        #expect(reminders.allSatisfy { $0["person_id"] as? String == "ada-icloud" })

        let export = try await cli.run("export")
        let uids = export.stdout.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("UID:") }
        #expect(!uids.isEmpty)
        #expect(uids.allSatisfy { $0.hasPrefix("UID:ada-icloud-") }, "\(uids)")
        #expect(export.stdout.occurrences(of: "DTSTART;VALUE=DATE:20261210") == 1)
    }

    /// A person greeted through one of their cards is greeted through every
    /// other: a second greeting is refused, and the one goes to the person
    /// once, planned under the id the person is shown as (issue 44 meets 43).
    @Test func aPersonGreetedOnTwoOfTheirCardsIsGreetedOnce() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await Self.adaThreeTimes(cli)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        let added = try await cli.run("greet", "add", "ada-icloud")
        try #require(added.status == 0, "\(added.stderr)")
        let again = try await cli.run("greet", "add", "ada-nextcloud")
        #expect(again.status == 1)
        #expect(again.stderr.contains("Ada Lovelace is greeted already"), "\(again.stderr)")

        let pending = try await cli.run("pending", "--json")
        try #require(pending.status == 0, "\(pending.stderr)")
        let greetings = try CLIProcess.array(pending.stdout).filter { $0["kind"] as? String == "greeting" }
        #expect(greetings.count == 1, "\(greetings.map { $0["id"] ?? "" })")
        #expect(greetings.first?["person_id"] as? String == "ada-icloud")
    }

    @Test func duplicatesSuggestTheSameNameAndDayWithoutASharedAddress() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "two.vcf",
            Self.card("bob-phone", "Bob Babbage", "1971-12-26")
                + Self.card("bob-work", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
                + Self.card("carl", "Carl Babbage", "1971-12-26")
        )
        #expect(try await cli.run("import", file).status == 0)
        let suggestions = try #require(try await cli.json(["duplicates"]) as? [[String: Any]])
        try #require(suggestions.count == 1, "\(suggestions)")
        #expect(suggestions[0]["ids"] as? [String] == ["bob-phone", "bob-work"])
        #expect(suggestions[0]["reason"] as? String == "same name, same birthday; no shared address")
        // Suggested, not linked: both are still people.
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        #expect(people.count == 3)
        let text = try await cli.run("duplicates")
        #expect(text.stdout.contains("birthdays link bob-phone bob-work"))
    }

    @Test func linkAndUnlinkSurviveAReimport() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write("two.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26") + Self.card("bob-work", "Bob Babbage", "--1226"))
        #expect(try await cli.run("import", file).status == 0)
        func ids() async throws -> [String] {
            try #require(try await cli.json(["people"]) as? [[String: Any]]).compactMap { $0["id"] as? String }
        }
        #expect(try await ids() == ["bob-phone", "bob-work"])

        let link = try await cli.run("link", "bob-phone", "bob-work")
        #expect(link.status == 0, "\(link.stderr)")
        #expect(try await ids() == ["bob-phone"])
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await ids() == ["bob-phone"])
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true)

        let unlink = try await cli.run("unlink", "bob-phone")
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(try await ids() == ["bob-phone", "bob-work"])
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await ids() == ["bob-phone", "bob-work"])
        // Kept apart: no longer suggested either.
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true)
    }

    /// Cards that disagree are linked by hand only; `--date-from` chooses whose birthday the person has.
    @Test func linkDateFromChoosesTheBirthday() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        #expect(try await cli.run("import", phone).status == 0)
        #expect(try await cli.run("import", work).status == 0)
        let link = try await cli.run("link", "bob-phone", "bob-work", "--date-from", "work.vcf")
        #expect(link.status == 0, "\(link.stderr)")
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        try #require(people.count == 1)
        #expect(
            (people[0]["birthday"] as? [String: Any])?["year"] as? Int == 1972,
            "without --date-from it is 1971: the same change time, then the first source by name"
        )
        let export = try await cli.run("export")
        // The 2026 event's age: 54 from 1972 (55 from 1971, and the events of the later years count on from it).
        #expect(export.stdout.contains("Bob Babbage (54)"))
    }

    @Test func twinsSharingAPhoneStayTwo() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let phone = "TEL:+44 20 7946 0958\r\n"
        let file = try cli.write(
            "twins.vcf",
            Self.card("castor", "Castor Gemini", "2001-06-01", extra: phone) + Self.card("pollux", "Pollux Gemini", "2001-06-01", extra: phone)
        )
        #expect(try await cli.run("import", file).status == 0)
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        #expect(people.count == 2)
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true)
    }

    @Test func linkNeedsTwoPeople() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1815-12-10")])
        let one = try await cli.run("link", "ada")
        #expect(one.status == 64)
        #expect(one.stderr.contains("name two or more people"))
    }
}
