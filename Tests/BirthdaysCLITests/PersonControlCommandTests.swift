import Foundation
import TestSupport
import Testing

/// `exclude`, `include`, `remind` and the settings `reminders`, `deceased`
/// and `names`, through the real binary (issue 12).
@Suite struct PersonControlCommandTests {
    /// Ada (nickname Addie, Mar 20), Bob (his card excludes him, Mar 12),
    /// Eve (died 2024, born 1946-03-15, married 1970-03-16).
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        NICKNAME:Addie,Countess\r
        BDAY:1990-03-20\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:bob\r
        FN:Bob\r
        BDAY:--03-12\r
        X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR;TYPE=boolean:true\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        UID:eve\r
        FN:Eve\r
        BDAY:19460315\r
        ANNIVERSARY:19700316\r
        DEATHDATE:20240201\r
        END:VCARD\r

        """

    private func setUp() async throws -> (CLIProcess, String) {
        let cli = try CLIProcess()
        let file = try cli.write("contacts.vcf", Self.cards)
        let imported = try await cli.run("import", file)
        try #require(imported.status == 0, "\(imported.stderr)")
        try await cli.enableNotifications()
        return (cli, file)
    }

    private func pendingIDs(_ cli: CLIProcess) async throws -> [String] {
        try await CLIProcess.array(try cli.run("pending", "--json").stdout).compactMap { $0["id"] as? String }
    }

    private func people(_ cli: CLIProcess) async throws -> [String: [String: Any]] {
        let list = try await CLIProcess.array(try cli.run("people", "--json").stdout)
        return Dictionary(uniqueKeysWithValues: list.compactMap { entry in (entry["id"] as? String).map { ($0, entry) } })
    }

    @Test func peopleJSONShowsWhatTheCardsSay() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let people = try await people(cli)
        let ada = try #require(people["ada"])
        #expect(ada["nickname"] as? String == "Addie")
        #expect(ada["excluded"] as? Bool == false)
        #expect(ada["excluded_by"] is NSNull)
        #expect(ada["deceased"] as? Bool == false)
        #expect(ada["death_date"] is NSNull)
        #expect(ada["reminder_days"] is NSNull)
        let bob = try #require(people["bob"])
        #expect(bob["excluded"] as? Bool == true && bob["excluded_by"] as? String == "card")
        #expect(bob["nickname"] is NSNull)
        let eve = try #require(people["eve"])
        #expect(eve["deceased"] as? Bool == true && eve["death_date"] as? String == "2024-02-01")
        #expect(eve["excluded"] as? Bool == false)
        // Only Ada gets reminders: Bob is excluded, Eve has died (deceased skip).
        await #expect(try pendingIDs(cli) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
        let table = try await cli.run("people").stdout
        #expect(table.contains("excluded by the card"))
        #expect(table.contains("died 2024-02-01"))
        #expect(table.contains("nickname Addie"))
    }

    @Test func excludeAndIncludeWinOverTheCardAndOutlastImports() async throws {
        let (cli, file) = try await setUp()
        defer { cli.cleanUp() }
        // By name, ignoring case, as `show` finds people.
        let exclude = try await cli.run("exclude", "ada lovelace")
        #expect(exclude.status == 0, "\(exclude.stderr)")
        #expect(exclude.stdout == "Ada Lovelace is excluded: no reminders, no feed events.\n")
        let include = try await cli.run("include", "bob")
        #expect(include.stdout == "Bob is no longer excluded.\n")
        await #expect(try pendingIDs(cli) == ["bob-birthday-daybefore", "bob-birthday-dayof"])

        // The same export again: the choices stay.
        await #expect(try cli.run("import", file).status == 0)
        let people = try await people(cli)
        #expect(people["ada"]?["excluded"] as? Bool == true && people["ada"]?["excluded_by"] as? String == "user")
        #expect(people["bob"]?["excluded"] as? Bool == false && people["bob"]?["excluded_by"] as? String == "user")
        await #expect(try pendingIDs(cli) == ["bob-birthday-daybefore", "bob-birthday-dayof"])
        await #expect(try cli.run("people").stdout.contains("included despite the card"))

        // Neither is in the feed nor in upcoming when excluded.
        let feed = try await cli.run("export").stdout
        #expect(feed.contains("UID:bob-birthday@birthdays"))
        #expect(!feed.contains("UID:ada-") && !feed.contains("UID:eve-"))
        let upcoming = try await CLIProcess.array(try cli.run("upcoming", "--json").stdout)
        #expect(upcoming.map { $0["id"] as? String } == ["bob"])
        #expect(upcoming.first?["deceased"] as? Bool == false)
        await #expect(try cli.run("show", "ada").stdout.contains("Excluded from reminders and the feed."))

        // --json prints the person; an unknown one is one line, status 1.
        let json = try await CLIProcess.object(try cli.run("exclude", "bob", "--json").stdout)
        #expect(json["excluded"] as? Bool == true)
        let missing = try await cli.run("include", "nobody")
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: no person's id or name contains 'nobody'; see: birthdays people\n")
    }

    @Test func remindSetsAPersonsOwnDays() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let remind = try await cli.run("remind", "Ada Lovelace", "--days", "0,7,1")
        #expect(remind.status == 0, "\(remind.stderr)")
        #expect(remind.stdout == "Reminders for Ada Lovelace: 7,1,0 days before.\n")
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(pending.map { $0["id"] as? String } == ["ada-birthday-7daysbefore", "ada-birthday-daybefore", "ada-birthday-dayof"])
        let week = try #require(pending.first)
        #expect(week["when"] as? String == "7-days-before")
        #expect(week["fire_at"] as? String == "2026-03-13T09:00:00+01:00")
        #expect(week["title"] as? String == "Birthday in a week")
        #expect(week["body"] as? String == "Ada Lovelace turns 36 in a week!")
        await #expect(try cli.run("pending").stdout.contains("7 days before"))
        await #expect(try cli.run("show", "ada").stdout.contains("Reminders: 7,1,0 days before (this person only)"))
        await #expect(try people(cli)["ada"]?["reminder_days"] as? [Int] == [7, 1, 0])
        // The feed's alarms follow the same days.
        let feed = try await cli.run("export").stdout
        #expect(feed.contains("TRIGGER;RELATED=START:-P6DT15H\r\n"))

        let reset = try await cli.run("remind", "ada", "--default")
        #expect(reset.stdout == "Ada Lovelace follows the reminders setting again: 1,0 days before.\n")
        await #expect(try pendingIDs(cli) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
        await #expect(try people(cli)["ada"]?["reminder_days"] is NSNull)
    }

    @Test(arguments: [
        (["remind", "ada"], "Error: give --days (e.g. --days 7,1,0), --channels (e.g. --channels email), --weekend friday|off, or --default"),
        (["remind", "ada", "--days", "7,x"], "Error: '7,x' is not a list of reminder days; allowed: 8 or fewer of 0 to 365, e.g. 7,1,0"),
        (["remind", "ada", "--days", "1", "--default"], "Error: --days and --default exclude each other"),
    ])
    func remindRefusesBadArguments(arguments: [String], message: String) async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message + "\n"))
        await #expect(try pendingIDs(cli) == ["ada-birthday-daybefore", "ada-birthday-dayof"])
    }

    @Test func theRemindersSettingAddsAWeekAheadForEveryone() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let set = try await cli.run("settings", "set", "reminders", "7,1,0")
        #expect(set.stdout == "reminders = 7,1,0; reminders rescheduled (3 pending)\n")
        await #expect(try pendingIDs(cli) == ["ada-birthday-7daysbefore", "ada-birthday-daybefore", "ada-birthday-dayof"])
        await #expect(try cli.run("settings", "reset", "reminders").stdout == "reminders = 1,0; reminders rescheduled (2 pending)\n")
        // The old key: day-before off is reminders 0.
        await #expect(try cli.run("settings", "set", "day-before", "off").stdout == "reminders = 0; reminders rescheduled (1 pending)\n")
        await #expect(try cli.run("settings", "reset", "day-before").stdout == "reminders = 1,0; reminders rescheduled (2 pending)\n")
        await #expect(!(try cli.run("settings").stdout.contains("day-before")))
    }

    @Test func deceasedRememberAndNicknames() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        await #expect(try cli.run("show", "eve").stdout.contains("Died: 2024-02-01"))
        await #expect(!(try cli.run("upcoming").stdout.contains("Eve")))

        await #expect(try cli.run("settings", "set", "deceased", "remember").status == 0)
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        let eve = pending.filter { $0["person_id"] as? String == "eve" }
        #expect(eve.map { $0["id"] as? String } == ["eve-birthday-dayof"])
        #expect(eve.first?["title"] as? String == "Remembering Eve")
        #expect(eve.first?["body"] as? String == "Eve would have turned 80 today.")
        let upcoming = try await CLIProcess.array(try cli.run("upcoming", "--json").stdout)
        #expect(upcoming.map { "\($0["id"] ?? "") \($0["kind"] ?? "") \($0["deceased"] ?? "")" } == ["eve birthday 1", "ada birthday 0"])
        await #expect(try cli.run("upcoming").stdout.contains("birthday, would have turned 80"))
        let feed = try await cli.run("export").stdout
        #expect(feed.contains("SUMMARY:🕯️ Eve\r\n"))
        #expect(!feed.contains("UID:eve-anniversary"))

        await #expect(try cli.run("settings", "set", "names", "nickname").status == 0)
        let bodies = try await CLIProcess.array(try cli.run("pending", "--json").stdout).compactMap { $0["body"] as? String }
        #expect(bodies.contains("Addie turns 36 tomorrow!") || bodies.contains("Addie turns 36 today!"))
        await #expect(try cli.run("export").stdout.contains("SUMMARY:🎂 Addie\r\n"))
        // Lists keep the full name, so you can tell who is who.
        await #expect(try cli.run("upcoming").stdout.contains("Ada Lovelace"))
    }

    @Test func messagesAreInTheUsersLanguage() async throws {
        var (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        cli.extraEnvironment["LANG"] = "de_DE.UTF-8"
        await #expect(try cli.run("exclude", "ada").stdout == "Ada Lovelace ist ausgenommen: keine Erinnerungen, keine Termine im Feed.\n")
        await #expect(try cli.run("include", "ada").stdout == "Ada Lovelace ist nicht mehr ausgenommen.\n")
        await #expect(try cli.run("remind", "ada", "--days", "7,0").stdout == "Erinnerungen für Ada Lovelace: 7,0 Tage vorher.\n")
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(pending.first?["body"] as? String == "Ada Lovelace wird in einer Woche 36!")
        await #expect(try cli.run("pending").stdout.contains("7 Tage vorher"))
    }
}
