import Foundation
import TestSupport
import Testing

/// Cards without a `UID` (every CSV row, an old vCard, a vdir card) whose
/// names are the same, through the real binary (issue 43): namesakes on
/// other days, or on the same day in other years, are two people wherever
/// their cards come from; the same card imported again, or from a renamed
/// copy of its file, is still one.
@Suite struct NamesakeCardsCommandTests {
    static func google(_ rows: [(name: String, birthday: String)]) -> String {
        "Name,Birthday\n" + rows.map { "\($0.name),\($0.birthday)\n" }.joined()
    }

    static func outlook(_ rows: [(first: String, last: String, birthday: String)]) -> String {
        "First Name,Last Name,Birthday\r\n" + rows.map { "\($0.first),\($0.last),\($0.birthday)\r\n" }.joined()
    }

    /// A vCard without a `UID`.
    static func card(_ name: String, _ birthday: String, version: String = "3.0") -> String {
        "BEGIN:VCARD\r\nVERSION:\(version)\r\nFN:\(name)\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
    }

    /// Each person as `name|birthday` (the birthday as `YYYY-MM-DD`, `--MM-DD` without a year), sorted.
    static func people(_ cli: CLIProcess) async throws -> [String] {
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        return people.map { person in
            let birthday = person["birthday"] as? [String: Any]
            let year = (birthday?["year"] as? Int).map { String(format: "%04d", $0) } ?? "-"
            let day = birthday.map { String(format: "-%02d-%02d", $0["month"] as? Int ?? 0, $0["day"] as? Int ?? 0) } ?? ""
            return "\(person["name"] as? String ?? "")|\(year)\(day)"
        }.sorted()
    }

    static func ids(_ cli: CLIProcess) async throws -> [String] {
        try #require(try await cli.json(["people"]) as? [[String: Any]]).compactMap { $0["id"] as? String }.sorted()
    }

    static func imported(_ cli: CLIProcess, _ files: String...) async throws -> [String: Any] {
        let report = try #require(try await cli.json(["import"] + files) as? [String: Any])
        return report
    }

    /// Both namesakes are reminded, each on their own day, and each has their event in the feed.
    static func expectBothRemindedAndInTheFeed(
        _ cli: CLIProcess,
        days: [String],
        people: Int = 2,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        let byPerson = Dictionary(grouping: pending, by: { $0["person_id"] as? String ?? "" })
        #expect(byPerson.count == people, "two people reminded: \(pending.map { $0["person_id"] ?? "" })", sourceLocation: sourceLocation)
        let export = try await cli.run("export")
        for day in days {
            #expect(export.stdout.contains("DTSTART;VALUE=DATE:\(day)"), "an event on \(day)", sourceLocation: sourceLocation)
        }
        // One event of this year per person (the later years' events follow it).
        let events = export.stdout.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("UID:") && $0.contains("-birthday-y2026@") }
        #expect(events.count == people, "\(events)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true]) func namesakesOnOtherDaysInTwoCSVFilesAreTwoPeople(oneRun: Bool) async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let google = try cli.write("google.csv", Self.google([("John Smith", "1970-05-01")]))
        let outlook = try cli.write("outlook.csv", Self.outlook([("John", "Smith", "1980-05-09")]))
        if oneRun {
            #expect(try await Self.imported(cli, google, outlook)["added"] as? Int == 2)
        } else {
            #expect(try await Self.imported(cli, google)["added"] as? Int == 1)
            #expect(try await Self.imported(cli, outlook)["added"] as? Int == 1)
        }
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-05-09"])
        try await Self.expectBothRemindedAndInTheFeed(cli, days: ["20260501", "20260509"])
        let ids = try await Self.ids(cli)

        // Again, in either order, and a renamed copy of either: nobody is added and nothing changes.
        let copy = try cli.write("outlook-2.csv", Self.outlook([("John", "Smith", "1980-05-09")]))
        let googleCopy = try cli.write("google (1).csv", Self.google([("John Smith", "1970-05-01")]))
        for files in [[google], [outlook], [outlook, google], [copy], [googleCopy], [copy, googleCopy]] {
            let again = try #require(try await cli.json(["import"] + files) as? [String: Any])
            #expect(again["added"] as? Int == 0, "\(files): \(again)")
            #expect(again["updated"] as? Int == 0, "\(files): \(again)")
            #expect(try await Self.ids(cli) == ids, "\(files)")
            #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-05-09"], "\(files)")
        }
        // Not offered as one person: their birthdays are other days.
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true)
    }

    /// The same name on the same day decades apart, in a CSV and in a vCard without a `UID` (2.1, as old phones write).
    @Test func theSameNameOnTheSameDayDecadesApartIsTwoPeople() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let csv = try cli.write("google.csv", Self.google([("John Smith", "1950-05-01")]))
        let vcf = try cli.write("phone.vcf", Self.card("John Smith", "19800501", version: "2.1"))
        #expect(try await Self.imported(cli, csv)["added"] as? Int == 1)
        #expect(try await Self.imported(cli, vcf)["added"] as? Int == 1)
        #expect(try await Self.people(cli) == ["John Smith|1950-05-01", "John Smith|1980-05-01"])
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        #expect(Set(pending.compactMap { $0["person_id"] as? String }).count == 2, "\(pending)")
        let export = try await cli.run("export")
        #expect(export.stdout.occurrences(of: "DTSTART;VALUE=DATE:20260501") == 2, "\(export.stdout)")

        for file in [csv, vcf] {
            let again = try await Self.imported(cli, file)
            #expect(again["added"] as? Int == 0 && again["updated"] as? Int == 0, "\(again)")
        }
        #expect(try await Self.people(cli) == ["John Smith|1950-05-01", "John Smith|1980-05-01"])
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true, "the years say they are two")
    }

    /// A followed vdir folder's card without a `UID` beside an imported namesake: two people, through syncs too.
    @Test func aVdirCardWithoutAUIDIsNotAnImportedNamesake() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let csv = try cli.write("google.csv", Self.google([("John Smith", "1970-05-01")]))
        #expect(try await Self.imported(cli, csv)["added"] as? Int == 1)
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write("nextcloud/john.vcf", Self.card("John Smith", "1980-05-09", version: "4.0"))
        try cli.write("nextcloud/mary.vcf", Self.card("Mary Major", "1990-06-01", version: "4.0"))
        let added = try await cli.run("sources", "add", folder)
        try #require(added.status == 0, "\(added.stderr)")
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-05-09", "Mary Major|1990-06-01"])
        try await Self.expectBothRemindedAndInTheFeed(cli, days: ["20260501", "20260509"], people: 3)
        let ids = try await Self.ids(cli)

        // A sync, a touched card and a re-import change no one.
        #expect(try await cli.run("sources", "sync").status == 0)
        try cli.write("nextcloud/john.vcf", Self.card("John Smith", "1980-05-09", version: "4.0") + "\r\n")
        #expect(try await cli.run("sources", "sync").status == 0)
        let again = try await Self.imported(cli, csv)
        #expect(again["added"] as? Int == 0 && again["updated"] as? Int == 0, "\(again)")
        #expect(try await Self.ids(cli) == ids)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-05-09", "Mary Major|1990-06-01"])

        // The card leaving its folder takes its person with it; the imported namesake stays.
        try FileManager.default.removeItem(atPath: cli.path("nextcloud/john.vcf"))
        #expect(try await cli.run("sources", "sync").status == 0)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "Mary Major|1990-06-01"])
    }

    /// The same card in the same file, imported twice in one run or in two, is one person.
    @Test func theSameFileTwiceIsOnePerson() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let csv = try cli.write("google.csv", Self.google([("John Smith", "1970-05-01")]))
        #expect(try await Self.imported(cli, csv, csv)["added"] as? Int == 1)
        #expect(try await Self.imported(cli, csv)["added"] as? Int == 0)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01"])
    }

    /// A friend without a `UID` in two files whose birthdays agree (the
    /// same, or a year on one side only) is one card re-exported: one
    /// person, who gets the year, whichever file comes first.
    @Test(arguments: [false, true]) func aFriendInTwoExportsWhoseBirthdaysAgreeIsOnePerson(yearFirst: Bool) async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let withYear = try cli.write("contacts.csv", Self.google([("Jane Doe", "1985-07-14"), ("John Smith", "1970-05-01")]))
        let withoutYear = try cli.write("phone.vcf", Self.card("Jane Doe", "--0714") + Self.card("John Smith", "1970-05-01"))
        for file in yearFirst ? [withYear, withoutYear] : [withoutYear, withYear] {
            #expect(try await cli.run("import", file).status == 0)
        }
        #expect(try await Self.people(cli) == ["Jane Doe|1985-07-14", "John Smith|1970-05-01"])
        let renamed = try cli.write("contacts-2026.csv", Self.google([("Jane Doe", "1985-07-14"), ("John Smith", "1970-05-01")]))
        #expect(try await Self.imported(cli, renamed)["added"] as? Int == 0)
        #expect(try await Self.people(cli) == ["Jane Doe|1985-07-14", "John Smith|1970-05-01"])
    }

    /// The file whose card gave the birthday speaks for the card: another
    /// file's card of the name without a birthday, read last, does not take
    /// it over, and a date corrected in the first file is the card's (one
    /// run or two, the same ids).
    @Test(arguments: [false, true]) func aDateCorrectedWhereItCameFromIsTheCardsWhicheverFileWasReadLast(oneRun: Bool) async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write("a.csv", Self.google([("John Smith", "1980-05-01")]))
        // Without a birthday, with what a.csv lacks (read last, it is written).
        let b = try cli.write("b.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:John Smith\r\nEMAIL:john@example.org\r\nEND:VCARD\r\n")
        if oneRun {
            #expect(try await cli.run("import", a, b).status == 0)
        } else {
            #expect(try await cli.run("import", a).status == 0)
            #expect(try await cli.run("import", b).status == 0)
        }
        let ids = try await Self.ids(cli)
        #expect(try await Self.people(cli) == ["John Smith|1980-05-01"])
        try cli.write("a.csv", Self.google([("John Smith", "1980-05-02")]))
        #expect(try await Self.imported(cli, a)["added"] as? Int == 0)
        #expect(try await Self.people(cli) == ["John Smith|1980-05-02"])
        #expect(try await Self.ids(cli) == ids)
    }

    /// Both files in one run, in either order: the file whose card gave the
    /// birthday (or its year) speaks for the card, even when the other
    /// file's card, without one, was read first; a date corrected there and
    /// read alone updates the one person.
    @Test(arguments: [false, true], [false, true])
    func aDateCorrectedWhereItCameFromIsTheCardsWhicheverFileOfTheRunCameFirst(datedFirst: Bool, dayOnly: Bool) async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write("a.csv", Self.google([("John Smith", "1980-05-01")]))
        let bday = dayOnly ? "BDAY:--0501\r\n" : ""
        let b = try cli.write("b.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:John Smith\r\n\(bday)EMAIL:john@example.org\r\nEND:VCARD\r\n")
        #expect(try await cli.run("import", datedFirst ? a : b, datedFirst ? b : a).status == 0)
        #expect(try await Self.people(cli) == ["John Smith|1980-05-01"])
        let ids = try await Self.ids(cli)
        try cli.write("a.csv", Self.google([("John Smith", "1980-05-02")]))
        let again = try await Self.imported(cli, a)
        #expect(again["added"] as? Int == 0 && again["updated"] as? Int == 1, "\(again)")
        #expect(try await Self.people(cli) == ["John Smith|1980-05-02"])
        #expect(try await Self.ids(cli) == ids)
    }

    /// A namesake whose date is deleted at the source stays the namesake: not
    /// merged into the card of the name another file holds.
    @Test func aNamesakeWhoseDateIsDeletedStaysTheirOwnPerson() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write("a.csv", Self.google([("John Smith", "1980-05-01")]))
        let b = try cli.write("b.csv", Self.google([("John Smith", "1975-09-12")]))
        #expect(try await cli.run("import", a, b).status == 0)
        let ids = try await Self.ids(cli)
        #expect(try await Self.people(cli) == ["John Smith|1975-09-12", "John Smith|1980-05-01"])
        try cli.write("b.csv", Self.google([("John Smith", "")]))
        #expect(try await cli.run("import", b).status == 0)
        #expect(try await Self.people(cli) == ["John Smith|-", "John Smith|1980-05-01"])
        try cli.write("b.csv", Self.google([("John Smith", "1975-09-12")]))
        #expect(try await cli.run("import", b).status == 0)
        #expect(try await Self.people(cli) == ["John Smith|1975-09-12", "John Smith|1980-05-01"])
        #expect(try await Self.ids(cli) == ids)
    }

    /// A followed folder's namesake whose date is deleted keeps their id and what was chosen for them through the sync.
    @Test func aSyncedNamesakeWhoseDateIsDeletedKeepsTheirIdAndChoices() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let csv = try cli.write("google.csv", Self.google([("John Smith", "1970-05-01")]))
        #expect(try await cli.run("import", csv).status == 0)
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write("nextcloud/john.vcf", Self.card("John Smith", "1980-05-09", version: "4.0"))
        try cli.write("nextcloud/mary.vcf", Self.card("Mary Major", "1990-06-01", version: "4.0"))
        try #require(try await cli.run("sources", "add", folder).status == 0)
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        let namesake = try #require(people.first { ($0["birthday"] as? [String: Any])?["day"] as? Int == 9 }?["id"] as? String)
        try #require(try await cli.run("remind", namesake, "--days", "7").status == 0)
        let ids = try await Self.ids(cli)

        try cli.write("nextcloud/john.vcf", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:John Smith\r\nEND:VCARD\r\n")
        #expect(try await cli.run("sources", "sync").status == 0)
        #expect(try await Self.ids(cli) == ids)
        #expect(try await Self.people(cli) == ["John Smith|-", "John Smith|1970-05-01", "Mary Major|1990-06-01"])
        let kept = try CLIProcess.object(try await cli.run("show", namesake, "--json").stdout)
        #expect(kept["reminder_days"] as? [Int] == [7], "\(kept)")
    }

    /// The order of the files of a run decides no one's id: a file's own card is found first.
    @Test func theOrderOfTheFilesOfARunDecidesNoId() async throws {
        var results: [[String]] = []
        for order in [false, true] {
            let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
            defer { cli.cleanUp() }
            let a = try cli.write("a.csv", Self.google([("John Smith", "1980-05-01")]))
            #expect(try await cli.run("import", a).status == 0)
            let before = try await Self.ids(cli)
            try cli.write("a.csv", Self.google([("John Smith", "1980-05-02")]))
            let phone = try cli.write("phone.vcf", Self.card("John Smith", "1980-05-01"))
            #expect(try await cli.run(["import"] + (order ? [phone, a] : [a, phone])).status == 0)
            let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
            let corrected = people.first { ($0["birthday"] as? [String: Any])?["day"] as? Int == 2 }
            #expect(before == [corrected?["id"] as? String ?? ""], "a.csv's John is still a.csv's card")
            results.append(try await Self.ids(cli) + Self.people(cli))
        }
        #expect(results.count == 2 && results[0] == results[1], "\(results)")
    }

    /// A card that agrees with the second John Smith of another file is that John Smith.
    @Test func aCardAgreeingWithTheSecondNamesakeOfAFileIsThatNamesake() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write("a.csv", Self.google([("John Smith", "1970-05-01"), ("John Smith", "1980-09-12")]))
        let b = try cli.write("b.csv", Self.google([("John Smith", "1980-09-12")]))
        #expect(try await cli.run("import", a).status == 0)
        #expect(try await Self.imported(cli, b)["added"] as? Int == 0)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-09-12"])
    }

    /// A file with two namesakes, the second of whom another file has too
    /// (each file with its own phone): after the first import of each card, every
    /// import of both files, in either order, keeps each one's id.
    @Test func twoNamesakesOfAFileKeepTheirIdsWhicheverFileIsReadFirst() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write(
            "a.vcf",
            Self.card("John Smith", "1980-05-01")
                + "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:John Smith\r\nBDAY:1985-09-12\r\nTEL:+15550199\r\nEND:VCARD\r\n"
        )
        let b = try cli.write(
            "b.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:John Smith\r\nBDAY:1985-09-12\r\nTEL:+15550100\r\nEND:VCARD\r\n"
        )
        /// Each person as `birthday=id`, sorted.
        func byBirthday() async throws -> [String] {
            try #require(try await cli.json(["people"]) as? [[String: Any]]).map { person in
                let birthday = person["birthday"] as? [String: Any]
                return "\(birthday?["month"] as? Int ?? 0)-\(birthday?["day"] as? Int ?? 0)=\(person["id"] as? String ?? "")"
            }.sorted()
        }
        #expect(try await cli.run("import", b, a).status == 0)
        let first = try await byBirthday()
        #expect(first.count == 2, "\(first)")
        for files in [[a, b], [a, b], [b, a], [a], [b]] {
            #expect(try await cli.run(["import"] + files).status == 0)
            #expect(try await byBirthday() == first, "\(files)")
        }
        #expect(try await Self.people(cli) == ["John Smith|1980-05-01", "John Smith|1985-09-12"])
    }

    /// A card alone of its name in its file that became another file's
    /// second namesake (the birthdays agreed) is still that person when its
    /// date is corrected in its file.
    @Test func aCardThatBecameAnotherFilesSecondNamesakeKeepsItsIdWhenItsDateIsCorrected() async throws {
        let cli = try CLIProcess(now: "2026-04-20T08:00:00+02:00")
        defer { cli.cleanUp() }
        let a = try cli.write("a.csv", Self.google([("John Smith", "1970-05-01"), ("John Smith", "1980-09-12")]))
        let card = { (birthday: String) in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:John Smith\r\nBDAY:\(birthday)\r\nTEL:+15550100\r\nEND:VCARD\r\n"
        }
        let b = try cli.write("b.vcf", card("1980-09-12"))
        #expect(try await cli.run("import", a).status == 0)
        #expect(try await Self.imported(cli, b)["added"] as? Int == 0)
        let ids = try await Self.ids(cli)
        try cli.write("b.vcf", card("1980-09-13"))
        #expect(try await Self.imported(cli, b)["added"] as? Int == 0)
        #expect(try await Self.ids(cli) == ids)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01", "John Smith|1980-09-13"])
    }

    /// A folder named twice, or a folder and a file in it: each file is read once.
    @Test func aFolderNamedTwiceIsReadOnce() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("cards")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = try cli.write("cards/john.vcf", Self.card("John Smith", "1970-05-01"))
        #expect(try await Self.imported(cli, folder, folder)["added"] as? Int == 1)
        #expect(try await Self.imported(cli, folder, file)["added"] as? Int == 0)
        #expect(try await Self.imported(cli, file, folder)["added"] as? Int == 0)
        #expect(try await Self.people(cli) == ["John Smith|1970-05-01"])
    }
}
