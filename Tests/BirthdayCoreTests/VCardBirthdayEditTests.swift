import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The write-back's edit of a card: `BDAY` in the card's own version, every
/// other byte kept, the card's own birthday winning, and the result read
/// back to the same date by the project's reader and by python3-vobject.
@Suite struct VCardBirthdayEditTests {
    static let withYear = EventDate(year: 1990, month: 5, day: 17)!
    static let noYear = EventDate(year: nil, month: 5, day: 17)!
    static let leapDay = EventDate(year: nil, month: 2, day: 29)!

    /// The person id an import gives the first person of `text`.
    static func firstID(_ text: String) throws -> String {
        let parsed = VCardParser.parse(Data(text.utf8), file: "card")
        var report = ImportReport()
        return try #require(ContactMerge.people(from: parsed.contacts, report: &report).first?.id)
    }

    /// Edits `text` for `personID` and expects an edit.
    static func edited(_ text: String, personID: String, _ date: EventDate) throws -> String {
        let edit = try VCardBirthdayEdit.edit(Array(text.utf8), personID: personID, birthday: date)
        guard case .edited(let bytes) = edit else { throw TestSupportError("expected an edit, got \(edit)") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The birthday the project's reader reads for `personID` in `text`.
    static func readBack(_ text: String, personID: String) -> EventDate? {
        let parsed = VCardParser.parse(Data(text.utf8), file: "card")
        var report = ImportReport()
        return ContactMerge.people(from: parsed.contacts, report: &report).first { $0.id == personID }?.birthday
    }

    // MARK: - Versions

    struct VersionCase: Sendable, CustomTestStringConvertible {
        var version: String
        var date: EventDate
        var line: String
        var testDescription: String { "\(version) \(date)" }
    }

    static let versions: [VersionCase] = [
        VersionCase(version: "4.0", date: withYear, line: "BDAY:19900517"),
        VersionCase(version: "4.0", date: noYear, line: "BDAY:--0517"),
        VersionCase(version: "4.0", date: leapDay, line: "BDAY:--0229"),
        VersionCase(version: "3.0", date: withYear, line: "BDAY:1990-05-17"),
        VersionCase(version: "3.0", date: noYear, line: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-05-17"),
        VersionCase(version: "3.0", date: leapDay, line: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-02-29"),
        VersionCase(version: "2.1", date: withYear, line: "BDAY:1990-05-17"),
        VersionCase(version: "2.1", date: noYear, line: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-05-17"),
    ]

    @Test(arguments: versions, ["\r\n", "\n"])
    func theCardsOwnVersionAndLineEndings(_ test: VersionCase, _ eol: String) throws {
        let head = ["BEGIN:VCARD", "VERSION:\(test.version)", "UID:ada", "FN:Ada Lovelace", "N:Lovelace;Ada;;;", "X-UNKNOWN;TYPE=x:kept as it is"]
        let card = (head + ["END:VCARD"]).map { $0 + eol }.joined()
        let expected = (head + [test.line, "END:VCARD"]).map { $0 + eol }.joined()
        let edited = try Self.edited(card, personID: "ada", test.date)
        #expect(edited == expected)
        #expect(Self.readBack(edited, personID: "ada") == test.date)
    }

    @Test func aCardWithoutVersionGetsTheVersion3Form() throws {
        let card = "BEGIN:VCARD\r\nUID:ada\r\nFN:Ada\r\nEND:VCARD\r\n"
        #expect(try Self.edited(card, personID: "ada", Self.withYear) == "BEGIN:VCARD\r\nUID:ada\r\nFN:Ada\r\nBDAY:1990-05-17\r\nEND:VCARD\r\n")
    }

    // MARK: - Every other byte

    @Test func foldedLinesPhotoAndOrderAreKeptByteForByte() throws {
        let photo = String(repeating: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg", count: 8)
        var folded = "PHOTO;ENCODING=b;TYPE=PNG:"
        var rest = Substring(photo)
        folded += rest.prefix(48)
        rest = rest.dropFirst(48)
        while !rest.isEmpty {
            folded += "\r\n " + rest.prefix(74)
            rest = rest.dropFirst(74)
        }
        let before = [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.0//EN", "N:Lovelace;Ada;;;",
            "FN:Ada Lovelace", "NOTE:a long note that the phone folded over two lines becau", " se it was long",
            "item1.EMAIL;type=INTERNET;type=pref:ada@example.org", "item1.X-ABLabel:_$!<Other>!$_", folded,
            "X-SOCIALPROFILE;type=twitter:x-apple:ada", "UID:9A8B7C6D-0000-4000-8000-ABCDEF012345",
        ]
        let card = (before + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
        let edited = try Self.edited(card, personID: "9A8B7C6D-0000-4000-8000-ABCDEF012345", Self.withYear)
        #expect(edited == (before + ["BDAY:1990-05-17", "END:VCARD"]).joined(separator: "\r\n") + "\r\n")
        // The photo's bytes, folding included, are where they were.
        #expect(edited.contains(folded))
        #expect(Self.readBack(edited, personID: "9A8B7C6D-0000-4000-8000-ABCDEF012345") == Self.withYear)
    }

    @Test func aByteOrderMarkAndALastLineWithoutBreakAreKept() throws {
        let card = "\u{FEFF}BEGIN:VCARD\nVERSION:4.0\nUID:ada\nFN:Ada\nEND:VCARD"
        let edited = try Self.edited(card, personID: "ada", Self.noYear)
        #expect(edited == "\u{FEFF}BEGIN:VCARD\nVERSION:4.0\nUID:ada\nFN:Ada\nBDAY:--0517\nEND:VCARD")
    }

    @Test func aCardWithoutUIDIsFoundByItsDerivedID() throws {
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"
        let id = try Self.firstID(card)
        #expect(id.hasPrefix("c-"))
        let edited = try Self.edited(card, personID: id, Self.withYear)
        #expect(Self.readBack(edited, personID: id) == Self.withYear)
    }

    // MARK: - Which card

    @Test func inAFileOfSeveralCardsOnlyThePersonsCardIsEdited() throws {
        let ann = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ann\r\nFN:Ann\r\nEND:VCARD\r\n"
        let bob = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bob\r\nFN:Bob\r\nEND:VCARD\r\n"
        let edited = try Self.edited(ann + bob, personID: "bob", Self.noYear)
        #expect(edited == ann + "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:bob\r\nFN:Bob\r\nBDAY:--0517\r\nEND:VCARD\r\n")
        #expect(Self.readBack(edited, personID: "ann") == nil)
        #expect(Self.readBack(edited, personID: "bob") == Self.noYear)
        #expect(throws: VCardEditError.personNotOnCard) {
            try VCardBirthdayEdit.edit(Array((ann + bob).utf8), personID: "cy", birthday: Self.noYear)
        }
    }

    @Test func anAgentsEmbeddedCardIsSteppedOver() throws {
        let card = """
            BEGIN:VCARD\r
            VERSION:2.1\r
            UID:ada\r
            FN:Ada\r
            AGENT:BEGIN:VCARD\r
            FN:Her Agent\r
            END:VCARD\r
            TEL:+44 20 0000 0000\r
            END:VCARD\r

            """
        let edited = try Self.edited(card, personID: "ada", Self.withYear)
        #expect(edited.hasSuffix("TEL:+44 20 0000 0000\r\nBDAY:1990-05-17\r\nEND:VCARD\r\n"))
    }

    // MARK: - The card wins

    @Test(arguments: [
        "BDAY:1985-01-02", "item1.BDAY:1985-01-02", "BDAY;VALUE=text:circa 1800", "BDAY;CALSCALE=chinese:19900517",
        "bday:--0102", "BDAY:\r\n 1985-01-02",
    ])
    func aCardWithABirthdayOfItsOwnIsLeftAlone(_ line: String) throws {
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada\r\n\(line)\r\nEND:VCARD\r\n"
        #expect(try VCardBirthdayEdit.edit(Array(card.utf8), personID: "ada", birthday: Self.withYear) == .cardHasBirthday)
    }

    @Test func anEmptyBirthdayLineIsReplaced() throws {
        let card = "BEGIN:VCARD\nVERSION:3.0\nUID:ada\nBDAY:\nFN:Ada\nEND:VCARD\n"
        #expect(try Self.edited(card, personID: "ada", Self.withYear) == "BEGIN:VCARD\nVERSION:3.0\nUID:ada\nBDAY:1990-05-17\nFN:Ada\nEND:VCARD\n")
    }

    // MARK: - Refused

    @Test func whatCannotBeEditedSafelyIsRefused() throws {
        let unclosed = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\n"
        #expect(throws: VCardEditError.notClosed) { try VCardBirthdayEdit.edit(Array(unclosed.utf8), personID: "ada", birthday: Self.withYear) }
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "BEGIN:VCARD\r\nUID:ada\r\nFN:Ada\r\nEND:VCARD\r\n".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(throws: VCardEditError.unsupportedEncoding) { try VCardBirthdayEdit.edit(utf16, personID: "ada", birthday: Self.withYear) }
        #expect(throws: VCardEditError.personNotOnCard) {
            try VCardBirthdayEdit.edit(Array("not a card".utf8), personID: "ada", birthday: Self.withYear)
        }
        // The sentences name no person.
        for error in [VCardEditError.notClosed, .unsupportedEncoding, .personNotOnCard, .readBack] {
            #expect(!error.description.contains("ada"))
        }
    }

    // MARK: - Real and hostile files

    /// Every person of the exports in Fixtures/vcard and the hostile cases of
    /// Fuzz/regressions: the edit never traps, and what it writes gives that
    /// person the date while every other person of the file reads as before.
    @Test func everyPersonOfRealAndHostileFiles() throws {
        var files: [URL] = []
        for name in ["android-21", "apple-ios", "outlook-21-cp1252", "v4-altid"] {
            files.append(try #require(Bundle.module.url(forResource: name, withExtension: "vcf", subdirectory: "Fixtures/vcard")))
        }
        let regressions = Repository.root.appendingPathComponent("Fuzz/regressions")
        for name in try FileManager.default.contentsOfDirectory(atPath: regressions.path).sorted() where name.hasSuffix(".vcf") {
            files.append(regressions.appendingPathComponent(name))
        }
        #expect(files.count >= 10)
        var edited = 0
        // Each file as it is (its people mostly have birthdays: the card wins),
        // and without its BDAY lines.
        let variants = try files.flatMap { file in
            let bytes = [UInt8](try Data(contentsOf: file))
            return [(file, bytes), (file, Self.withoutBirthdays(bytes))]
        }
        for (file, bytes) in variants {
            let people = Self.people(bytes)
            for person in people {
                let edit: VCardBirthdayEdit.Edit
                do {
                    edit = try VCardBirthdayEdit.edit(bytes, personID: person.id, birthday: Self.leapDay)
                } catch {
                    continue  // refused in a sentence: nothing written
                }
                guard case .edited(let result) = edit else {
                    #expect(person.birthday != nil || !person.alternateDates.isEmpty || !person.invalidDates.isEmpty, "\(file.lastPathComponent)")
                    continue
                }
                edited += 1
                var expected = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0.birthday) })
                expected[person.id] = Self.leapDay
                let after = Self.people(result)
                #expect(Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0.birthday) }) == expected, "\(file.lastPathComponent)")
                #expect(result.count > bytes.count)
            }
        }
        #expect(edited >= 15)
    }

    /// `bytes` without the physical lines whose property is `BDAY` (with a group or not).
    static func withoutBirthdays(_ bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        for line in VCardBirthdayEdit.physicalLines(bytes, from: 0) {
            let head = String(
                decoding: bytes[line.start..<line.contentEnd].prefix { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: ";") },
                as: UTF8.self
            )
            if head.uppercased().split(separator: ".").last == "BDAY" { continue }
            kept += bytes[line.start..<line.end]
        }
        return kept
    }

    static func people(_ bytes: [UInt8]) -> [Person] {
        let parsed = VCardParser.parse(Data(bytes), file: "card")
        var report = ImportReport()
        return ContactMerge.people(from: parsed.contacts, report: &report)
    }

    // MARK: - The outcome, as the user reads it

    @Test func theOutcomesReadAsSentencesWithoutThePerson() {
        let english = Localizer(language: "en")
        #expect(english(.writeBack(.written(source: "Phone"))) == "The birthday was also written to the card in 'Phone'.")
        #expect(english(.writeBack(.noCard)) == "No followed address book has this person's card; the birthday is kept here only.")
        #expect(english(.writeBack(.cardHasBirthday(source: "Phone"))) == "The card in 'Phone' has a birthday of its own, which was left as it is.")
        let failed = WriteBackOutcome.failed(source: "Friends", .changedMeanwhile(location: "https://dav.example/ann.vcf"))
        #expect(
            english(.writeBack(failed))
                == "The birthday is kept here, but could not be written to the card in 'Friends': "
                + "https://dav.example/ann.vcf changed twice while the birthday was being written; nothing was written, try again later"
        )
        #expect(Localizer(language: "de")(.writeBack(.fileSourceOnly(source: "Export"))).contains("Dateiquelle „Export“"))
    }

    // MARK: - Another reader

    /// python3-vobject (Debian's) reads each edited card; the date it means
    /// is worked out as a vobject user must (vobject keeps BDAY as text):
    /// `--MMDD`, or the year dropped when `X-APPLE-OMIT-YEAR` names it.
    @Test(.enabled(if: SystemTools.pythonHas("vobject"), "needs python3-vobject (apt: python3-vobject)"))
    func python3VobjectReadsTheSameDates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var paths: [String] = []
        var expected: [String] = []
        for (index, test) in Self.versions.enumerated() {
            let card = "BEGIN:VCARD\r\nVERSION:\(test.version)\r\nUID:p\(index)\r\nFN:Person \(index)\r\nN:\(index);Person;;;\r\nEND:VCARD\r\n"
            let edited = try Self.edited(card, personID: "p\(index)", test.date)
            try directory.write("p\(index).vcf", edited)
            paths.append(directory.file("p\(index).vcf"))
            expected.append(test.date.description)
        }
        let script = """
            import sys, re, vobject
            for path in sys.argv[1:]:
                card = vobject.readOne(open(path, encoding="utf-8").read())
                bday = card.bday
                value = bday.value.strip()
                omit = bday.params.get("X-APPLE-OMIT-YEAR", [None])[0]
                m = re.fullmatch(r"(\\d{4})-?(\\d{2})-?(\\d{2})", value) or re.fullmatch(r"--()(\\d{2})(\\d{2})", value)
                year, month, day = m.groups()
                if year == omit:
                    year = ""
                print((year or "-") + "-" + month + "-" + day)
            """
        let result = try await TestProcess.run([SystemTools.python, "-c", script] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == expected)
    }
}
