import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct VCardParserTests {
    // MARK: - Helpers

    /// Parses `lines` joined with `eol` (and ending with it).
    static func parse(_ lines: [String], eol: String = "\r\n", file: String = "test.vcf") -> ParseResult {
        VCardParser.parse(Data((lines.joined(separator: eol) + eol).utf8), file: file)
    }

    static func parse(bytes: [UInt8], file: String = "test.vcf") -> ParseResult {
        VCardParser.parse(Data(bytes), file: file)
    }

    /// A card around `body`.
    static func card(_ body: [String], version: String = "3.0") -> [String] {
        ["BEGIN:VCARD", "VERSION:\(version)"] + body + ["END:VCARD"]
    }

    static func only(_ result: ParseResult) throws -> ParsedContact {
        try #require(result.contacts.count == 1, "\(result.contacts.count) contacts")
        return result.contacts[0]
    }

    static func fixture(_ name: String) throws -> ParseResult {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "vcf", subdirectory: "Fixtures/vcard"))
        return VCardParser.parse(try Data(contentsOf: url), file: "\(name).vcf")
    }

    static func date(_ year: Int?, _ month: Int, _ day: Int) -> EventDate? { EventDate(year: year, month: month, day: day) }

    // MARK: - Versions

    struct VersionCase: CustomTestStringConvertible, Sendable {
        var label: String
        var lines: [String]
        var name: String
        var birthday: EventDate?
        var anniversary: EventDate?
        var testDescription: String { label }
    }

    static let versions: [VersionCase] = [
        VersionCase(
            label: "2.1",
            lines: ["BEGIN:VCARD", "VERSION:2.1", "N:Gump;Forrest", "FN:Forrest Gump", "TEL;HOME;VOICE:111", "BDAY:19800101", "END:VCARD"],
            name: "Forrest Gump",
            birthday: date(1980, 1, 1)
        ),
        VersionCase(
            label: "2.1 quoted-printable",
            lines: [
                "BEGIN:VCARD", "VERSION:2.1", "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Br=C3=BCning;Michael",
                "BDAY:1978-12-29", "X-ANNIVERSARY:2001-02-03", "END:VCARD",
            ],
            name: "Michael Brüning",
            birthday: date(1978, 12, 29),
            anniversary: date(2001, 2, 3)
        ),
        VersionCase(
            label: "3.0",
            lines: ["BEGIN:VCARD", "VERSION:3.0", "FN:Ada Lovelace", "N:Lovelace;Ada;;;", "BDAY;VALUE=date:1815-12-10", "END:VCARD"],
            name: "Ada Lovelace",
            birthday: date(1815, 12, 10)
        ),
        VersionCase(
            label: "3.0 Apple",
            lines: [
                "BEGIN:VCARD", "VERSION:3.0", "FN:Grace Hopper", "BDAY;X-APPLE-OMIT-YEAR=1604:1604-12-09",
                "item1.X-ABDATE:1930-06-15", "item1.X-ABLabel:_$!<Anniversary>!$_", "END:VCARD",
            ],
            name: "Grace Hopper",
            birthday: date(nil, 12, 9),
            anniversary: date(1930, 6, 15)
        ),
        VersionCase(
            label: "4.0",
            lines: ["BEGIN:VCARD", "VERSION:4.0", "FN:Simon Perreault", "BDAY:--0203", "ANNIVERSARY:20090808T1430-0500", "END:VCARD"],
            name: "Simon Perreault",
            birthday: date(nil, 2, 3),
            anniversary: date(2009, 8, 8)
        ),
    ]

    @Test(arguments: versions)
    func readsEachVersion(_ example: VersionCase) throws {
        let result = Self.parse(example.lines)
        let contact = try Self.only(result)
        #expect(contact.displayName == example.name)
        #expect(contact.birthday == example.birthday)
        #expect(contact.anniversary == example.anniversary)
        #expect(result.problems.isEmpty)
    }

    // MARK: - Lines and folding

    @Test(arguments: ["\n", "\r\n", "\r"])
    func readsEveryLineEnding(eol: String) throws {
        let result = Self.parse(["junk before", "BEGIN:VCARD", "FN:Ada", "BDAY:1815-12-10", "BDAY:1815-12-11", "END:VCARD"], eol: eol)
        let contact = try Self.only(result)
        #expect(contact.source.line == 2)
        #expect(contact.birthday == Self.date(1815, 12, 10))
        #expect(result.problems == [ImportProblem(file: "test.vcf", line: 5, message: "several BDAY values; using the first (line 4)")])
    }

    struct FoldCase: CustomTestStringConvertible, Sendable {
        var label: String
        var lines: [String]
        var testDescription: String { label }
    }

    static let folds: [FoldCase] = [
        FoldCase(label: "space", lines: ["FN:Ada Love", " lace", "BDAY:1815-12", " -10"]),
        FoldCase(label: "tab", lines: ["FN:Ada Love", "\tlace", "BDAY:1815-12", "\t-10"]),
        FoldCase(label: "lost leading space", lines: ["FN:Ada Love", "lace", "BDAY:1815-12", "-10"]),
        FoldCase(label: "several folds", lines: ["FN:Ada", "  Lov", " elace", "BDAY", " :18151210"]),
        FoldCase(label: "parameters folded", lines: ["FN;LANGUAGE=en;", "\tTYPE=x:Ada Lovelace", "BDAY;VALUE=", " date:18151210"]),
    ]

    @Test(arguments: folds)
    func unfolds(_ example: FoldCase) throws {
        let contact = try Self.only(Self.parse(Self.card(example.lines)))
        #expect(contact.formattedName == "Ada Lovelace")
        #expect(contact.birthday == Self.date(1815, 12, 10))
    }

    @Test func unfoldsBeforeDecodingUTF8() throws {
        // "Zoë" with its two-byte "ë" (C3 AB) split by the fold.
        var bytes = Array("BEGIN:VCARD\r\nFN:Zo".utf8) + [0xC3] + Array("\r\n ".utf8) + [0xAB]
        bytes += Array(" Ågren\r\nEND:VCARD\r\n".utf8)
        #expect(try Self.only(Self.parse(bytes: bytes)).formattedName == "Zoë Ågren")
    }

    @Test func ignoresCommentsBlankLinesAndJunk() throws {
        let result = Self.parse([
            "garbage: before", "", "BEGIN:VCARD", "", "# a comment", "FN:Ada", "", "BDAY:18151210", "END:VCARD", "trailing junk",
        ])
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Ada")
        #expect(contact.birthday == Self.date(1815, 12, 10))
        #expect(contact.source.line == 3)
    }

    @Test func aLineWithoutColonThatNamesAPropertyIsAProperty() throws {
        // Evolution writes a bare "FN"; "834;;;;" after ADR is a fold that lost its space.
        let contact = try Self.only(Self.parse(Self.card(["FN", "ADR:;;1 Main St 06", "834;;;;", "N:Doe;Jane", "BDAY:19700101"])))
        #expect(contact.displayName == "Jane Doe")
        #expect(contact.birthday == Self.date(1970, 1, 1))
    }

    // MARK: - Quoted-printable and charsets

    @Test func quotedPrintableSoftBreaks() throws {
        let result = Self.parse([
            "BEGIN:VCARD", "VERSION:2.1",
            "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=", "Br=C3=BCning;=", "Michael",  // begins with a soft break
            "FN;CHARSET=UTF-8;QUOTED-PRINTABLE:Michael Br=C3=", "=BCning",  // bare parameter, break inside a sequence
            "NOTE;ENCODING=QUOTED-PRINTABLE:sharp ->=", "#<- not a comment=", "", "BDAY:19781229", "END:VCARD",
        ])
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Michael Brüning")
        #expect(contact.nameParts.family == "Brüning")
        #expect(contact.nameParts.given == "Michael")
        #expect(contact.birthday == Self.date(1978, 12, 29))
    }

    @Test func aTrailingEqualsSignOutsideQuotedPrintableIsText() throws {
        let contact = try Self.only(Self.parse(Self.card(["NOTE:parserbug=", "FN:Ada=", "BDAY:18151210"])))
        #expect(contact.formattedName == "Ada=")
        #expect(contact.birthday == Self.date(1815, 12, 10))
    }

    @Test func aSoftBreakNeverSwallowsEndOfCard() throws {
        let result = Self.parse(["BEGIN:VCARD", "FN;ENCODING=QUOTED-PRINTABLE:Ada=", "END:VCARD", "BEGIN:VCARD", "FN:Grace", "END:VCARD"])
        #expect(result.contacts.map(\.formattedName) == ["Ada", "Grace"])
        #expect(result.problems.isEmpty)
    }

    struct CharsetCase: CustomTestStringConvertible, Sendable {
        var label: String
        var parameters: String
        var value: [UInt8]
        var expected: String
        var testDescription: String { label }
    }

    static let charsets: [CharsetCase] = [
        CharsetCase(label: "UTF-8", parameters: ";CHARSET=UTF-8", value: Array("Renée".utf8), expected: "Renée"),
        CharsetCase(label: "ISO-8859-1", parameters: ";CHARSET=ISO-8859-1", value: [0x52, 0x65, 0x6E, 0xE9, 0x65], expected: "Renée"),
        CharsetCase(label: "Windows-1252", parameters: ";CHARSET=windows-1252", value: [0x80, 0x20, 0x93, 0x41, 0x94], expected: "€ “A”"),
        CharsetCase(label: "Shift_JIS", parameters: ";CHARSET=SHIFT_JIS", value: [0x88, 0xC0, 0x93, 0xA1], expected: "安藤"),
        CharsetCase(
            label: "Shift_JIS quoted-printable",
            parameters: ";CHARSET=Shift_JIS;ENCODING=QUOTED-PRINTABLE",
            value: Array("=88=C0=93=A1".utf8),
            expected: "安藤"
        ),
        CharsetCase(label: "UTF-8 declared, Latin-1 bytes", parameters: ";CHARSET=UTF-8", value: [0x52, 0x65, 0x6E, 0xE9, 0x65], expected: "Renée"),
        CharsetCase(label: "no charset, UTF-8", parameters: "", value: Array("Zoë".utf8), expected: "Zoë"),
        CharsetCase(label: "no charset, 8-bit", parameters: "", value: [0x5A, 0x6F, 0xEB], expected: "Zoë"),
        CharsetCase(label: "unknown charset", parameters: ";CHARSET=invalid-encoding", value: [0x5A, 0x6F, 0xEB], expected: "Zoë"),
        CharsetCase(label: "Shift_JIS declared, invalid bytes", parameters: ";CHARSET=Shift_JIS", value: [0x5A, 0x6F, 0xEB], expected: "Zoë"),
    ]

    @Test(arguments: charsets)
    func decodesCharsets(_ example: CharsetCase) throws {
        let bytes = Array("BEGIN:VCARD\r\nVERSION:2.1\r\nFN\(example.parameters):".utf8) + example.value + Array("\r\nEND:VCARD\r\n".utf8)
        #expect(try Self.only(Self.parse(bytes: bytes)).formattedName == example.expected)
    }

    static let fileEncodings: [(label: String, bom: [UInt8], bigEndian: Bool?)] = [
        ("UTF-8", [], nil), ("UTF-8 BOM", [0xEF, 0xBB, 0xBF], nil),
        ("UTF-16LE BOM", [0xFF, 0xFE], false), ("UTF-16BE BOM", [0xFE, 0xFF], true),
        ("UTF-16LE", [], false), ("UTF-16BE", [], true),
    ]

    @Test(arguments: fileEncodings)
    func detectsFileEncoding(label: String, bom: [UInt8], bigEndian: Bool?) throws {
        let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Zoë 美咲 😀\r\nBDAY:1990-02-30\r\nBDAY:--0229\r\nEND:VCARD\r\n"
        var bytes = bom
        if let bigEndian {
            for unit in text.utf16 {
                bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            }
        } else {
            bytes += Array(text.utf8)
        }
        let result = Self.parse(bytes: bytes)
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Zoë 美咲 😀", "\(label)")
        #expect(contact.birthday == Self.date(nil, 2, 29))
        #expect(result.problems.map(\.line) == [4])
    }

    // MARK: - Names, parameters, escapes

    @Test func namesParametersAndGroupsIgnoreCase() throws {
        let result = Self.parse([
            "home.begin:vcard   ", "version:3.0", "fn:Meister Berger", "ITEM1.x-abdate;VALUE=DATE:2001-01-01", "item1.X-ABLABEL:anniversary",
            "TEL;TYPE=\"HOME,PREF\";X-NOTE=\"a:b;c\":555", "bDaY;value=date:1963-09-21", "END:VCARD",
        ])
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Meister Berger")
        #expect(contact.birthday == Self.date(1963, 9, 21))
        #expect(contact.anniversary == Self.date(2001, 1, 1))
    }

    @Test func unescapesText() throws {
        let contact = try Self.only(
            Self.parse(
                Self.card([
                    #"FN:Public\, John\; Esq.\nJr.\\ C:\temp"#, #"N:Stevenson;John;Philip,Paul;Dr.;Jr.,M.D.,A.C.P."#,
                    #"ORG:ABC\, Inc.;North American Division"#, "EMAIL;TYPE=internet: first@example.org ", "EMAIL:second@example.org",
                    "UID:urn:uuid:0F8C8E1C",
                ])
            )
        )
        #expect(contact.formattedName == "Public, John; Esq.\nJr.\\ C:\\temp")
        #expect(
            contact.nameParts == NameParts(prefix: "Dr.", given: "John", additional: "Philip Paul", family: "Stevenson", suffix: "Jr. M.D. A.C.P.")
        )
        #expect(contact.organization == "ABC, Inc.")
        #expect(contact.email == "first@example.org")
        #expect(contact.uid == "urn:uuid:0F8C8E1C")
    }

    @Test func displayNameFallsBackFromFNToNToORGToEMAIL() throws {
        let result = Self.parse(
            Self.card(["FN:", "N:Doe;Jane;;;"]) + Self.card(["ORG:Initech;IT"]) + Self.card(["EMAIL:a@example.org"]) + Self.card(["NOTE:x"])
        )
        #expect(result.contacts.map(\.displayName) == ["Jane Doe", "Initech", "a@example.org", ""])
    }

    @Test func androidUIDStandsInForAMissingUID() throws {
        let result = Self.parse(Self.card(["X-ANDROID-UID:abc"]) + Self.card(["UID:u1", "X-ANDROID-UID:abc"]))
        #expect(result.contacts.map(\.uid) == ["abc", "u1"])
    }

    // MARK: - Components

    @Test func agentCardsAreNotContacts() throws {
        let result = Self.parse([
            "BEGIN:VCARD", "VERSION:2.1", "FN:Outer", "AGENT:BEGIN:VCARD", "FN:Inner", "BDAY:19990101", "END:VCARD", "BDAY:19800322", "END:VCARD",
            "BEGIN:VCARD", "VERSION:3.0", "FN:Escaped", #"AGENT:BEGIN:VCARD\nFN:Susan\nEND:VCARD\n"#, "BDAY:19800323", "END:VCARD",
            "BEGIN:VCARD", "VERSION:2.1", "FN:Next line", "AGENT:", "BEGIN:VCARD", "FN:Inner", "END:VCARD", "BDAY:19800324", "END:VCARD",
            "BEGIN:VCARD", "FN:Not an agent", "AGENT:Invalid line which must be handled correctly.", "BDAY:19800325", "END:VCARD",
        ])
        #expect(result.contacts.map(\.displayName) == ["Outer", "Escaped", "Next line", "Not an agent"])
        #expect(result.contacts.map(\.birthday) == [Self.date(1980, 3, 22), Self.date(1980, 3, 23), Self.date(1980, 3, 24), Self.date(1980, 3, 25)])
        #expect(result.contacts.map(\.source.index) == [0, 1, 2, 3])
        #expect(result.problems.isEmpty)
    }

    @Test func otherComponentsAreSkippedAndEmptyCardsCount() throws {
        let result = try Self.fixture("v4-altid")
        #expect(result.contacts.map(\.displayName) == ["Alan Turing", "Hedy Lamarr", ""])
        #expect(result.contacts.map(\.source.index) == [0, 1, 2])
        #expect(result.contacts.map(\.source.line) == [1, 17, 22])
        let turing = result.contacts[0]
        #expect(turing.birthday == Self.date(1912, 6, 23))
        #expect(turing.anniversary == Self.date(nil, 7, 1))
        #expect(turing.invalidDates.isEmpty)
        #expect(turing.uid == "urn:uuid:0f8c8e1c-3c1d-4c3b-9a8f-6a1f1d2e3c4b")
        #expect(result.contacts[1].birthday == nil)
        #expect(result.contacts[1].invalidDates == ["circa 1914"])
        #expect(result.problems == [ImportProblem(file: "v4-altid.vcf", line: 20, message: "BDAY 'circa 1914' is not a date")])
    }

    @Test func aTruncatedCardKeepsWhatWasRead() throws {
        let result = Self.parse(["BEGIN:VCARD", "FN:Ada", "BDAY:18151210", "BEGIN:VCARD", "FN:Grace", "BDAY:19061209"])
        #expect(result.contacts.map(\.formattedName) == ["Ada", "Grace"])
        #expect(result.contacts.map(\.birthday) == [Self.date(1815, 12, 10), Self.date(1906, 12, 9)])
        #expect(
            result.problems == [
                ImportProblem(file: "test.vcf", line: 1, message: "card starting at line 1 has no END:VCARD"),
                ImportProblem(file: "test.vcf", line: 4, message: "card starting at line 4 has no END:VCARD"),
            ]
        )
    }

    // MARK: - Birthdays

    struct DateCase: CustomTestStringConvertible, Sendable {
        var value: String
        var expected: EventDate?
        var testDescription: String { value }
    }

    static let dateForms: [DateCase] = [
        DateCase(value: "BDAY:1985-01-28", expected: date(1985, 1, 28)),
        DateCase(value: "BDAY:19850128", expected: date(1985, 1, 28)),
        DateCase(value: "BDAY:--0128", expected: date(nil, 1, 28)),
        DateCase(value: "BDAY:--01-28", expected: date(nil, 1, 28)),
        DateCase(value: "BDAY: --12-25", expected: date(nil, 12, 25)),
        DateCase(value: "BDAY:1604-02-02", expected: date(nil, 2, 2)),
        DateCase(value: "BDAY:16040101", expected: date(nil, 1, 1)),
        DateCase(value: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-03-04", expected: date(nil, 3, 4)),
        DateCase(value: "BDAY;X-APPLE-OMIT-YEAR=1990:1990-03-04", expected: date(nil, 3, 4)),
        DateCase(value: "BDAY;X-APPLE-OMIT-YEAR=1604:1990-03-04", expected: date(1990, 3, 4)),
        DateCase(value: "BDAY:--0229", expected: date(nil, 2, 29)),
        // Date-times keep the written calendar date in every zone.
        DateCase(value: "BDAY:19531015T231000Z", expected: date(1953, 10, 15)),
        DateCase(value: "BDAY:1955-07-19T00:00:00Z", expected: date(1955, 7, 19)),
        DateCase(value: "BDAY:1996-04-15T201243+04:00", expected: date(1996, 4, 15)),
        DateCase(value: "BDAY:20090808T1430-0500", expected: date(2009, 8, 8)),
        DateCase(value: "BDAY:20190210T000033", expected: date(2019, 2, 10)),
    ]

    @Test(arguments: dateForms)
    func readsDateForms(_ example: DateCase) throws {
        let contact = try Self.only(Self.parse(Self.card([example.value])))
        #expect(contact.birthday == example.expected)
        #expect(contact.invalidDates.isEmpty)
    }

    static let invalidDates: [(line: String, text: String)] = [
        ("BDAY;VALUE=text:circa 1800", "circa 1800"), ("BDAY:206-12-15", "206-12-15"), ("BDAY:1990-02-30", "1990-02-30"),
        ("BDAY:70-7-14", "70-7-14"),
    ]

    @Test(arguments: invalidDates)
    func unreadableBirthdaysAreReported(line: String, text: String) throws {
        let result = Self.parse(Self.card(["FN:Secret Name", line]))
        let contact = try Self.only(result)
        #expect(contact.birthday == nil)
        #expect(contact.invalidDates == [text])
        #expect(result.problems == [ImportProblem(file: "test.vcf", line: 4, message: "BDAY '\(text)' is not a date")])
        #expect(!result.problems[0].message.contains("Secret"))
    }

    @Test func severalBirthdays() throws {
        let result = Self.parse(
            Self.card(["BDAY:1970-07-14", "BDAY:70-7-14", "BDAY:1970-07-14T03:45:12", "BDAY:1970-07-15"])  // lines 3-6
                + Self.card(["BDAY:circa 1800", "BDAY:19800101"])  // lines 10-11
                + Self.card(["BDAY;ALTID=1;VALUE=text:first of August", "BDAY;ALTID=1:20160801"])  // lines 15-16
                + Self.card(["BDAY:", "BDAY:20160801"])
        )
        #expect(result.contacts.map(\.birthday) == [Self.date(1970, 7, 14), Self.date(1980, 1, 1), Self.date(2016, 8, 1), Self.date(2016, 8, 1)])
        #expect(result.contacts.allSatisfy { $0.invalidDates.isEmpty })
        #expect(
            result.problems.map(\.description) == [
                "test.vcf:4: several BDAY values; using the first (line 3)",
                "test.vcf:6: several BDAY values; using the first (line 3)",
                "test.vcf:10: several BDAY values; using the first (line 11)",
            ]
        )
    }

    // MARK: - Anniversaries

    static let anniversaryProperties = [
        "ANNIVERSARY", "X-ANNIVERSARY", "X-EVOLUTION-ANNIVERSARY", "X-MS-ANNIVERSARY", "X-KADDRESSBOOK-X-Anniversary",
        "x-kaddressbook-x-anniversary", "X-OUTLOOK-WEDDING-ANNIVERSARY", "item7.X-ANNIVERSARY",
        "X-FCENCODED-582D46432D4F7468657244617465733A416E6E6976657273617279",
    ]

    @Test(arguments: anniversaryProperties)
    func readsAnniversaryProperties(name: String) throws {
        let contact = try Self.only(Self.parse(Self.card(["\(name):2013-08-16"])))
        #expect(contact.anniversary == Self.date(2013, 8, 16))
        #expect(contact.birthday == nil)
    }

    @Test(arguments: ["X-ABDATE", "X-FCENCODED-582D46432D4F7468657244617465733A4F74686572", "DEATHDATE"])
    func otherDatesAreNotAnniversaries(name: String) throws {
        let contact = try Self.only(Self.parse(Self.card(["\(name):2013-08-16"])))
        #expect(contact.anniversary == nil && contact.birthday == nil && contact.invalidDates.isEmpty)
        // An X-ABDATE without a label is kept as a date labelled "Other" (LabelledDateTests).
        #expect(contact.labelledDates.count == (name == "X-ABDATE" ? 1 : 0))
    }

    @Test func appleLabelledDates() throws {
        let result = try Self.fixture("apple-ios")
        #expect(result.contacts.count == 2)
        let ada = result.contacts[0]
        #expect(ada.displayName == "Ada Lovelace")
        #expect(ada.organization == "Analytical Engines; Ltd.")
        #expect(ada.birthday == Self.date(nil, 12, 10))
        #expect(ada.anniversary == Self.date(1835, 7, 8))  // label before the date; item3 is "Other"
        #expect(ada.labelledDates == [LabelledDate(label: "Other", date: try #require(Self.date(1852, 11, 27)))])
        #expect(ada.uid == "6B29FC40-CA47-1067-B31D-00DD010662DA")
        let grace = result.contacts[1]
        #expect(grace.displayName == "Rear Admiral Grace Brewster Murray Hopper")
        #expect(grace.anniversary == Self.date(1930, 6, 15))  // upper-case group and plain "Anniversary"
        #expect(grace.source == ContactSource(file: "apple-ios.vcf", index: 1, line: 19))
        #expect(result.problems.isEmpty)
    }

    @Test func ungroupedOrUnlabelledDatesAreNotAnniversaries() throws {
        let contact = try Self.only(
            Self.parse(
                Self.card([
                    "X-ABDATE:1776-07-04", "X-ABLabel:_$!<Anniversary>!$_", "item2.X-ABDATE:2000-01-01", "item3.X-ABLabel:_$!<Anniversary>!$_",
                    "item4.X-ABDATE:2014-12-31", "item4.X-ABLabel:Died",
                ])
            )
        )
        #expect(contact.anniversary == nil)
    }

    @Test func androidCustomEvents() throws {
        let result = try Self.fixture("android-21")
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Jürgen Müller")
        #expect(contact.nameParts.family == "Müller")
        #expect(contact.birthday == Self.date(1975, 8, 20))
        #expect(contact.anniversary == Self.date(2001, 5, 19))  // type 1; types 2 and 0 (QP) are other dates
        #expect(
            contact.labelledDates == [
                LabelledDate(label: "Fête", date: try #require(Self.date(2003, 7, 21))),
                LabelledDate(label: "Other", date: try #require(Self.date(2002, 6, 20))),
            ]
        )
        #expect(result.problems.isEmpty)
    }

    @Test func quotedPrintableAndroidAnniversary() throws {
        let contact = try Self.only(
            Self.parse(
                Self.card(
                    [
                        "X-ANDROID-CUSTOM;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:vnd.android.cursor.item/contact_event;=32=30=31=35=2D=30=33=2D=30=34;=31;;;"
                    ],
                    version: "2.1"
                )
            )
        )
        #expect(contact.anniversary == Self.date(2015, 3, 4))
    }

    @Test func severalAnniversaries() throws {
        let result = Self.parse(
            Self.card([
                "ANNIVERSARY:2013-08-16", "X-OUTLOOK-WEDDING-ANNIVERSARY:2013-08-16", "item1.X-ABDATE:20130816", "item1.X-ABLabel:Anniversary",
            ])
                + Self.card(["X-ANNIVERSARY:2001-01-01", "X-EVOLUTION-ANNIVERSARY:2002-02-02"])  // lines 10-11
                + Self.card(["X-ANNIVERSARY:x-anniversary", "X-MS-ANNIVERSARY:x-anniversary"])
        )  // lines 15-16
        #expect(result.contacts.map(\.anniversary) == [Self.date(2013, 8, 16), Self.date(2001, 1, 1), nil])
        #expect(result.contacts[2].invalidDates == ["x-anniversary"])
        #expect(
            result.problems.map(\.description) == [
                "test.vcf:11: several anniversary values; using the first (line 10)",
                "test.vcf:15: X-ANNIVERSARY 'x-anniversary' is not a date",
                "test.vcf:16: X-MS-ANNIVERSARY 'x-anniversary' is not a date",
            ]
        )
    }

    // MARK: - Fixtures from old exports

    @Test func outlookWindows1252WithAgent() throws {
        let result = try Self.fixture("outlook-21-cp1252")
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Renée Groß €")
        #expect(contact.nameParts.family == "Groß")
        #expect(contact.birthday == Self.date(1980, 3, 22))
        #expect(contact.anniversary == Self.date(2011, 1, 13))
        #expect(contact.email == "renee@example.org")
        #expect(result.problems.isEmpty)
    }

    // MARK: - Robustness

    @Test func survivesGarbage() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes: [UInt8] = []
        for _ in 0..<200_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        _ = Self.parse(bytes: bytes)
        // Garbage inside cards, with line structure and every special byte.
        let specials: [UInt8] = Array("\r\n:;=\\\".,# \tBEGIN:VCARDEND:VCARDAGENT:BDAY:QUOTED-PRINTABLE".utf8) + [0x00, 0xC3, 0xFF, 0xFE]
        var structured: [UInt8] = []
        for k in 0..<100_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            structured.append(specials[Int(state >> 33) % specials.count])
            if k % 5_000 == 0 { structured += Array("\r\nBEGIN:VCARD\r\nN;ENCODING=QUOTED-PRINTABLE:=\r\n".utf8) }
        }
        let result = Self.parse(bytes: structured)
        #expect(result.contacts.allSatisfy { $0.source.index >= 0 })
        _ = Self.parse(bytes: [])
        _ = Self.parse(bytes: [0xFF, 0xFE])
        _ = Self.parse(bytes: [0xFE, 0xFF, 0x00])
        _ = Self.parse(bytes: Array("BEGIN:VCARD".utf8))
    }

    @Test func invalidUTF8FallsBackToWindows1252() throws {
        let bytes = Array("BEGIN:VCARD\nFN:".utf8) + [0xC3, 0x28, 0xA0, 0xE2, 0x82] + Array("\nBDAY:".utf8) + [0xFF] + Array("\nEND:VCARD\n".utf8)
        let result = Self.parse(bytes: bytes)
        let contact = try Self.only(result)
        #expect(contact.formattedName == "Ã(\u{00A0}â‚")
        #expect(contact.invalidDates == ["ÿ"])
    }

    @Test(arguments: ["NOTE:", "FN:", "BDAY:", "PHOTO;ENCODING=b:", "", "X-ABLabel:", "N;ENCODING=QUOTED-PRINTABLE:"])
    func survivesATenMegabyteLine(prefix: String) throws {
        // Without a prefix the line has no ":" and continues VERSION; after a
        // quoted-printable prefix the final "=" makes NOTE part of the value.
        var bytes = Array("BEGIN:VCARD\r\nVERSION:3.0\r\n\(prefix)".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "A"), count: 10 << 20)
        bytes += Array("=\r\nNOTE:x\r\nUID:u\r\nEND:VCARD\r\n".utf8)
        let result = Self.parse(bytes: bytes)
        let contact = try Self.only(result)
        #expect(contact.uid?.count == 1)
        #expect(contact.invalidDates.allSatisfy { $0.count <= 101 })
        #expect(result.problems.allSatisfy { $0.message.count < 200 })
    }

    /// A file big enough to be read in two halves gives exactly what one pass gives,
    /// also when the half-way card boundary is inside an AGENT card or a truncated card.
    @Test(arguments: ["plain", "agent", "truncated", "vlist"])
    func concurrentReadingMatchesOnePass(variant: String) throws {
        var lines: [String] = []
        for k in 0..<80_000 {
            lines += ["BEGIN:VCARD", "VERSION:3.0", "FN:Person \(k)", "BDAY:19\(10 + k % 90)-0\(1 + k % 9)-1\(k % 10)"]
            if k % 7 == 0 { lines += ["BDAY:20000101", "X-ANNIVERSARY:nope"] }
            switch variant {
            case "agent" where k % 2 == 1: lines += ["AGENT:", ""]  // the next card's BEGIN is embedded
            case "truncated" where k % 2 == 1: continue  // no END:VCARD
            case "vlist" where k % 2 == 1: lines += ["END:VCARD", "BEGIN:VLIST"]
            default: break
            }
            lines.append(k % 2 == 1 && variant == "vlist" ? "END:VLIST" : "END:VCARD")
        }
        let data = Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
        #expect(data.count > VCardParser.concurrencyThreshold)
        let result = VCardParser.parse(data, file: "big.vcf")
        let onePass = data.withUnsafeBytes { raw -> ParseResult in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress else { return ParseResult() }
            var scanner = VCardScanner(bytes: base, start: 0, end: bytes.count, file: "big.vcf")
            _ = scanner.run()
            return ParseResult(contacts: scanner.contacts, problems: scanner.problems)
        }
        #expect(result.contacts.count == onePass.contacts.count)
        #expect(result.contacts == onePass.contacts)
        #expect(result.problems == onePass.problems)
        #expect(!result.problems.isEmpty)
    }
}
