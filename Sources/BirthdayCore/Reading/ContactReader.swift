import Foundation

/// Reads one contact export, whatever its format: the entry point of the
/// readers ([vCard](``VCardParser``) and [CSV](``CSVContactParser``)).
public enum ContactReader {
    /// Parses one file's bytes, detecting vCard or CSV from the content
    /// (``ContactFormat/detect(_:)``), never from the file name.
    ///
    /// - Parameters:
    ///   - data: the whole file.
    ///   - file: the path as the user gave it, copied into sources and problems.
    ///   - referenceYear: the current year, for two-digit years in CSV exports.
    ///   - dateOrder: how to read slash dates in CSV exports (`03/04/1990`), when the
    ///     user says so; `nil` lets each file decide, and refuses to guess.
    public static func parse(_ data: Data, file: String, referenceYear: Int, dateOrder: DateOrder? = nil) -> ParseResult {
        switch ContactFormat.detect(data) {
        case .vCard:
            return VCardParser.parse(data, file: file)
        case .csv:
            return CSVContactParser.parse(data, file: file, referenceYear: referenceYear, dateOrder: dateOrder)
        case .empty:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "the file is empty")])
        case .binary:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "not a vCard or CSV file (binary data)")])
        case .unknown:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "not a vCard or CSV file (no BEGIN:VCARD and no CSV header)")])
        }
    }
}
