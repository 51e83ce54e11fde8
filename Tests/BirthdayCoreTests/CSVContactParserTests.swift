import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// A date as a short string, so tables stay readable: "1990-01-15", "--12-25",
/// "none", "invalid", or "slash 3/4/1990" for an unresolved slash date.
private func describe(_ value: CSVDate) -> String {
    switch value {
    case .none: "none"
    case .invalid: "invalid"
    case .date(let date): date.description
    case .slash(let s): "slash \(s.first.value)/\(s.second)/\(s.year.map(String.init) ?? "-")"
    }
}

private func parse(_ text: String, file: String = "test.csv", referenceYear: Int = 2026) -> ParseResult {
    CSVContactParser.parse(Data(text.utf8), file: file, referenceYear: referenceYear)
}

private func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Fixtures/csv"))
    return try Data(contentsOf: url)
}

@Suite struct CSVContactParserTests {
    // MARK: - Dialects

    @Test(arguments: [
        (
            "First Name,Middle Name,Last Name,Name Prefix,Organization Name,Birthday,E-mail 1 - Value,Event 1 - Label,Event 1 - Value",
            CSVHeaderMap.Dialect.google
        ),
        (
            "Name,Given Name,Additional Name,Family Name,Name Prefix,Name Suffix,Birthday,E-mail 1 - Value,Event 1 - Type,Event 1 - Value",
            .googleLegacy
        ),
        ("First Name,Middle Name,Last Name,Title,Suffix,Company,E-mail Address,Birthday,Anniversary", .outlook),
        ("Anrede,Vorname,Weitere Vornamen,\"Nachname\",\"Suffix\",\"Firma\",\"E-Mail-Adresse\",\"Geburtstag\",\"Jahrestag\"", .outlookGerman),
        ("First Name,Last Name,Display Name,Primary Email,Birth Year,Birth Month,Birth Day", .thunderbird),
        ("Full Name;DOB", .generic),
        ("Display Name,Title,First Name,Last Name,Company,Email Home,Birthday,Anniversary", .generic),
    ])
    func detectsDialect(header: String, dialect: CSVHeaderMap.Dialect) throws {
        let text = CSVText.decode(Data(header.utf8))
        var records: [CSVRecord] = []
        let problems = CSVRecordReader.read(text, delimiter: CSVText.delimiter(of: text)) { records.append($0) }
        #expect(problems.isEmpty)
        let fields = try #require(records.first).fields
        #expect(CSVHeaderMap(header: fields).dialect == dialect)
    }

    @Test(arguments: [
        // Google, current layout: name parts, " --MM-DD", Event "Anniversary".
        (
            "First Name,Middle Name,Last Name,Name Prefix,Name Suffix,Birthday,Event 1 - Label,Event 1 - Value\n"
                + "Max,Amadeus,Mustermann,,(geb. Musterfrau), --12-25,Anniversary,2001-05-04\n",
            Summary(0, line: 2, "Max Amadeus Mustermann (geb. Musterfrau)", birthday: "--12-25", anniversary: "2001-05-04")
        ),
        // Google, legacy layout: the Name column wins; "Event 1 - Type".
        (
            "Name,Given Name,Family Name,Birthday,Event 1 - Type,Event 1 - Value\nDr. Jane Roe,Jane,Roe,1975-12-12,* Anniversary,2000-02-29\n",
            Summary(0, line: 2, "Dr. Jane Roe", birthday: "1975-12-12", anniversary: "2000-02-29")
        ),
        // Outlook English: month first, 0/0/00 is none.
        (
            "First Name,Middle Name,Last Name,Title,Suffix,Company,E-mail Address,Birthday,Anniversary\nJohn,,Doe,Mr.,Jr.,,,3/4/1990,0/0/00\n",
            Summary(0, line: 2, "Mr. John Doe Jr.", birthday: "1990-03-04")
        ),
        // German Outlook: D.M.YYYY, 0.0.00 is none, mojibake headers elsewhere.
        (
            "\"Anrede\",\"Vorname\",\"Weitere Vornamen\",\"Nachname\",\"StraÃŸe privat\",\"Firma\",\"E-Mail-Adresse\",\"Geburtstag\",\"Jahrestag\"\r\n"
                + "\"\",\"Hans\",\"\",\"Müller\",\"\",\"\",\"\",\"3.4.1990\",\"0.0.00\"\r\n",
            Summary(0, line: 2, "Hans Müller", birthday: "1990-04-03")
        ),
        // Thunderbird: split columns, year may be empty.
        (
            "First Name,Last Name,Display Name,Primary Email,Birth Year,Birth Month,Birth Day,\nA,B,,,,2,29,\n",
            Summary(0, line: 2, "A B", birthday: "--02-29")
        ),
        // Generic: Full Name / Date of Birth.
        ("Full Name,Date of Birth\nSam Smith,19800101\n", Summary(0, line: 2, "Sam Smith", birthday: "1980-01-01")),
        // Generic German with tab: Vorname/Nachname/Geburtsdatum.
        ("Vorname\tNachname\tGeburtsdatum\nErika\tMustermann\t12.08.64\n", Summary(0, line: 2, "Erika Mustermann", birthday: "1964-08-12")),
        // German "Name" next to "Vorname" is the family name.
        ("Vorname;Name;Geburtstag\nErika;Mustermann;1.1.2000\n", Summary(0, line: 2, "Erika Mustermann", birthday: "2000-01-01")),
        // No name at all: organisation, then e-mail.
        ("Company,E-mail Address,Birthday\n,x@example.org,1.2.1990\n", Summary(0, line: 2, "x@example.org", birthday: "1990-02-01")),
    ])
    func readsDialect(text: String, expected: Summary) throws {
        let result = parse(text)
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.contacts.map(Summary.init) == [expected])
    }

    @Test func googleFixture() throws {
        let result = CSVContactParser.parse(try fixture("google"), file: "google.csv", referenceYear: 2026)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "Ada Lovelace", birthday: "1815-12-10", anniversary: "1835-07-08"),
                Summary(1, line: 3, "Dr. Grace Brewster Hopper", birthday: "--12-09"),
                Summary(2, line: 4, "Initech", anniversary: "1999-06-06"),
                Summary(3, line: 5, "Alan Turing", invalid: ["1912-06-31"]),
            ]
        )
        #expect(result.contacts.first?.email == "ada@example.org")
        #expect(result.problems.map(\.description) == ["google.csv:5: Birthday '1912-06-31' is not a date"])
    }

    @Test func outlookFixture() throws {
        let result = CSVContactParser.parse(try fixture("outlook"), file: "outlook.csv", referenceYear: 2026)
        #expect(result.problems.isEmpty)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "Linus Torvalds", birthday: "1969-12-28"),
                Summary(1, line: 4, "Margaret H. Hamilton", birthday: "1936-08-17", anniversary: "1958-06-04"),
                Summary(2, line: 5, "Ken Thompson"),
                Summary(4, line: 7, "Barbara Liskov", birthday: "--11-07"),
            ]
        )
    }

    @Test func thunderbirdFixture() throws {
        let result = CSVContactParser.parse(try fixture("thunderbird"), file: "tb.csv", referenceYear: 2026)
        #expect(result.problems.isEmpty)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "Edsger W. Dijkstra", birthday: "1930-05-11"),
                Summary(1, line: 3, "Radia Perlman", birthday: "--12-18"),
                Summary(2, line: 4, "Tim Berners-Lee"),
            ]
        )
    }

    @Test func genericSemicolonFixture() throws {
        let result = CSVContactParser.parse(try fixture("generic-semicolon"), file: "de.csv", referenceYear: 2026)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "Müller; Hans", birthday: "1980-12-24", anniversary: "2005-05-01"),
                Summary(1, line: 5, "Schmidt", birthday: "--12-24"),
                Summary(3, line: 7, "Klein", invalid: ["31.02.1990"]),
            ]
        )
        #expect(result.problems.map(\.description) == ["de.csv:7: Birthday '31.02.1990' is not a date"])
    }

    // MARK: - Dates

    @Test(arguments: [
        ("1987-09-07", "1987-09-07"),
        (" --12-25", "--12-25"),
        ("--1225", "--12-25"),
        ("19800101", "1980-01-01"),
        ("1990-1-5", "1990-01-05"),
        ("1955-07-19T00:00:00Z", "1955-07-19"),
        ("1990-01-15 00:00:00", "1990-01-15"),
        ("1604-03-02", "--03-02"),
        ("0000-03-02", "--03-02"),
        ("3/4/1990", "slash 3/4/1990"),
        ("20/01/1991", "slash 20/1/1991"),
        ("3/4/1990 12:00 AM", "slash 3/4/1990"),
        ("12/25", "slash 12/25/-"),
        ("2/29/1604", "slash 2/29/1604"),
        ("1/2/99", "slash 1/2/1999"),
        ("1990/01/15", "1990-01-15"),
        ("3.4.1990", "1990-04-03"),
        ("03.04.1990", "1990-04-03"),
        ("01.01.99", "1999-01-01"),
        ("01.01.26", "2026-01-01"),
        ("01.01.27", "1927-01-01"),
        ("24.12.", "--12-24"),
        ("1990.04.03", "1990-04-03"),
        ("0/0/00", "none"),
        ("0.0.00", "none"),
        ("00/00/0000", "none"),
        ("0000-00-00", "none"),
        ("", "none"),
        ("   ", "none"),
        ("1990-02-30", "invalid"),
        ("1990-02-29", "invalid"),
        ("--02-29", "--02-29"),
        ("29.02.1990", "invalid"),
        ("206-12-15", "invalid"),
        ("circa 1800", "invalid"),
        ("1.2.3.4", "invalid"),
        ("1/2/345", "invalid"),
        ("Jan 5, 1990", "invalid"),
    ])
    func readsDateCell(raw: String, expected: String) {
        #expect(describe(CSVDate.read(raw, referenceYear: 2026)) == expected)
    }

    @Test(arguments: [
        ("1970", "11", "15", "1970-11-15"),
        ("", "2", "29", "--02-29"),
        ("", "", "", "none"),
        ("1970", "", "", "invalid"),
        ("1990", "2", "30", "invalid"),
        ("x", "1", "1", "invalid"),
    ])
    func readsThunderbirdParts(year: String, month: String, day: String, expected: String) {
        #expect(describe(CSVDate.parts(year: year, month: month, day: day, referenceYear: 2026)) == expected)
    }

    @Test func twoDigitYearsFollowReferenceYear() {
        #expect(describe(CSVDate.read("01.01.30", referenceYear: 2026)) == "1930-01-01")
        #expect(describe(CSVDate.read("01.01.30", referenceYear: 2030)) == "2030-01-01")
        #expect(describe(CSVDate.read("01.01.00", referenceYear: 2026)) == "2000-01-01")
    }

    @Test func placeholdersAreNoneNotInvalid() {
        let result = parse("First Name,Last Name,E-mail Address,Birthday,Anniversary\nA,B,,0/0/00,0/0/00\n")
        #expect(result.problems.isEmpty)
        #expect(result.contacts.map(Summary.init) == [Summary(0, line: 2, "A B")])
        let german = parse("Vorname;Nachname;Geburtstag;Jahrestag\nA;B;0.0.00;0.0.00\n")
        #expect(german.problems.isEmpty)
        #expect(german.contacts.map(Summary.init) == [Summary(0, line: 2, "A B")])
    }

    // MARK: - Slash order

    @Test(arguments: [
        // One date with a first part above 12 makes the whole file day-first.
        (
            "Name,Birthday\nA,03/04/1990\nB,20/01/1991\n",
            [Summary(0, line: 2, "A", birthday: "1990-04-03"), Summary(1, line: 3, "B", birthday: "1991-01-20")]
        ),
        // One with a second part above 12 makes it month-first.
        (
            "Name,Birthday\nA,03/04/1990\nB,01/20/1991\n",
            [Summary(0, line: 2, "A", birthday: "1990-03-04"), Summary(1, line: 3, "B", birthday: "1991-01-20")]
        ),
        // Anniversaries count as evidence too.
        ("Name,Birthday,Anniversary\nA,03/04/1990,25/12/2000\n", [Summary(0, line: 2, "A", birthday: "1990-04-03", anniversary: "2000-12-25")]),
        // Same day and month read the same either way.
        ("Name,Birthday\nA,05/05/1990\n", [Summary(0, line: 2, "A", birthday: "1990-05-05")]),
    ])
    func decidesSlashOrderPerFile(text: String, expected: [Summary]) {
        let result = parse(text)
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.contacts.map(Summary.init) == expected)
    }

    @Test func ambiguousSlashDateIsNotGuessed() {
        let result = parse("Name,Birthday\nAnna Example,03/04/1990\nBen,05/05/1990\n", file: "a.csv")
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "Anna Example", invalid: ["03/04/1990"]),
                Summary(1, line: 3, "Ben", birthday: "1990-05-05"),
            ]
        )
        #expect(
            result.problems.map(\.description) == [
                "a.csv:2: Birthday '03/04/1990' is ambiguous (day/month or month/day); pass --date-order mdy or dmy"
            ]
        )
    }

    @Test func conflictingSlashDatesAreEachReported() {
        let result = parse("Name,Birthday\nA,20/01/1991\nB,01/20/1991\nC,03/04/1990\nD,05/05/1990\n", file: "c.csv")
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A", invalid: ["20/01/1991"]),
                Summary(1, line: 3, "B", invalid: ["01/20/1991"]),
                Summary(2, line: 4, "C", invalid: ["03/04/1990"]),
                Summary(3, line: 5, "D", birthday: "1990-05-05"),
            ]
        )
        #expect(
            result.problems.map(\.description) == [
                "c.csv:2: Birthday '20/01/1991' contradicts other dates in this file (both day/month and month/day appear); pass --date-order mdy or dmy",
                "c.csv:3: Birthday '01/20/1991' contradicts other dates in this file (both day/month and month/day appear); pass --date-order mdy or dmy",
                "c.csv:4: Birthday '03/04/1990' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
            ]
        )
    }

    @Test func outlookIsAlwaysMonthFirst() {
        let result = parse("First Name,Last Name,E-mail Address,Birthday\nA,B,,3/4/1990\nC,D,,20/1/1991\n", file: "o.csv")
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A B", birthday: "1990-03-04"),
                Summary(1, line: 3, "C D", invalid: ["20/1/1991"]),
            ]
        )
        #expect(result.problems.map(\.description) == ["o.csv:3: Birthday '20/1/1991' is not a date"])
    }

    @Test(arguments: [DateOrder.dmy, .mdy])
    func slashDecisionTable(order: DateOrder) {
        let evidence = order == .dmy ? SlashDate(first: 13, second: 1, year: 1990) : SlashDate(first: 1, second: 13, year: 1990)
        #expect(evidence.evidence == order)
        #expect(SlashDecision.decide(for: [SlashDate(first: 3, second: 4, year: nil), evidence], outlook: false) == .order(order))
        #expect(SlashDecision.decide(for: [evidence], outlook: true) == .order(.mdy))
        #expect(SlashDecision.decide(for: [SlashDate(first: 3, second: 4, year: nil)], outlook: false) == .undecided)
        // The user's order wins over the file and over Outlook.
        #expect(SlashDecision.decide(for: [evidence], outlook: true, given: .ymd) == .given(.ymd))
    }

    // MARK: - Date order given by the user (--date-order)

    /// An Outlook export with US dates, saved with Outlook's column names but
    /// no e-mail column (Outlook's "Export to a file" keeps only the mapped
    /// fields), so nothing in the header says it is month first.
    static let outlookUSDates = """
        First Name,Middle Name,Last Name,Birthday,Anniversary
        Grace,,Hopper,12/1/1988,0/0/00
        Alan,M.,Turing,3/4/1990,6/7/2015
        Ada,,Lovelace,11/10/1985,0/0/00

        """

    @Test func outlookUSDatesWithoutOrderAreReportedNamingTheOption() {
        let result = parse(Self.outlookUSDates, file: "outlook.csv")
        #expect(result.contacts.map(\.birthday) == [nil, nil, nil])
        #expect(
            result.problems.map(\.description) == [
                "outlook.csv:2: Birthday '12/1/1988' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
                "outlook.csv:3: Birthday '3/4/1990' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
                "outlook.csv:3: Anniversary '6/7/2015' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
                "outlook.csv:4: Birthday '11/10/1985' is ambiguous (day/month or month/day); pass --date-order mdy or dmy",
            ]
        )
    }

    @Test(arguments: [
        (DateOrder.mdy, ["1988-12-01", "1990-03-04", "1985-11-10"], "2015-06-07"),
        (DateOrder.dmy, ["1988-01-12", "1990-04-03", "1985-10-11"], "2015-07-06"),
    ])
    func outlookUSDatesFollowTheGivenOrder(order: DateOrder, birthdays: [String], anniversary: String) {
        let result = CSVContactParser.parse(Data(Self.outlookUSDates.utf8), file: "outlook.csv", referenceYear: 2026, dateOrder: order)
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.contacts.map { $0.birthday?.description } == birthdays)
        #expect(result.contacts.map { $0.anniversary?.description } == [nil, anniversary, nil])
    }

    @Test func givenOrderOverridesOutlookAndTheFilesEvidence() {
        // Outlook's full header makes the file month first, and 20/1/1991 would make it day first:
        // a given order decides for every date, and a date that does not exist in it is reported as such.
        let text = "First Name,Last Name,E-mail Address,Birthday\nA,B,,3/4/1990\nC,D,,20/1/1991\nE,F,,1/20/1991\n"
        let result = CSVContactParser.parse(Data(text.utf8), file: "o.csv", referenceYear: 2026, dateOrder: .dmy)
        #expect(result.contacts.map { $0.birthday?.description } == ["1990-04-03", "1991-01-20", nil])
        #expect(result.problems.map(\.description) == ["o.csv:4: Birthday '1/20/1991' is not a date when read day/month/year (--date-order dmy)"])
    }

    @Test(
        arguments: [
            ("88/12/1", "1988-12-01"), ("01/02/03", "2001-02-03"), ("12/25", "--12-25"), ("99/02/29", nil), ("12/1/1988", nil),
        ] as [(String, String?)]
    )
    func yearFirstOrder(cell: String, expected: String?) {
        let result = CSVContactParser.parse(Data("Name,Birthday\nA,\(cell)\n".utf8), file: "y.csv", referenceYear: 2026, dateOrder: .ymd)
        #expect(result.contacts.first?.birthday?.description == expected)
        #expect(result.problems.count == (expected == nil ? 1 : 0))
    }

    @Test func yearFirstDateIsNotADateWithoutTheOrder() {
        // 88/12/1 is no day/month date, and a year first is never inferred.
        let result = parse("Name,Birthday\nA,88/12/1\n", file: "y.csv")
        #expect(result.problems.map(\.description) == ["y.csv:2: Birthday '88/12/1' is not a date"])
    }

    // MARK: - Encodings

    @Test func utf8WithBOM() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("Display Name,Birthday\nZoë,1990-01-02\n".utf8)
        let result = CSVContactParser.parse(Data(bytes), file: "f", referenceYear: 2026)
        #expect(result.contacts.map(Summary.init) == [Summary(0, line: 2, "Zoë", birthday: "1990-01-02")])
    }

    @Test(arguments: [true, false])
    func utf16WithBOM(littleEndian: Bool) {
        let text = "Name;Geburtstag\r\nJosé Núñez;24.12.1980\r\n美咲;--03-01\r\n"
        var bytes: [UInt8] = littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
        for unit in text.utf16 {
            let pair = [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            bytes += littleEndian ? pair : pair.reversed()
        }
        let result = CSVContactParser.parse(Data(bytes), file: "f", referenceYear: 2026)
        #expect(result.problems.isEmpty)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "José Núñez", birthday: "1980-12-24"),
                Summary(1, line: 3, "美咲", birthday: "--03-01"),
            ]
        )
    }

    @Test func windows1252GermanOutlook() {
        // "Straße" (0xDF), "Müller" (0xFC), "Grüße – €" (0x96, 0x80) as German Outlook writes them.
        var bytes = Array("\"Vorname\",\"Nachname\",\"Stra".utf8) + [0xDF] + Array("e privat\",\"Geburtstag\",\"Jahrestag\"\r\n".utf8)
        bytes += Array("\"Hans\",\"M".utf8) + [0xFC] + Array("ller\",\"Gr".utf8) + [0xFC, 0xDF] + Array("e ".utf8) + [0x96, 0x20, 0x80]
        bytes += Array("\",\"1.2.1970\",\"0.0.00\"\r\n".utf8)
        let result = CSVContactParser.parse(Data(bytes), file: "f", referenceYear: 2026)
        #expect(result.problems.isEmpty)
        #expect(result.contacts.map(Summary.init) == [Summary(0, line: 2, "Hans Müller", birthday: "1970-02-01")])
    }

    @Test func mojibakeHeadersAreRepaired() {
        #expect(CSVHeaderMap.key("StraÃŸe geschÃ¤ftlich") == "straße geschäftlich")
        #expect(CSVHeaderMap.key("  Birthday ") == "birthday")
        #expect(CSVHeaderMap.key("Straße") == "straße")
        #expect(Windows1252.repairingMojibake("GeburtstagÃ¼") == "Geburtstagü")
    }

    // MARK: - Delimiters and records

    @Test(arguments: [
        ("Name,Birthday\nA,1990-01-02\n", Character(",")),
        ("Name;Birthday\nA;1990-01-02\n", ";"),
        ("Name\tBirthday\nA\t1990-01-02\n", "\t"),
        ("\"Name, full\";\"Birthday\"\nA;1990-01-02\n", ";"),
        ("\"a;b\",Name,Birthday\n", ","),
        ("\n\nName;Birthday\n", ";"),
        ("Birthday\n", ","),
    ])
    func detectsDelimiter(text: String, delimiter: Character) {
        #expect(CSVText.delimiter(of: text) == delimiter)
    }

    @Test func quotedNewlinesGiveExactLines() {
        let text =
            "Name,Notes,Birthday\r\n"  // line 1
            + "A,\"one\r\ntwo\r\nthree\",1990-01-01\r\n"  // lines 2-4
            + "B,\"x\ny\",1990-01-02\r\n"  // lines 5-6 (LF inside a CRLF file)
            + "\r\n"  // line 7: blank, not a record
            + "C,\"\"\"quoted\"\"\",1990-01-03\n"  // line 8
            + ",,\n"  // line 9: neither name nor date, skipped, keeps its index
            + "D,\"a\rb\",1990-01-04\n"  // lines 10-11 (a lone CR)
            + "E,,1990-01-05"  // line 12, no final newline
        let result = parse(text)
        #expect(result.problems.isEmpty)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A", birthday: "1990-01-01"),
                Summary(1, line: 5, "B", birthday: "1990-01-02"),
                Summary(2, line: 8, "C", birthday: "1990-01-03"),
                Summary(4, line: 10, "D", birthday: "1990-01-04"),
                Summary(5, line: 12, "E", birthday: "1990-01-05"),
            ]
        )
    }

    @Test func raggedRowsAndTrailingCommas() {
        let text = "First Name,Last Name,Birthday,Notes,\nA,B,1990-01-01,,,,,extra\nC,D\nE,F,1990-01-03\n"
        let result = parse(text)
        #expect(result.problems.isEmpty)
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A B", birthday: "1990-01-01"),
                Summary(1, line: 3, "C D"),
                Summary(2, line: 4, "E F", birthday: "1990-01-03"),
            ]
        )
    }

    @Test func strayQuoteSkipsOnlyThatRecord() {
        let text = "Name,Height,Birthday\nA,1,1990-01-01\nB,5'11\",1990-01-02\nC,2,1990-01-03\n"
        let result = parse(text, file: "q.csv")
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A", birthday: "1990-01-01"),
                Summary(1, line: 4, "C", birthday: "1990-01-03"),
            ]
        )
        #expect(result.problems.map(\.description) == ["q.csv:3: record is not valid CSV (a quote in the wrong place); skipped to the next line"])
    }

    // MARK: - Errors and hostile input

    @Test func noDateColumnIsOneProblem() {
        let result = parse("Name,Given Name,Family Name,Phone 1 - Value,E-mail 1 - Value,Notes\nA,B,C,1,x@y,\n", file: "n.csv")
        #expect(result.contacts.isEmpty)
        #expect(
            result.problems.map(\.description) == [
                "n.csv:1: no birthday or anniversary column in the header (found: Name, Given Name, Family Name, Phone 1 - Value, E-mail 1 - Value, …)"
            ]
        )
    }

    @Test(arguments: [Data(), Data("\n\n  \r\n".utf8)])
    func emptyFile(data: Data) {
        let result = CSVContactParser.parse(data, file: "e.csv", referenceYear: 2026)
        #expect(result.contacts.isEmpty)
        #expect(result.problems.map(\.description) == ["e.csv:1: the file is empty (no header line)"])
    }

    @Test func hostileInputNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = (0..<Int.random(in: 0..<2000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = CSVContactParser.parse(Data(bytes), file: "g", referenceYear: 2026)
            _ = CSVContactParser.parse(Data("Name,Birthday\n".utf8 + bytes), file: "g", referenceYear: 2026)
        }
        _ = CSVContactParser.parse(Data([0xC3, 0x28, 0xFF, 0xFE, 0x00]), file: "g", referenceYear: 2026)
        let many = String(repeating: "a\"b,\"\n", count: 500)
        _ = parse("Name,Birthday\n" + many)
        let huge = parse("Name,Birthday,Notes\nA,1990-01-01,\"" + String(repeating: "x", count: 2_000_000) + "\"\nB,1990-01-02,\n")
        #expect(
            huge.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A", birthday: "1990-01-01"),
                Summary(1, line: 3, "B", birthday: "1990-01-02"),
            ]
        )
    }

    @Test func unclosedQuoteIsReportedWithoutLeakingLaterRecords() {
        let result = parse("Name,Birthday\nA,1990-01-01\nB,\"1990-01-02\nSecret Person,1990-01-03\n", file: "u.csv")
        #expect(
            result.contacts.map(Summary.init) == [
                Summary(0, line: 2, "A", birthday: "1990-01-01"),
                Summary(1, line: 3, "B", invalid: ["1990-01-02…"]),
            ]
        )
        #expect(
            result.problems.map(\.description) == [
                "u.csv:3: a quote opened in this record is never closed; the rest of the file was read as part of it",
                "u.csv:3: Birthday '1990-01-02…' is not a date",
            ]
        )
    }

    @Test(arguments: [("1990-01-01", "1990-01-01"), ("a\nb", "a…"), (String(repeating: "9", count: 50), String(repeating: "9", count: 40) + "…")])
    func excerptsLongDateText(raw: String, excerpt: String) {
        #expect(CSVContactParser.excerpt(raw) == excerpt)
    }

    @Test func problemsNeverNameThePerson() {
        let text = "Name,Birthday,Anniversary\nSecret Person,03/04/1990,1990-02-30\nOther Secret,1990-13-01,\n"
        let result = parse(text)
        #expect(result.problems.count == 3)
        for problem in result.problems {
            #expect(!problem.message.contains("Secret"))
        }
    }
}

extension CSVContactParserTests {
    /// One contact reduced to what the tables compare.
    struct Summary: Hashable, Sendable, CustomStringConvertible {
        var index: Int
        var line: Int
        var name: String
        var birthday: String?
        var anniversary: String?
        var invalid: [String]

        init(_ contact: ParsedContact) {
            index = contact.source.index
            line = contact.source.line
            name = contact.displayName
            birthday = contact.birthday?.description
            anniversary = contact.anniversary?.description
            invalid = contact.invalidDates
        }

        init(_ index: Int, line: Int, _ name: String, birthday: String? = nil, anniversary: String? = nil, invalid: [String] = []) {
            self.index = index
            self.line = line
            self.name = name
            self.birthday = birthday
            self.anniversary = anniversary
            self.invalid = invalid
        }

        var description: String { "#\(index)@\(line) \(name) b=\(birthday ?? "-") a=\(anniversary ?? "-") invalid=\(invalid)" }
    }
}
