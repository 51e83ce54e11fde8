import BirthdayCore
import Foundation
import TestSupport
import Testing

/// Every case kept in Fuzz/regressions (what `make fuzz` and the hostile-input
/// campaign of issue 16 found) is parsed here on every test run: the readers
/// keep their promises (``ReaderPromises``), and the named cases read as they should.
@Suite struct FuzzRegressionTests {
    static let folder = Repository.root.appendingPathComponent("Fuzz/regressions")

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func thereAreCases() {
        #expect(Self.cases.count >= 10, "Fuzz/regressions holds \(Self.cases)")
    }

    @Test(arguments: cases)
    func everyCaseKeepsTheReadersPromises(name: String) throws {
        let bytes = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        let (broken, _) = ReaderPromises.check(bytes, file: name)
        #expect(broken.isEmpty, "\(broken)")
    }

    static func read(_ name: String) throws -> ParseResult {
        ContactReader.parse(try Data(contentsOf: folder.appendingPathComponent(name)), file: name, referenceYear: 2026)
    }

    /// An embedded card without its END no longer swallows the contacts after it.
    @Test(arguments: [
        ("agent-card-without-end.vcf", 5, ["Big Boss", "Ned Next", "Tom Third"]),
        ("agent-next-line-without-end.vcf", 6, ["Big Boss", "Ned Next"]),
    ])
    func anUnclosedAgentCardEndsWhereItsCardDoes(name: String, line: Int, people: [String]) throws {
        let result = try Self.read(name)
        #expect(result.contacts.map(\.displayName) == people)
        #expect(
            result.problems.contains { $0.line == line && $0.message.hasPrefix("embedded AGENT card starting at line \(line) has no END:VCARD") },
            "\(result.problems)"
        )
        #expect(result.problems.contains { $0.message == "card starting at line 1 has no END:VCARD" })
    }

    @Test(arguments: ["years-past-3000.vcf", "years-past-3000.csv"])
    func yearsPast3000AreProblemsNotDates(name: String) throws {
        let result = try Self.read(name)
        let dated = result.contacts.filter { $0.birthday != nil }
        #expect(dated.allSatisfy { ($0.birthday?.year ?? 0) <= 3000 })
        #expect(result.contacts.filter { !$0.invalidDates.isEmpty }.count == 2)
        #expect(result.problems.count == 2)
        #expect(dated.map(\.displayName) == (name.hasSuffix(".vcf") ? ["Last Good Year"] : []))
    }

    @Test func aCSVWithoutHeaderQuotesNoCell() throws {
        let result = try Self.read("csv-without-header.csv")
        #expect(result.contacts.isEmpty)
        #expect(result.problems.count == 1)
        #expect(result.problems.allSatisfy { !$0.message.contains("Ada") && !$0.message.contains("1815") && !$0.message.contains("@") })
    }

    /// Names keep what they hold (the store is not the place to change them);
    /// where they are shown, ``SafeText`` puts them on one line.
    @Test func namesWithEscapesAreReadAndShownOnOneLine() throws {
        let result = try Self.read("names-with-escapes-and-line-breaks.vcf")
        #expect(result.contacts.count == 2)
        let shown = result.contacts.map { SafeText.line($0.displayName) }
        #expect(shown == ["[2J ]0;pwned Eve X-Injected: yes", "Mallory Bcc: victim@example.org"])
    }

    @Test func aBirthdayCannotForgeAProblemLine() throws {
        let result = try Self.read("birthday-forging-a-problem-line.vcf")
        #expect(
            result.problems.map(\.description) == [
                "birthday-forging-a-problem-line.vcf:4: BDAY 'x\\ncontacts.vcf:1: all good\\x1B[2J' is not a date"
            ]
        )
    }

    @Test func aVListWithoutEndIsReported() throws {
        let result = try Self.read("vlist-without-end.vcf")
        #expect(result.contacts.map(\.displayName) == ["Before"])
        #expect(result.problems.map(\.line) == [6])
        #expect(result.problems.first?.message.hasPrefix("VLIST starting at line 6 has no END:VLIST") == true)
    }

    /// Found by `make fuzz`: 69 lone CRs before a card. Each ends a line, so
    /// the card starts on line 72 (the promise check counted lines too low).
    @Test func loneCarriageReturnsEachEndALine() throws {
        let result = try Self.read("lone-carriage-returns.vcf")
        #expect(result.contacts.map(\.source.line) == [72])
    }

    @Test func aFileCutOffMidCardKeepsWhatCameBefore() throws {
        let result = try Self.read("cut-off-mid-card.vcf")
        #expect(result.contacts.map(\.displayName) == ["Whole", "Cut Of"])
        #expect(result.problems.map(\.message) == ["card starting at line 6 has no END:VCARD"])
    }
}
