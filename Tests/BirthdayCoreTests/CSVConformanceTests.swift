import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// `../shared` next to the repository root: the public corpus and the contact
/// generator. A fresh clone does not have it, so these tests skip without it.
private enum SharedFolder {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // BirthdayKitTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository root
        .appendingPathComponent("../shared")
        .standardizedFileURL
    static let corpus = url.appendingPathComponent("corpus/public")
    static let generator = url.appendingPathComponent("tools/gen-contacts.py")

    static var hasCorpus: Bool { FileManager.default.fileExists(atPath: corpus.appendingPathComponent("expected.tsv").path) }
    static var hasGenerator: Bool { FileManager.default.fileExists(atPath: generator.path) }

    /// The `.csv` files of the corpus, relative to it.
    static func corpusCSVFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: corpus.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.lowercased().hasSuffix(".csv") }.sorted()
    }
}

@Suite struct CSVConformanceTests {
    /// The corpus was collected in 2026-08; two-digit years are read against that.
    static let referenceYear = 2026

    struct ExpectedRow: Sendable, CustomStringConvertible {
        var file: String
        var index: Int
        var name: String
        var kind: EventKind
        /// `nil` for a row whose date is `invalid`.
        var date: EventDate?

        var description: String { "\(file) #\(index) \(kind.rawValue) \(date?.description ?? "invalid")" }
    }

    static func expectedRows() throws -> [ExpectedRow] {
        let text = try String(contentsOf: SharedFolder.corpus.appendingPathComponent("expected.tsv"), encoding: .utf8)
        var rows: [ExpectedRow] = []
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 7, columns[0].lowercased().hasSuffix(".csv") else { continue }
            let index = try #require(Int(columns[1]))
            let kind = try #require(EventKind(rawValue: columns[3]))
            var date: EventDate?
            if columns[4] != "invalid" {
                let month = try #require(Int(columns[4]))
                let day = try #require(Int(columns[5]))
                let value: EventDate = try #require(EventDate(year: Int(columns[6]), month: month, day: day), "\(line)")
                date = value
            }
            rows.append(ExpectedRow(file: columns[0], index: index, name: columns[2], kind: kind, date: date))
        }
        return rows
    }

    // MARK: - Public corpus

    @Test(
        "Every CSV file of the public corpus gives exactly the dates in expected.tsv",
        .enabled(if: SharedFolder.hasCorpus, "../shared/corpus/public is not next to this checkout (fresh clone); corpus conformance skipped")
    )
    func publicCorpus() throws {
        let expected = try Self.expectedRows()
        let files = SharedFolder.corpusCSVFiles()
        #expect(!files.isEmpty)
        for file in files {
            let data = try Data(contentsOf: SharedFolder.corpus.appendingPathComponent(file))
            let result = CSVContactParser.parse(data, file: file, referenceYear: Self.referenceYear)
            let rows = expected.filter { $0.file == file }
            var byIndex: [Int: ParsedContact] = [:]
            for contact in result.contacts {
                #expect(byIndex[contact.source.index] == nil, "\(file): index \(contact.source.index) twice")
                byIndex[contact.source.index] = contact
            }
            for row in rows {
                guard let contact = byIndex[row.index] else {
                    Issue.record("\(row): no contact at that index")
                    continue
                }
                #expect(contact.displayName == row.name, "\(row)")
                let actual = row.kind == .birthday ? contact.birthday : contact.anniversary
                if let date = row.date {
                    #expect(actual == date, "\(row): got \(actual?.description ?? "nothing")")
                } else {
                    #expect(actual == nil && !contact.invalidDates.isEmpty, "\(row): expected an invalid date")
                }
            }
            let listed = Set(rows.map(\.index))
            for contact in result.contacts where !listed.contains(contact.source.index) {
                #expect(!contact.hasDates, "\(file) #\(contact.source.index) has dates but none are expected")
            }
            if rows.allSatisfy({ $0.date != nil }) {
                // Roundcube's test exports hold placeholders ("pager", "phone work") in their phone
                // columns: reported as what they are, which says nothing about the dates.
                let dateProblems = result.problems.filter { !$0.message.hasSuffix("is not a phone number; left out") }
                #expect(dateProblems.isEmpty, "\(file): \(dateProblems)")
            }
        }
    }

    @Test(
        "The corpus's line numbers point at the record",
        .enabled(if: SharedFolder.hasCorpus, "../shared/corpus/public is not next to this checkout (fresh clone); corpus conformance skipped")
    )
    func corpusLines() throws {
        // roundcube/gmail.csv has one record spanning 9 lines; tine20/google_contacts.csv has a
        // quoted CRLF in record 4 and tine20/importtest_outlook2013.csv one in record 0.
        let cases: [(file: String, lines: [Int: Int])] = [
            ("roundcube/gmail.csv", [0: 2]),
            ("tine20/google_contacts.csv", [0: 2, 3: 5, 4: 6]),
            ("tine20/importtest_outlook2013.csv", [0: 2, 1: 4]),
        ]
        for (file, lines) in cases {
            let data = try Data(contentsOf: SharedFolder.corpus.appendingPathComponent(file))
            let result = CSVContactParser.parse(data, file: file, referenceYear: Self.referenceYear)
            let actual = Dictionary(result.contacts.map { ($0.source.index, $0.source.line) }, uniquingKeysWith: { a, _ in a })
            for (index, line) in lines {
                #expect(actual[index] == line, "\(file) #\(index)")
            }
        }
    }

    // MARK: - Generated exports

    @Test(
        "Generated Google and Outlook exports match the generator's truth",
        .enabled(
            if: SharedFolder.hasGenerator,
            "../shared/tools/gen-contacts.py is not next to this checkout (fresh clone); generated exports skipped"
        ),
        arguments: [("google-csv", 1), ("google-csv", 7), ("outlook-csv", 1), ("outlook-csv", 42)]
    )
    func generatedExport(format: String, seed: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("csv-conformance-\(format)-\(seed)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let truthURL = folder.appendingPathComponent("truth.tsv")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", SharedFolder.generator.path, "--count", "2000", "--format", format, "--seed", String(seed), "--truth", truthURL.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gen-contacts.py failed")

        // The truth's uid column is the generator's own id; a CSV export carries none, so
        // compare name, kind and date as a multiset.
        let truthText = try String(contentsOf: truthURL, encoding: .utf8)
        let truth = truthText.split(separator: "\n").map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).dropFirst().joined(separator: "\t")
        }.sorted()

        let result = CSVContactParser.parse(data, file: "generated.csv", referenceYear: 2026)
        #expect(result.problems.isEmpty, "\(result.problems.prefix(5))")
        var parsed: [String] = []
        for contact in result.contacts {
            for (kind, date) in [(EventKind.birthday, contact.birthday), (.anniversary, contact.anniversary)] {
                guard let date else { continue }
                let year = date.year.map { String($0) } ?? ""
                let fields: [String] = [contact.displayName, kind.rawValue, String(date.month), String(date.day), year]
                parsed.append(fields.joined(separator: "\t"))
            }
        }
        parsed.sort()
        #expect(parsed.count == truth.count)
        #expect(parsed == truth)

        // Every record is a contact, numbered in order, and its line is where its first field is.
        #expect(result.contacts.map(\.source.index) == Array(0..<2000))
        let text = String(decoding: data, as: UTF8.self)
        let physicalLines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for contact in result.contacts {
            let line = contact.source.line
            guard line >= 1, line <= physicalLines.count else {
                Issue.record("#\(contact.source.index): line \(line) out of range")
                continue
            }
            #expect(physicalLines[line - 1].hasPrefix(contact.nameParts.given + ","), "#\(contact.source.index) line \(line)")
        }
    }
}
