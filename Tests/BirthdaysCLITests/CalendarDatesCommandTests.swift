import Foundation
import TestSupport
import Testing

/// Dates in other calendars through the real binary: an Apple export with a
/// lunar birthday, what `people`, `upcoming`, `show`, `pending` and `export`
/// say about it, and the `calendar-rules` setting.
@Suite struct CalendarDatesCommandTests {
    static let card = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        PRODID:-//Apple Inc.//iPhone OS 18.0//EN\r
        UID:mei\r
        FN:Mei Chen\r
        BDAY:1985-12-12\r
        X-ALTBDAY;CALSCALE=chinese:007800021101\r
        X-ALTBDAY;CALSCALE=vikram:20420902\r
        END:VCARD\r

        """

    static func imported() async throws -> CLIProcess {
        let cli = try CLIProcess(now: "2026-03-01T08:00:00Z", timeZone: "UTC")
        let file = try cli.write("apple.vcf", card)
        let result = try await cli.run("import", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("apple.vcf:8: X-ALTBDAY;CALSCALE=vikram '20420902' is in the calendar 'vikram', which is not read"))
        #expect(!result.stderr.contains("Mei"))
        return cli
    }

    @Test func peopleAndUpcomingShowTheCalendar() async throws {
        let cli = try await Self.imported()
        defer { cli.cleanUp() }
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let mei = try #require(people.first)
        let birthday = try #require(mei["birthday"] as? [String: Any])
        #expect(birthday["calendar"] as? String == "gregorian" && birthday["year"] as? Int == 1985 && birthday["leap_month"] as? Bool == false)
        let dates = try #require(mei["calendar_dates"] as? [[String: Any]])
        #expect(dates.count == 1)
        #expect(dates.first?["kind"] as? String == "birthday")
        #expect(dates.first?["calendar"] as? String == "chinese")
        #expect(dates.first?["era"] as? Int == 78 && dates.first?["year"] as? Int == 2)
        #expect(dates.first?["month"] as? Int == 11 && dates.first?["day"] as? Int == 1 && dates.first?["leap_month"] as? Bool == false)
        #expect(dates.first?["gregorian"] as? String == "1985-12-12")
        #expect(mei["invalid_dates"] as? [String] == ["vikram:20420902"])

        let upcoming = try await #require(try cli.json(["upcoming", "--days", "366"]) as? [[String: Any]])
        #expect(upcoming.map { $0["calendar"] as? String } == ["chinese", "gregorian"])
        #expect(upcoming.map { $0["date"] as? String } == ["2026-12-09", "2026-12-12"])
        #expect(upcoming.map { $0["age"] as? Int } == [41, 41])
        #expect(upcoming.first?["month"] as? Int == 11 && upcoming.first?["era"] as? Int == 78)

        let table = try await cli.run("upcoming", "--days", "366").stdout
        #expect(table.contains("Mei Chen  lunar birthday, turns 41"))
        let show = try await cli.run("show", "mei").stdout
        #expect(show.contains("Birthday (lunar): 1st day of the 11th month; next 2026-12-09 (in 283 days), turns 41"), "\(show)")
        let text = try await cli.run("people").stdout
        #expect(text.contains("birthday chinese 0078-0002-11-01"))
    }

    @Test func remindersAndTheFeedFollowTheSetting() async throws {
        let cli = try await Self.imported()
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let pending = try await #require(try cli.json(["pending"]) as? [[String: Any]])
        #expect(pending.compactMap { $0["id"] as? String }.prefix(2) == ["mei-chinese-birthday-daybefore", "mei-chinese-birthday-dayof"])
        #expect(pending.first?["calendar"] as? String == "chinese")
        #expect(pending.last?["calendar"] as? String == "gregorian")

        let expanded = try await cli.run("export").stdout
        #expect(expanded.contains("UID:mei-chinese-birthday-4663@birthdays\r\n"))
        #expect(expanded.components(separatedBy: "X-BIRTHDAYS-CALENDAR:chinese").count - 1 == 10)
        #expect(!expanded.contains("RSCALE"))

        try await cli.set("calendar-rules", "rscale")
        let rscale = try await cli.run("export").stdout
        #expect(rscale.contains("RRULE:RSCALE=CHINESE;FREQ=YEARLY;BYMONTHDAY=1;BYMONTH=11;SKIP=BACKWARD\r\n"))
        await #expect(CLIProcess.shownSetting("calendar-rules", in: try cli.run("settings").stdout) == "rscale")

        let wrong = try await cli.run("settings", "set", "calendar-rules", "lunar")
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("Error: 'lunar' is not a valid calendar-rules; allowed: expanded | rscale\nUsage:"))
    }
}
