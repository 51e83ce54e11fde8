import Foundation
import Testing

@testable import BirthdayCore

/// ``ImportReport/inFileOrder(_:files:)``: problems in the order the files were given, then by line.
@Suite struct ImportReportTests {
    @Test func problemsFollowTheFilesAsGivenThenTheirLines() {
        let problems = [
            ImportProblem(file: "/abs/a.vcf", line: 14, message: "late"),
            ImportProblem(file: "rel/b.vcf", line: 9, message: "b9"),
            ImportProblem(file: "/abs/a.vcf", line: 6, message: "a6"),
            ImportProblem(file: "elsewhere", line: 1, message: "unknown file"),
            ImportProblem(file: "rel/b.vcf", line: 1, message: "b1 first"),
            ImportProblem(file: "rel/b.vcf", line: 1, message: "b1 second"),
        ]
        let ordered = ImportReport.inFileOrder(problems, files: ["rel/b.vcf", "/abs/a.vcf"])
        #expect(ordered.map(\.message) == ["b1 first", "b1 second", "b9", "a6", "late", "unknown file"])
    }

    @Test func aFileNameIsMatchedAsProblemsQuoteIt() {
        let name = "odd\u{7}name.vcf"
        let problems = [ImportProblem(file: "z.vcf", line: 1, message: "z"), ImportProblem(file: name, line: 2, message: "odd")]
        #expect(ImportReport.inFileOrder(problems, files: [name, "z.vcf"]).map(\.message) == ["odd", "z"])
    }
}

/// ``ContactReader/reasonToSkip(head:)``: which files of a folder an import reads by their content.
@Suite struct FolderFileContentTests {
    @Test(arguments: [
        "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nEND:VCARD\r\n",
        "item1.begin:vcard\nFN:Ada\nend:vcard\n",
        "Name,Birthday\nAda,1990-03-10\n",
        "First Name;Last Name;E-mail Address\nAda;Lovelace;ada@example.org\n",
        "Given Name\tFamily Name\tBirthday\nAda\tLovelace\t1990-03-10\n",
    ])
    func contactsAreRead(text: String) {
        #expect(ContactReader.reasonToSkip(head: Data(text.utf8)) == nil)
    }

    @Test func aContactsCSVInUTF16IsRead() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "Name,Birthday\r\nAda,1990-03-10\r\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(ContactReader.reasonToSkip(head: Data(bytes)) == nil)
    }

    @Test(arguments: [
        ("", "the file is empty"),
        (" \n\n", "the file is empty"),
        ("Date,Amount\n2026-01-02,12.50\n", "not a vCard or a contacts CSV (its first line names no column of a contacts export)"),
        ("call Ada, about the party\n", "not a vCard or a contacts CSV (its first line names no column of a contacts export)"),
        ("# My notes\n", "not a vCard or CSV file"),
    ])
    func otherFilesAreSkippedWithWhy(text: String, reason: String) {
        #expect(ContactReader.reasonToSkip(head: Data(text.utf8)) == reason)
    }

    @Test func binaryDataIsSkipped() {
        #expect(ContactReader.reasonToSkip(head: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46])) == "not a vCard or CSV file (binary data)")
    }
}
