import Foundation
import TestSupport
import Testing

@Suite struct ImportCommandTests {
    func samples() -> [String] { [CLIProcess.samples + "/contacts.vcf", CLIProcess.samples + "/google-contacts.csv"] }

    func count(_ object: Any, _ key: String) -> Int? { (object as? [String: Any])?[key] as? Int }

    @Test func samplesImportThenReimportIsUnchanged() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let first = try await cli.json(["import"] + samples())
        #expect(count(first, "added") == 47)
        #expect(count(first, "invalid") == 0)
        let second = try await cli.json(["import"] + samples())
        #expect(count(second, "added") == 0)
        #expect(count(second, "updated") == 0)
        #expect(count(second, "unchanged") == 47)
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        #expect(people.count == 47)
    }

    /// Counts in the summary take the singular for one (issue 24: not "1 contacts").
    @Test(arguments: [(1, "1 contact without dates kept"), (2, "2 contacts without dates kept")])
    func theSummaryCountsInTheSingularAndThePlural(dateless: Int, text: String) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let card = { (uid: String, date: String) in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(uid)\r\n\(date)END:VCARD\r\n"
        }
        let cards = card("ada", "BDAY:1990-03-11\r\n") + (0..<dateless).map { card("n\($0)", "") }.joined()
        let imported = try await cli.run("import", try cli.write("some.vcf", cards))
        #expect(
            imported.stdout == "imported 1 file: \(1 + dateless) added, 0 updated, 0 unchanged, 0 with invalid dates; \(text)\n",
            "\(imported.stdout)"
        )
    }

    @Test func dryRunWritesNothing() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let report = try await cli.json(["import", "--dry-run"] + samples())
        #expect(count(report, "added") == 47)
        // Not even the database was created: reading it fails and still creates nothing.
        let people = try await cli.run("people", "--json")
        #expect(people.status == 1)
        #expect(people.stderr.contains("there is no database at \(cli.databasePath)"))
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    /// `upcoming` against an independent oracle: Foundation's calendar
    /// arithmetic over what `people` reports, a day-by-day walk through the
    /// Chinese calendar for a lunar birthday, and nobody who has died (the
    /// `deceased` setting is `skip`).
    @Test(arguments: ["2026-11-21T08:00:00Z", "2027-02-27T23:30:00Z", "2028-02-28T12:00:00Z", "2026-12-31T23:59:00Z"])
    func upcomingMatchesCalendarArithmetic(now: String) async throws {
        let cli = try CLIProcess(now: now, timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import"] + samples())
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let upcoming = try await #require(try cli.json(["upcoming", "--days", "366"]) as? [[String: Any]])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let nowDate = try #require(ISO8601DateFormatter().date(from: now))
        let today = calendar.startOfDay(for: nowDate)
        var expected: [String: Int] = [:]  // "id/kind" -> days until
        var chinese = Calendar(identifier: .chinese)
        chinese.timeZone = calendar.timeZone
        for person in people where person["deceased"] as? Bool != true {
            for date in person["calendar_dates"] as? [[String: Any]] ?? [] {
                #expect(date["calendar"] as? String == "chinese" && date["leap_month"] as? Bool == false, "the samples' only other calendar")
                let (month, day) = (date["month"] as? Int, date["day"] as? Int)
                let ahead = (0...366).first { offset in
                    let parts = chinese.dateComponents([.month, .day], from: calendar.date(byAdding: .day, value: offset, to: today)!)
                    return parts.month == month && parts.day == day && parts.isLeapMonth != true
                }
                expected["\(person["id"]!)/\(date["kind"]!)/chinese"] = ahead
            }
            for kind in ["birthday", "anniversary"] {
                guard let date = person[kind] as? [String: Any], let month = date["month"] as? Int, let day = date["day"] as? Int else { continue }
                // Feb 29 in a common year falls on Feb 28 (the default policy).
                var next: Date?
                var year = calendar.component(.year, from: today)
                while next == nil {
                    let isLeap = calendar.range(of: .day, in: .month, for: calendar.date(from: DateComponents(year: year, month: 2))!)!.count == 29
                    let d = (month == 2 && day == 29 && !isLeap) ? 28 : day
                    let candidate = calendar.date(from: DateComponents(year: year, month: month, day: d))!
                    if candidate >= today { next = candidate }
                    year += 1
                }
                expected["\(person["id"]!)/\(kind)"] = calendar.dateComponents([.day], from: today, to: next!).day
            }
        }
        #expect(upcoming.count == expected.count)
        for event in upcoming {
            let calendarName = event["calendar"] as? String ?? "gregorian"
            let key = "\(event["id"]!)/\(event["kind"]!)" + (calendarName == "gregorian" ? "" : "/" + calendarName)
            #expect(event["days_until"] as? Int == expected[key], "\(key)")
        }
        let days = upcoming.compactMap { $0["days_until"] as? Int }
        #expect(days == days.sorted(), "nearest first")
    }

    @Test func yearlessAndLeapDayBirthdaysInUpcoming() async throws {
        let cli = try CLIProcess(now: "2027-02-20T10:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import"] + samples())
        let upcoming = try await #require(try cli.json(["upcoming", "--days", "20"]) as? [[String: Any]])
        let leap = try #require(upcoming.first { $0["name"] as? String == "Leap Day Larsen" })
        #expect(leap["date"] as? String == "2027-02-28")
        #expect(leap["month"] as? Int == 2 && leap["day"] as? Int == 29)
        #expect(leap["age"] as? Int == 31)
        let bilas = try #require(upcoming.first { $0["name"] as? String == "Fran Bilas" })
        #expect(bilas["year"] is NSNull && bilas["age"] is NSNull)
    }

    @Test func humanOutputSaysTodayAndTomorrow() async throws {
        let cli = try CLIProcess(now: "2026-06-23T10:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import"] + samples())
        let result = try await cli.run(["upcoming", "--days", "1"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Alan Turing and Vint Cerf were both born on June 23; Joan Clarke on the 24th,
        // the day Donald Knuth married (1961): birthdays first on a day, then by name.
        try #require(lines.count == 4, "\(lines)")
        #expect(lines[0].hasPrefix("today ") && lines[0].contains("Alan Turing") && lines[0].contains("turns 114"))
        #expect(lines[1].hasPrefix("today ") && lines[1].contains("Vint Cerf") && lines[1].contains("turns 83"))
        #expect(lines[2].hasPrefix("tomorrow ") && lines[2].contains("Joan Clarke"))
        #expect(lines[3].hasPrefix("tomorrow ") && lines[3].contains("Donald Knuth") && lines[3].contains("anniversary, 65 years"))
        // Columns line up.
        let nameColumn = lines.map { ($0.range(of: "Tue") ?? $0.range(of: "Wed"))?.lowerBound.utf16Offset(in: $0) }
        #expect(Set(nameColumn).count == 1)
    }

    @Test func databaseFromEnvironmentAndNowFromEnvironment() async throws {
        var cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        cli.extraEnvironment["BIRTHDAYS_DATABASE"] = cli.path("env.sqlite")
        let result = try await cli.run(["import", "--json"] + samples())
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.path("env.sqlite")))
        cli.extraEnvironment["BIRTHDAYS_NOW"] = "not a date"
        let bad = try await cli.run(["upcoming"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("BIRTHDAYS_NOW"))
    }
}

/// Bad input: a clear message naming file and line, no crash, and the store unchanged.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var fails: Bool
        var message: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty.vcf", bytes: [], fails: true, message: "empty.vcf:1: the file is empty"),
        Case(
            name: "garbage.vcf",
            bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) },
            fails: true,
            message: "garbage.vcf:1: not a vCard or CSV file"
        ),
        Case(
            name: "truncated.vcf",
            bytes: Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cut Off\r\nBDAY:1990-01-02\r\nNOTE:the export stopp".utf8),
            fails: false,
            message: "truncated.vcf:1:"
        ),
        Case(name: "nobday.csv", bytes: Array("Name,Email\nAda,ada@example.org\n".utf8), fails: true, message: "nobday.csv:1:"),
        Case(
            name: "latin1.vcf",
            bytes: Array("BEGIN:VCARD\nVERSION:3.0\nFN:Ren".utf8) + [0xE9, 0xFF] + Array("\nBDAY:1990-01-02\nEND:VCARD\n".utf8),
            fails: false,
            message: ""
        ),
        Case(
            name: "longline.vcf",
            bytes: Array("BEGIN:VCARD\nVERSION:3.0\nFN:Long\nNOTE:".utf8) + [UInt8](repeating: 0x61, count: 10_000_000)
                + Array("\nBDAY:1990-01-02\nEND:VCARD\n".utf8),
            fails: false,
            message: ""
        ),
    ]

    @Test(arguments: cases)
    func badInputIsReportedAndTheStoreIsUnchangedOnFailure(_ c: Case) async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/contacts.vcf"])
        let before = try await cli.run(["people", "--json"]).stdout
        let file = try cli.write(c.name, c.bytes)
        let result = try await cli.run(["import", file])
        #expect(result.status == (c.fails ? 1 : 0), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        if !c.message.isEmpty { #expect(result.stderr.contains(cli.path(c.message)) || result.stderr.contains(c.message), "\(result.stderr)") }
        for line in result.stderr.split(separator: "\n") where line.contains(c.name) {
            #expect(line.hasPrefix(file + ":"), "problems are file:line: message")
        }
        let after = try await cli.run(["people", "--json"]).stdout
        if c.fails {
            #expect(after == before)
        } else {
            let people = try #require(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [[String: Any]])
            #expect(people.count == 42, "the 41 cards of samples/contacts.vcf and this one")
        }
    }

    @Test func anUnreadablePathAbortsTheWholeRun() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let result = try await cli.run(["import", CLIProcess.samples + "/contacts.vcf", cli.path("missing.vcf")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("missing.vcf"))
        let people = try await cli.run(["people", "--json"]).stdout
        #expect(people.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}

/// Generated exports in every dialect match their truth exactly, through the real binary.
@Suite(.enabled(if: Repository.shared != nil, Comment(rawValue: Repository.sharedMissing)))
struct GeneratedExportTests {
    @Test(arguments: ["vcard21", "vcard3", "vcard4", "google-csv", "outlook-csv", "mixed"])
    func importMatchesTruth(format: String) async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let (file, truthPath) = try await generateContacts(count: 1_500, format: format, seed: 7, into: cli)
        let report = try await cli.json(["import", file])
        #expect((report as? [String: Any])?["invalid"] as? Int == 0)
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        // truth: uid, name, kind, month, day, year
        var expected: [String] = []
        for line in try String(contentsOfFile: truthPath, encoding: .utf8).split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            expected.append([f[1], f[2], f[3], f[4], f[5]].joined(separator: "|"))
        }
        var actual: [String] = []
        for person in people {
            for kind in ["birthday", "anniversary"] {
                guard let d = person[kind] as? [String: Any] else { continue }
                let year = (d["year"] as? Int).map(String.init) ?? ""
                actual.append(["\(person["name"]!)", kind, "\(d["month"]!)", "\(d["day"]!)", year].joined(separator: "|"))
            }
        }
        let missing = multisetDifference(expected, actual)
        let extra = multisetDifference(actual, expected)
        #expect(missing.isEmpty, "missing \(missing.count), e.g. \(missing.prefix(5))")
        #expect(extra.isEmpty, "unexpected \(extra.count), e.g. \(extra.prefix(5))")
        let again = try await cli.json(["import", file])
        #expect((again as? [String: Any])?["unchanged"] as? Int == people.count)
        #expect((again as? [String: Any])?["added"] as? Int == 0)
    }
}

/// Elements of `a` not matched one-for-one in `b`.
func multisetDifference(_ a: [String], _ b: [String]) -> [String] {
    var counts: [String: Int] = [:]
    for item in b { counts[item, default: 0] += 1 }
    var result: [String] = []
    for item in a {
        if let n = counts[item], n > 0 { counts[item] = n - 1 } else { result.append(item) }
    }
    return result
}

/// `import --date-order`: an Outlook export with US dates.
@Suite(.serialized) struct DateOrderCommandTests {
    /// An Outlook export with US dates whose header does not say Outlook (no e-mail column).
    static let outlookUSDates = "First Name,Last Name,Birthday\r\nGrace,Hopper,12/1/1988\r\nAlan,Turing,3/4/1990\r\n"

    @Test func ambiguousDatesNameTheOptionAndAreNotImported() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write("outlook.csv", Self.outlookUSDates)
        let result = try await cli.run("import", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").map(String.init) == [
                "\(file):2: Birthday '12/1/1988' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
                "\(file):3: Birthday '3/4/1990' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
            ]
        )
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        #expect(people.allSatisfy { $0["birthday"] is NSNull })
    }

    @Test(arguments: [("mdy", [12, 3], [1, 4]), ("dmy", [1, 4], [12, 3])])
    func dateOrderDecidesForTheWholeRun(order: String, months: [Int], days: [Int]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let report = try await cli.json(["import", "--date-order", order, try cli.write("outlook.csv", Self.outlookUSDates)])
        #expect((report as? [String: Any])?["problems"] as? [Any] != nil)
        #expect(((report as? [String: Any])?["problems"] as? [Any])?.isEmpty == true)
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: people.map { ($0["name"] as? String ?? "", $0["birthday"] as? [String: Any]) })
        #expect(byName["Grace Hopper"]??["month"] as? Int == months[0])
        #expect(byName["Grace Hopper"]??["day"] as? Int == days[0])
        #expect(byName["Grace Hopper"]??["year"] as? Int == 1988)
        #expect(byName["Alan Turing"]??["month"] as? Int == months[1])
        #expect(byName["Alan Turing"]??["day"] as? Int == days[1])
    }
}
