import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// What the readers take from a card besides names and dates (issue 12):
/// nicknames, death dates and Nextcloud's exclusion.
@Suite struct PersonFieldReaderTests {
    private func contact(_ body: [String], version: String = "3.0") throws -> ParsedContact {
        try VCardParserTests.only(VCardParserTests.parse(VCardParserTests.card(["FN:Ada", "BDAY:1815-12-10"] + body, version: version)))
    }

    // MARK: - NICKNAME

    @Test(arguments: [
        (["NICKNAME:Addie"], "Addie"),
        (["NICKNAME:Jim,Jimmie"], "Jim"),
        (["NICKNAME:Johny\\,JayJay"], "Johny,JayJay"),
        (["NICKNAME:", "NICKNAME: Robbie ", "NICKNAME:Jim"], "Robbie"),
        (["item1.NICKNAME;TYPE=work:Boss"], "Boss"),
        (["nickname;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:L=C3=A9a"], "Léa"),
    ])
    func readsTheFirstNickname(lines: [String], nickname: String) throws {
        #expect(try contact(lines).nickname == nickname)
    }

    @Test func noNicknameIsNil() throws {
        #expect(try contact([]).nickname == nil)
        #expect(try contact(["NICKNAME:  "]).nickname == nil)
    }

    // MARK: - DEATHDATE

    @Test(arguments: [
        (["DEATHDATE:20200501"], "4.0", "2020-05-01"),
        (["DEATHDATE:2020-05-01"], "3.0", "2020-05-01"),
        (["X-DEATHDATE:2019-11-30"], "3.0", "2019-11-30"),
        (["X-DeathDate;VALUE=date:--1130"], "3.0", "--11-30"),
        (["DEATHDATE;VALUE=text:circa 1990"], "4.0", "circa 1990"),
        (["DEATHDATE;VALUE=text:2020-05-01"], "4.0", "2020-05-01"),
        (["DEATHDATE:sometime"], "4.0", "sometime"),
        (["DEATHDATE:", "X-DEATHDATE:2001-02-03", "DEATHDATE:2005-01-01"], "4.0", "2001-02-03"),
    ])
    func aDeathDateMarksTheContact(lines: [String], version: String, written: String) throws {
        let contact = try contact(lines, version: version)
        #expect(contact.deathDate == written)
        // A death date is not a reminder date: nothing is reported, nothing else changes.
        #expect(contact.birthday == VCardParserTests.date(1815, 12, 10))
        #expect(contact.invalidDates.isEmpty)
    }

    @Test func anEmptyDeathDateMarksNothing() throws {
        #expect(try contact(["DEATHDATE:"]).deathDate == nil)
        #expect(try contact(["X-DEATHDATE: "]).deathDate == nil)
        #expect(try contact([]).deathDate == nil)
    }

    @Test func anUnreadableDeathDateIsNotAProblem() {
        let result = VCardParserTests.parse(VCardParserTests.card(["FN:Ada", "BDAY:1815-12-10", "DEATHDATE:1852-13-27"], version: "4.0"))
        #expect(result.problems.isEmpty)
        #expect(result.contacts.first?.deathDate == "1852-13-27")
    }

    // MARK: - X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR

    @Test(arguments: [
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR;TYPE=boolean:true", true),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR:TRUE", true),
        ("item2.x-nc-exclude-from-birthday-calendar:1", true),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR:", true),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR;TYPE=boolean:false", false),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR:0", false),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR: no", false),
        ("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDARS:true", false),
    ])
    func nextcloudsExclusionIsRead(line: String, excluded: Bool) throws {
        #expect(try contact([line]).excludedInCard == excluded)
    }

    // MARK: - Into people

    @Test func mergingTheSameContactFillsWhatIsMissing() {
        let source = ContactSource(file: "a.vcf", index: 0, line: 1)
        let first = ParsedContact(source: source, uid: "u1", formattedName: "Ada", birthday: EventDate(year: 1815, month: 12, day: 10))
        var later = first
        later.source = ContactSource(file: "b.vcf", index: 0, line: 1)
        later.nickname = "Addie"
        later.deathDate = "1852-11-27"
        later.excludedInCard = true
        var report = ImportReport()
        let people = ContactMerge.people(from: [first, later], report: &report)
        #expect(people.count == 1)
        #expect(people.first?.nickname == "Addie")
        #expect(people.first?.deathDate == "1852-11-27")
        #expect(people.first?.exclusion == Exclusion(card: true))
        #expect(people.first?.excluded == true)
    }

    // MARK: - CSV

    @Test(arguments: [
        ("First Name,Last Name,Nickname,Birthday", "Ada,Lovelace,Addie,1815-12-10"),
        ("First Name,Middle Name,Last Name,Title,Suffix,Nickname,E-mail Address,Birthday", "Ada,,Lovelace,,,Addie,,12/10/1815"),
        ("First Name,Last Name,Display Name,Nickname,Primary Email,Birth Year,Birth Month,Birth Day", "Ada,Lovelace,,Addie,,1815,12,10"),
        ("Vorname,Nachname,Spitzname,Geburtstag", "Ada,Lovelace,Addie,10.12.1815"),
        ("First Name,Last Name,Nickname,Birthday", "Ada,Lovelace,Addie ::: Countess,1815-12-10"),
    ])
    func csvNicknameColumnsAreRead(header: String, row: String) throws {
        let result = CSVContactParser.parse(Data((header + "\n" + row + "\n").utf8), file: "n.csv", referenceYear: 2026)
        let contact = try #require(result.contacts.first)
        #expect(contact.nickname == "Addie")
        #expect(contact.birthday == EventDate(year: 1815, month: 12, day: 10))
    }

    @Test func anEmptyNicknameCellIsNil() throws {
        let result = CSVContactParser.parse(Data("First Name,Nickname,Birthday\nAda,,1815-12-10\n".utf8), file: "n.csv", referenceYear: 2026)
        #expect(try #require(result.contacts.first).nickname == nil)
    }

    // MARK: - Public exports

    @Test(.enabled(if: Repository.corpus != nil, Comment(rawValue: Repository.sharedMissing)))
    func publicExportsGiveTheirNicknames() throws {
        let corpus = try #require(Repository.corpus)
        // RFC 2426's example: two NICKNAME lines, the first is kept.
        let card = try Data(contentsOf: corpus.appendingPathComponent("calcard/048.vcf"))
        let contacts = VCardParser.parse(card, file: "048.vcf").contacts
        #expect(contacts.first?.nickname == "Robbie")
        // Thunderbird's CSV export (Roundcube's test data).
        let thunderbird = try Data(contentsOf: corpus.appendingPathComponent("roundcube/tb_plain.csv"))
        let row = CSVContactParser.parse(thunderbird, file: "tb_plain.csv", referenceYear: 2026).contacts.first
        #expect(row?.nickname == "Nick")
        #expect(row?.birthday == EventDate(year: 1970, month: 11, day: 15))
    }
}
