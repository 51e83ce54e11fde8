import Foundation
import TestSupport
import Testing

/// Google's birthdays calendar imported beside the Google contacts it was
/// made from (issue 43): the calendar's people are found among the cards by
/// the linker's name rules (order, accents, a middle initial, a nickname)
/// when the card is undated or has the same day, so no one is added twice,
/// and a namesake on another day stays someone else. Through the real binary,
/// the two files imported one after the other and in one `import`.
@Suite struct CalendarBesideCardsTests {
    /// Google Contacts' CSV export: Ada with a middle initial, José with his
    /// accents, Robert called Bob, Alan without a birthday, Ann Lee (Ann B.
    /// Lee, born on another day, is in the calendar only: someone else).
    static let csv = """
        First Name,Middle Name,Last Name,Nickname,Birthday,E-mail 1 - Label,E-mail 1 - Value
        Ada,M.,Lovelace,,1815-12-10,* Home,ada@example.org
        José,,Pérez,,1970-04-02,,
        Robert,,Smith,Bob,--08-15,,
        Alan,,Turing,,,,
        Ann,,Lee,,1990-01-01,,

        """

    /// The same people in Google Calendar's Birthdays calendar, as its titles write them.
    static let ics = CalendarImportCommandTests.calendar(
        [
            "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0", "X-WR-CALNAME:Birthdays",
        ]
            + CalendarImportCommandTests.event("Ada Lovelace's birthday", "18151210", uid: "2_a@google.com")
            + CalendarImportCommandTests.event("Jose Perez's birthday", "19700402", uid: "2_b@google.com")
            + CalendarImportCommandTests.event("Bob Smith's birthday", "20260815", uid: "2_c@google.com")
            + CalendarImportCommandTests.event("Turing Alan's birthday", "19120623", uid: "2_d@google.com")
            + CalendarImportCommandTests.event("Ann B. Lee's birthday", "19600707", uid: "2_e@google.com")
            + ["END:VCALENDAR"]
    )

    /// Ann Lee of the CSV and Ann Lee of the calendar, born on other days:
    /// two people, each with their date, imported one after the other (the
    /// ids of both come from the name) and again.
    @Test func aNamesakeOfTheCalendarOnAnotherDayIsSomeoneElse() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let csv = try cli.write("contacts.csv", "First Name,Last Name,Birthday\nAnn,Lee,1990-01-01\n")
        let header = ["BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0"]
        let ics = try cli.write(
            "Birthdays.ics",
            CalendarImportCommandTests.calendar(
                header + CalendarImportCommandTests.event("Ann Lee's birthday", "19600707", uid: "2_e@google.com") + ["END:VCALENDAR"]
            )
        )
        for file in [csv, ics, ics] {
            let imported = try await cli.run("import", file)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        #expect(try await CalendarImportCommandTests().people(cli) == ["Ann Lee 1960-07-07 -", "Ann Lee 1990-01-01 -"])
    }

    @Test(arguments: [false, true])
    func theBirthdaysCalendarBesideTheCSVAddsNoOneTwice(inOneImport: Bool) async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        let files = [try cli.write("contacts.csv", Self.csv), try cli.write("Birthdays.ics", Self.ics)]
        if inOneImport {
            let imported = try await cli.run(["import"] + files)
            #expect(imported.status == 0, "\(imported.stderr)")
        } else {
            for file in files {
                let imported = try await cli.run("import", file)
                #expect(imported.status == 0, "\(imported.stderr)")
            }
        }
        try await cli.enableNotifications()
        let people = try await CalendarImportCommandTests().people(cli)
        #expect(
            people == [
                "Ada M. Lovelace 1815-12-10 -", "Alan Turing 1912-06-23 -", "Ann B. Lee 1960-07-07 -", "Ann Lee 1990-01-01 -",
                "José Pérez 1970-04-02 -", "Robert Smith --08-15 -",
            ],
            "\(people)"
        )
        // One reminder per person and date: the day-before and the day-of of each of the six.
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        let reminded = pending.filter { ["day-before", "day-of"].contains($0["when"] as? String ?? "") }
        #expect(reminded.count == 12 && Set(reminded.compactMap { $0["person_id"] as? String }).count == 6, "\(pending)")
        // The calendar again changes nothing and adds no one.
        let again = try await cli.json(["import", files[1]])
        #expect((again as? [String: Any])?["added"] as? Int == 0, "\(again)")
        #expect(try await CalendarImportCommandTests().people(cli) == people)
    }
}
