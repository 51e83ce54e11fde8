import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Conformance of ``VCardParser`` with real-world exports (`shared/corpus/public`,
/// described in its `SOURCES.md`) and with generated ones (`shared/tools/gen-contacts.py --truth`).
///
/// Both live next to the repository (`../shared`), not in it: on a fresh
/// clone without them these tests are skipped, they do not fail.
@Suite struct VCardCorpusTests {
    /// `<repo>/../shared`, found from this source file's path.
    static let shared = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // BirthdayKitTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository root
        .deletingLastPathComponent()
        .appendingPathComponent("shared")
    static let corpus = shared.appendingPathComponent("corpus/public")
    static let generator = shared.appendingPathComponent("tools/gen-contacts.py")

    static var hasCorpus: Bool { FileManager.default.fileExists(atPath: corpus.appendingPathComponent("expected.tsv").path) }
    static var hasGenerator: Bool { FileManager.default.fileExists(atPath: generator.path) }

    /// Rows of expected.tsv this parser deliberately reads differently, keyed
    /// "file index kind", with the reason. Empty: every row, OPTIONAL ones
    /// included, is matched.
    static let deliberateDifferences: [String: String] = [:]

    struct ExpectedRow {
        var file: String
        var index: Int
        var name: String
        var kind: EventKind
        /// nil when the row says "invalid".
        var date: (month: Int, day: Int, year: Int?)?
        var comment: String
        var uid: String

        var key: String { "\(file) \(index) \(kind.rawValue)" }
    }

    static func expectedRows() throws -> [ExpectedRow] {
        let text = try String(contentsOf: corpus.appendingPathComponent("expected.tsv"), encoding: .utf8)
        var rows: [ExpectedRow] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8, f[0].hasSuffix(".vcf") || f[0].hasSuffix(".ics") else { continue }
            let kind = try #require(EventKind(rawValue: f[3]), "kind in \(line)")
            var date: (Int, Int, Int?)?
            if f[4] != "invalid" {
                date = (try #require(Int(f[4])), try #require(Int(f[5])), f[6].isEmpty ? nil : Int(f[6]))
            }
            rows.append(
                ExpectedRow(
                    file: f[0],
                    index: try #require(Int(f[1])),
                    name: f[2],
                    kind: kind,
                    date: date,
                    comment: f[7],
                    uid: f.count > 8 ? f[8] : ""
                )
            )
        }
        return rows
    }

    static func corpusFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: corpus.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".vcf") || $0.hasSuffix(".ics") }.sorted()
    }

    // Requires ../shared/corpus/public next to the repository; skipped on a fresh clone.
    @Test(.enabled(if: hasCorpus, "../shared/corpus/public is not next to the repository"))
    func publicCorpusMatchesExpectedTSV() throws {
        let rows = try Self.expectedRows()
        let files = Self.corpusFiles()
        #expect(files.count > 50)
        for file in files {
            let data = try Data(contentsOf: Self.corpus.appendingPathComponent(file))
            let result = VCardParser.parse(data, file: file)
            let fileRows = rows.filter { $0.file == file }
            for row in fileRows where Self.deliberateDifferences[row.key] == nil {
                guard row.index < result.contacts.count else {
                    Issue.record("\(row.key): only \(result.contacts.count) cards")
                    continue
                }
                let contact = result.contacts[row.index]
                #expect(contact.source.index == row.index, "\(row.key)")
                #expect(contact.displayName == row.name, "\(row.key)")
                if !row.uid.isEmpty { #expect(contact.uid == row.uid, "\(row.key)") }
                let date = row.kind == .birthday ? contact.birthday : contact.anniversary
                if let expected = row.date {
                    #expect(
                        date?.month == expected.month && date?.day == expected.day && date?.year == expected.year,
                        "\(row.key): got \(date.map(String.init(describing:)) ?? "nil") \(row.comment)"
                    )
                } else {
                    #expect(date == nil, "\(row.key): got \(date.map(String.init(describing:)) ?? "nil")")
                    #expect(!contact.invalidDates.isEmpty, "\(row.key): no invalid date recorded")
                }
            }
            // Contacts and kinds not listed have no date.
            for contact in result.contacts {
                for kind in [EventKind.birthday, .anniversary] {
                    let listed = fileRows.contains { $0.index == contact.source.index && $0.kind == kind }
                    guard !listed else { continue }
                    let date = kind == .birthday ? contact.birthday : contact.anniversary
                    #expect(date == nil, "\(file) \(contact.source.index) \(kind.rawValue): unexpected \(date.map(String.init(describing:)) ?? "")")
                }
            }
            // Problems never quote a name.
            for problem in result.problems {
                for contact in result.contacts where contact.displayName.count > 3 {
                    #expect(!problem.message.contains(contact.displayName), "\(problem)")
                }
            }
        }
    }

    // MARK: - Generated exports

    static let generated: [(format: String, seed: Int)] = [("vcard21", 1), ("vcard3", 2), ("vcard4", 3), ("mixed", 4), ("mixed", 5)]

    // Requires ../shared/tools/gen-contacts.py and python3; skipped on a fresh clone.
    @Test(.enabled(if: hasGenerator, "../shared/tools/gen-contacts.py is not next to the repository"), arguments: generated)
    func generatedExportMatchesTruth(format: String, seed: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vcard-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let truthURL = directory.appendingPathComponent("truth.tsv")
        let exportURL = directory.appendingPathComponent("contacts.vcf")
        _ = FileManager.default.createFile(atPath: exportURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: exportURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.generator.path, "--count", "2000", "--format", format, "--seed", String(seed),
            "--photo-rate", "0.05", "--truth", truthURL.path,
        ]
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        try output.close()
        try #require(process.terminationStatus == 0)

        let result = VCardParser.parse(try Data(contentsOf: exportURL), file: "generated.vcf")
        #expect(result.contacts.count == 2000)
        #expect(result.problems.isEmpty, "\(result.problems.prefix(3))")
        var byUID: [String: ParsedContact] = [:]
        for contact in result.contacts {
            let uid = try #require(contact.uid, "card \(contact.source.index) has no UID")
            byUID[uid.hasPrefix("urn:uuid:") ? String(uid.dropFirst(9)) : uid] = contact
        }
        var dated: [String: Set<EventKind>] = [:]
        for line in try String(contentsOf: truthURL, encoding: .utf8).split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            try #require(f.count == 6)
            let contact = try #require(byUID[f[0]], "uid \(f[0])")
            let kind = try #require(EventKind(rawValue: f[2]))
            dated[f[0], default: []].insert(kind)
            #expect(contact.displayName == f[1])
            let date = try #require(kind == .birthday ? contact.birthday : contact.anniversary, "\(f[0]) \(kind)")
            #expect(date.month == Int(f[3]) && date.day == Int(f[4]) && date.year == Int(f[5]), "\(f[0]) \(kind): \(date)")
        }
        for (uid, contact) in byUID {
            let kinds = dated[uid] ?? []
            if !kinds.contains(.birthday) { #expect(contact.birthday == nil, "\(uid)") }
            if !kinds.contains(.anniversary) { #expect(contact.anniversary == nil, "\(uid)") }
            #expect(contact.invalidDates.isEmpty)
        }
    }
}
