import Foundation
import TestSupport
import Testing

/// Name days (issue 34) through the real binary: the `name-days` setting,
/// `birthdays name-days`, and a name day in `upcoming`, `show`, `pending` and the feed.
@Suite struct NameDaysCommandTests {
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:janis\r
        N:Bērziņš;Jānis;;;\r
        FN:Jānis Bērziņš\r
        BDAY:1980-04-12\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:zed\r
        FN:Zzyzx Quux\r
        BDAY:1990-01-01\r
        END:VCARD\r

        """

    @Test func janisHasHisNameDayOnTheTwentyFourthOfJune() async throws {
        let cli = try CLIProcess(now: "2026-06-22T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let file = try cli.write("contacts.vcf", Self.cards)
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await cli.run("name-days").stdout.contains("Name days are off"))
        #expect(!(try await cli.run("upcoming", "--days", "30").stdout.contains("Name day")))

        try await cli.set("name-days", "lv")
        let listed = try await cli.run("name-days").stdout
        #expect(listed.contains("Jānis Bērziņš  Jānis    06-24  lv"), "\(listed)")
        #expect(!listed.contains("Zzyzx"))
        #expect(try await cli.run("upcoming", "--days", "30").stdout.contains("in 2 days  Wed 24 Jun  Jānis Bērziņš  Name day"))
        #expect(try await cli.run("show", "janis").stdout.contains("Name day: --06-24; next 2026-06-24 (in 2 days)"))

        try await cli.enableNotifications()
        let pending = try await #require(try cli.json(["pending"]) as? [[String: Any]])
        #expect(pending.prefix(2).compactMap { $0["id"] as? String } == ["janis-nameday-lv-daybefore", "janis-nameday-lv-dayof"])
        #expect(pending.first?["title"] as? String == "Jānis Bērziņš: Name day")
        let feed = try await cli.run("export").stdout
        #expect(feed.contains("UID:janis-nameday-lv@birthdays\r\n"))
        #expect(feed.contains("SUMMARY:📅 Jānis Bērziņš: Name day\r\n"))

        // Corrected for one person: off, then a day of the user's, then the lists again; an import keeps the choice.
        let off = try await cli.run("name-days", "off", "janis")
        #expect(off.status == 0 && off.stdout.contains("Jānis Bērziņš: no name day."), "\(off.stdout)")
        #expect(!(try await cli.run("upcoming", "--days", "30").stdout.contains("Name day")))
        #expect(try await cli.run("name-days", "janis").stdout.contains("off (name-days off)"))
        _ = try await cli.run("name-days", "set", "janis", "07-01")
        _ = try await cli.run("import", file)
        #expect(try await cli.run("upcoming", "--days", "30").stdout.contains("Wed 1 Jul  Jānis Bērziņš  Name day"))
        let set = try await #require(try cli.json(["pending"]) as? [[String: Any]])
        #expect(set.compactMap { $0["id"] as? String }.contains("janis-nameday-set-dayof"))
        let bad = try await cli.run("name-days", "set", "janis", "13-40")
        #expect(bad.status == 64 && bad.stderr.contains("'13-40' is not a day written MM-DD"), "\(bad.stderr)")
        _ = try await cli.run("name-days", "reset", "janis")
        #expect(try await cli.run("upcoming", "--days", "30").stdout.contains("Wed 24 Jun  Jānis Bērziņš  Name day"))

        // A list of one's own: imported, turned on, its bad line reported with the file and line.
        let mine = try cli.write("cz.csv", "# Czech, my own\n06-25,Jana,Jan\n13-45,Nobody\n")
        let imported = try await cli.run("name-days", "import", mine, "--country", "CZ")
        #expect(imported.status == 0 && imported.stdout.contains("cz: 2 names imported; name-days = lv,cz; 1 problem"), "\(imported.stdout)")
        #expect(imported.stderr.contains("cz.csv:3: '13-45' is not a day written MM-DD"), "\(imported.stderr)")
        _ = try await cli.run("name-days", "set", "janis", "06-24")
        let jana = try cli.write("jana.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:jana\r\nFN:Jana Nováková\r\nBDAY:1991-02-03\r\nEND:VCARD\r\n")
        _ = try await cli.run("import", jana)
        let upcoming = try await #require(try cli.json(["upcoming", "--days", "30"]) as? [[String: Any]])
        let janas = upcoming.filter { $0["name"] as? String == "Jana Nováková" && $0["label"] as? String == "Name day" }
        #expect(janas.map { $0["date"] as? String } == ["2026-06-25"], "\(upcoming)")
        #expect(try await cli.run("settings", "set", "name-days", "cz").status == 0)

        // Excluding the label leaves the name days out, as any label.
        _ = try await cli.run("exclude", "--label", "name day")
        #expect(!(try await cli.run("upcoming", "--days", "30").stdout.contains("Name day")))
        let wrong = try await cli.run("settings", "set", "name-days", "fi")
        #expect(wrong.status != 0 && wrong.stderr.contains("'fi' is not a valid name-days"), "\(wrong.stderr)")
    }

    /// Every text of `name-days` comes from the catalog: German from LANG, Japanese from the `language` setting
    /// (over LANG); the problem lines keep their file and line, and the days, codes and commands stay as written.
    @Test func nameDaysSpeakTheUsersLanguage() async throws {
        var cli = try CLIProcess(now: "2026-06-22T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        cli.extraEnvironment = ["LANG": "de_DE.UTF-8"]
        let file = try cli.write("contacts.vcf", Self.cards)
        #expect(try await cli.run("import", file).status == 0)
        await #expect(try cli.run("name-days").stdout == "Namenstage sind aus. Einschalten mit: birthdays settings set name-days lv\n")
        let hint = try await cli.run("name-days", "off", "janis")
        #expect(hint.stdout == "Jānis Bērziņš: kein Namenstag. (Namenstage sind aus: birthdays settings set name-days lv)\n", "\(hint.stdout)")
        try await cli.set("name-days", "lv")
        await #expect(try cli.run("name-days", "reset", "janis").stdout == "Jānis Bērziņš: wieder entscheiden die Namenstagslisten.\n")
        let german = try await cli.run("name-days").stdout
        #expect(german.hasPrefix("ID     NAME           GEFUNDEN  TAG    LISTE\n"), "\(german)")
        #expect(german.contains("Jānis Bērziņš  Jānis     06-24  lv"), "\(german)")
        await #expect(try cli.run("name-days", "set", "janis", "07-01").stdout == "Jānis Bērziņš: Namenstag am 07-01.\n")
        await #expect(try cli.run("name-days", "janis").stdout.contains("von dir gesetzt (name-days set)"))
        await #expect(try cli.run("name-days", "zed").stdout == "Keine Namenstage: kein Vor- oder Spitzname steht auf der Liste.\n")

        let mine = try cli.write("cz.csv", "06-25,Jana\n13-45,Nobody\n07-01,Jana,Jan\nxx\n")
        let imported = try await cli.run("name-days", "import", mine, "--country", "cz")
        #expect(imported.stdout == "cz: 2 Namen importiert; name-days = lv,cz; 2 Probleme\n", "\(imported.stdout)")
        #expect(
            imported.stderr == "cz.csv:2: „13-45“ ist kein als MM-TT geschriebener Tag\ncz.csv:4: „xx“ ist kein als MM-TT geschriebener Tag\n",
            "\(imported.stderr)"
        )
        let empty = try await cli.run("name-days", "import", try cli.write("empty.csv", "# nothing\n"), "--country", "hu")
        #expect(empty.status != 0 && empty.stderr.contains("empty.csv: kein Tag mit einem Namen darin; nichts wurde importiert"), "\(empty.stderr)")
        let missing = try await cli.run("name-days", "import", cli.path("missing.csv"), "--country", "hu")
        #expect(missing.status != 0 && missing.stderr.contains("missing.csv: kann nicht gelesen werden ("), "\(missing.stderr)")
        // Read by the import's file rules: a folder, and a file over the cap, are named with the reason; nothing is imported.
        let folder = try await cli.run("name-days", "import", cli.directory.path, "--country", "hu")
        #expect(folder.status != 0 && folder.stderr.contains("kann nicht gelesen werden (it is a folder)"), "\(folder.stderr)")
        let huge = try cli.write("huge.csv", String(repeating: "06-25,Jana\n", count: (4 << 20) / 11 + 1))  // just over the 4 MB cap
        let tooLarge = try await cli.run("name-days", "import", huge, "--country", "hu")
        #expect(
            tooLarge.status != 0 && tooLarge.stderr.contains("huge.csv: kann nicht gelesen werden (it holds more than 4 MB)"),
            "\(tooLarge.stderr)"
        )
        #expect(CLIProcess.shownSetting("name-days", in: try await cli.run("settings", "show").stdout) == "lv,cz", "nothing imported")

        // The setting wins over LANG.
        try await cli.set("language", "ja")
        let jana = try cli.write("jana.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:jana\r\nFN:Jana Nováková\r\nBDAY:1991-02-03\r\nEND:VCARD\r\n")
        _ = try await cli.run("import", jana)
        let japanese = try await cli.run("name-days").stdout
        #expect(japanese.hasPrefix("ID     名前"), "\(japanese)")
        #expect(japanese.contains("一致") && japanese.contains("リスト"), "\(japanese)")
        #expect(japanese.contains("確認: 2 日あります。name-days set で選んでください"), "\(japanese)")
        await #expect(try cli.run("name-days", "off", "jana").stdout == "Jana Nováková: 名前の日なし。\n")
        await #expect(try cli.run("name-days", "jana").stdout.contains("オフ (name-days off)"))
        await #expect(try cli.run("name-days", "set", "jana", "06-25").stdout == "Jana Nováková: 名前の日は 06-25。\n")
        await #expect(try cli.run("name-days", "reset", "jana").stdout == "Jana Nováková: 名前の日のリストで再び決めます。\n")
        let again = try await cli.run("name-days", "import", mine, "--country", "cz")
        #expect(again.stdout == "cz: 2 件の名前を取り込みました。name-days = lv,cz; 問題 2 件\n", "\(again.stdout)")
        #expect(again.stderr.hasPrefix("cz.csv:2: 「13-45」は MM-DD 形式の日付ではありません\n"), "\(again.stderr)")
        try await cli.set("name-days", "cz")
        await #expect(try cli.run("name-days", "zed").stdout == "名前の日はありません: リストに載っている名やニックネームはありません。\n")
    }
}
