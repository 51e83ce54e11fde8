import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Contact text never reaches a terminal, a header or a report raw.
@Suite struct HostileTextTests {
    // MARK: SafeText

    @Test(arguments: [
        ("Ada\nLovelace", "Ada Lovelace"),
        ("Ada\r\nSubject: spam", "Ada Subject: spam"),
        ("\u{1B}[2J\u{1B}]0;pwned\u{07}Ada", "[2J ]0;pwned Ada"),
        ("  Ada \t Lovelace  ", "Ada Lovelace"),
        ("Ada\u{2028}Lovelace\u{0085}", "Ada Lovelace"),
        ("\u{202E}ecalevoL adA", "ecalevoL adA"),
        ("Zoë Ünal 李", "Zoë Ünal 李"),
        ("", ""),
    ])
    func aLineHasNoControlCharacters(input: String, expected: String) {
        let line = SafeText.line(input)
        #expect(line == expected)
        #expect(!line.unicodeScalars.contains(where: SafeText.isUnsafe))
    }

    /// The byte scan that lets plain names through at once says "plain"
    /// only where the scalar-by-scalar rule keeps the text as it is.
    @Test(arguments: [
        ("Ada Lovelace", true),
        ("Zoë Ünal 李", true),
        ("Ada\u{00A0}Lovelace", true),
        ("Ada  Lovelace", false),
        (" Ada", false),
        ("Ada ", false),
        ("Ada\u{0085}", false),
        ("Ada\u{009F}x", false),
        ("Ada\u{2028}x", false),
        ("\u{202A}Ada", false),
        ("Ada\u{2069}", false),
        ("Ada\u{2027}\u{202F}\u{2065}\u{206A}", true),
        ("Ada \u{0301}Lovelace", true),
        ("", false),
    ])
    func plainLinesAreKeptAsTheyAre(input: String, plain: Bool) {
        #expect(SafeText.isPlainLine(input) == plain)
        #expect(SafeText.isPlainLine(input.dropFirst(0)) == plain)
        if plain { #expect(SafeText.line(input) == input) }
    }

    /// A space with a combining mark is one character: two of them are not two spaces.
    @Test func spacesCarryingMarksAreCharactersOfTheirOwn() {
        #expect(SafeText.line("Ada \u{0301} \u{0301}Lovelace") == "Ada \u{0301} \u{0301}Lovelace")
        #expect(SafeText.line(" \u{0301}Ada") == " \u{0301}Ada")
    }

    @Test func aLongLineIsCutWithAnEllipsis() {
        let cut = SafeText.line(String(repeating: "a", count: 300), maxCharacters: 200)
        #expect(cut.count == 200)
        #expect(cut.hasSuffix("…"))
        #expect(SafeText.line("short", maxCharacters: 200) == "short")
    }

    @Test func quotedTextKeepsControlsVisible() {
        #expect(SafeText.quoted("a\nb") == "a\\nb")
        #expect(SafeText.quoted("\u{1B}[31mred") == "\\x1B[31mred")
        #expect(SafeText.quoted("\u{0085}\u{202E}") == "\\u0085\\u202E")
        #expect(SafeText.quoted("plain 'text'") == "plain 'text'")
    }

    // MARK: Where contact text goes

    /// A name with a line break cannot add a header to an e-mail or an HTTP
    /// request built from the title, nor a line to a terminal.
    @Test(arguments: [NotificationRequest.Timing(daysBefore: 14), NotificationRequest.Timing(daysBefore: 3), .dayBefore, .dayOf])
    func notificationTextIsOneLine(timing: NotificationRequest.Timing) {
        for kind in EventKind.allCases {
            for memorial in [false, true] {
                let (title, body) = NotificationContent.make(
                    name: "Ada\r\nBcc: victim@example.org\u{1B}[31m",
                    kind: kind,
                    timing: timing,
                    age: 36,
                    memorial: memorial
                )
                for text in [title, body] {
                    #expect(!text.unicodeScalars.contains(where: SafeText.isUnsafe), "\(text.debugDescription)")
                    #expect(!text.contains("\n"))
                }
            }
        }
        let (title, _) = NotificationContent.make(name: "Ada\nLovelace", kind: .birthday, timing: .dayOf, age: nil)
        #expect(title == "Ada Lovelace's Birthday!")
    }

    @Test func aVeryLongNameIsCutInNotifications() {
        let name = String(repeating: "x", count: 128 * 1024)
        let (title, body) = NotificationContent.make(name: name, kind: .birthday, timing: .dayOf, age: 30)
        #expect(title.count <= NotificationContent.maxNameCharacters + "'s Birthday!".count)
        #expect(body.count <= NotificationContent.maxNameCharacters + " turns 30 today!".count)
    }

    /// A value quoted in a problem cannot forge a `file:line:` line or send
    /// escapes; neither can a file name.
    @Test func problemsAreOneLineWithTheirControlsVisible() {
        let problem = ImportProblem(file: "evil\n.vcf", line: 3, message: "BDAY 'x\ncontacts.vcf:1: all good\u{1B}[2J' is not a date")
        #expect(problem.description == "evil\\n.vcf:3: BDAY 'x\\ncontacts.vcf:1: all good\\x1B[2J' is not a date")
        #expect(!problem.description.contains("\n"))
    }

    @Test func aForgedLineInABirthdayStaysInsideItsProblem() {
        let vcard = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nBDAY;ENCODING=QUOTED-PRINTABLE:x=0Acontacts.vcf:1: ok=1B[2J\r\nEND:VCARD\r\n"
        let result = ContactReader.parse(Data(vcard.utf8), file: "c.vcf", referenceYear: 2026)
        #expect(result.problems.count == 1)
        for problem in result.problems {
            #expect(!problem.description.contains("\n"))
            #expect(!problem.description.unicodeScalars.contains(where: SafeText.isUnsafe))
        }
    }

    // MARK: Public ids

    /// SipHash-2-4 against the reference vectors (key 00…0f, message 00 01 02 …).
    @Test(arguments: [(0, UInt64(0x726f_db47_dd0e_0e31)), (1, 0x74f8_39c5_93dc_67fd), (15, 0xa129_ca61_49be_45e5)])
    func sipHashMatchesTheReference(length: Int, expected: UInt64) throws {
        let ids = try #require(PublicID(key: Array(0..<16)))
        let message = String(decoding: (0..<length).map { UInt8($0) }, as: UTF8.self)
        // hex() hashes UTF-8; the bytes 00…0e are all ASCII, so they pass unchanged.
        #expect(ids.person(message) == "p-" + String(expected, radix: 16).leftPadded(to: 16))
    }

    @Test func publicIDsDependOnTheKeyAndRevealNothingOfTheID() throws {
        let one = PublicID.generate().ids
        let two = PublicID.generate().ids
        let id = "ada-birthday-dayof"
        #expect(one.reminder(id) == one.reminder(id), "stable for one database")
        #expect(one.reminder(id) != two.reminder(id), "another database, another id")
        // Nothing of the stored id: "ada" itself could appear among the hex digits by chance; "birthday" cannot.
        #expect(!one.reminder(id).contains("birthday") && !one.reminder(id).contains("dayof"))
        #expect(PublicID.looksPublic(one.reminder(id)))
        #expect(one.reminder(id + "-snooze") == one.reminder(id) + "-snooze")
        #expect(PublicID.looksPublic(one.reminder(id + "-snooze")))
        #expect(PublicID.looksPublic(one.person("ada")))
        #expect(!PublicID.looksPublic(id))
        let key = (0..<16).map { String(format: "%02x", $0 * 7) }.joined()
        #expect(PublicID(hexKey: key)?.person("x") == PublicID(key: (0..<16).map { UInt8($0 * 7) })?.person("x"))
        #expect(PublicID(hexKey: "not hex") == nil)
    }

    // MARK: Years

    @Test(arguments: [("3000-03-10", true), ("3001-03-10", false), ("9999-12-31", false), ("1000-01-01", true)])
    func yearsAnICalendarFeedCannotCarryAreNotDates(value: String, valid: Bool) {
        switch DateValue.vCard(value) {
        case .date(let date): #expect(valid, "\(value) was read as \(date)")
        case .invalid(let text): #expect(!valid && text == value)
        case .none: Issue.record("\(value) read as no date")
        }
        let csv = "Name,Birthday\nAda,\(value)\n"
        let result = ContactReader.parse(Data(csv.utf8), file: "c.csv", referenceYear: 2026)
        #expect((result.contacts.first?.birthday != nil) == valid)
        #expect(result.problems.isEmpty == valid)
    }

    // MARK: CSV without a header row

    @Test func aCSVWithoutAHeaderRowQuotesNothingFromItsFirstRow() throws {
        let csv = "Ada Lovelace,1815-12-10,ada@example.org\nAlan Turing,1912-06-23,alan@example.org\n"
        let result = ContactReader.parse(Data(csv.utf8), file: "c.csv", referenceYear: 2026)
        #expect(result.contacts.isEmpty)
        #expect(result.problems.count == 1)
        let problem = try #require(result.problems.first)
        for leak in ["Ada", "Lovelace", "1815", "ada@example.org"] {
            #expect(!problem.message.contains(leak), "\(problem.message)")
        }
        #expect(problem.message.contains("header row"))
        // A real header without date columns is still quoted: its names are column names.
        let header = ContactReader.parse(Data("Name,E-mail\nAda,ada@example.org\n".utf8), file: "h.csv", referenceYear: 2026)
        #expect(header.problems.first?.message.contains("found: Name, E-mail") == true)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
