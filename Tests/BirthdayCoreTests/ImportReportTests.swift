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
