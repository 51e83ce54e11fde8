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

extension ContactReader {
    /// Why a file that an import found in a folder, under a name that says
    /// nothing (`export.csv`, `notes.txt`, `photo.jpg`), is not read; `nil`
    /// when it holds contacts. `head` is its first 64 KiB: a vCard
    /// (``ContactFormat/detect(_:)``, as ``parse(_:file:referenceYear:dateOrder:)`` detects it), or a CSV whose first line names a column a contacts
    /// export has (a name, an e-mail, a birthday: ``CSVHeaderMap``). A CSV
    /// of something else (`Date,Amount`) is not contacts, nor is a text
    /// whose first line holds a comma.
    ///
    /// The reason never quotes the file's content (it may be anything).
    public static func reasonToSkip(head: Data) -> String? {
        switch ContactFormat.detect(head) {
        case .vCard:
            return nil
        case .csv:
            let text = CSVText.decode(head)
            var header: [String]?
            // The header is the first record that is not blank; 64 KiB hold it.
            _ = CSVRecordReader.read(text, delimiter: CSVText.delimiter(of: text)) { record in
                if header == nil && !record.isBlank { header = record.fields }
            }
            guard let header, CSVHeaderMap(header: header).namesKnownColumn else {
                return "not a vCard or a contacts CSV (its first line names no column of a contacts export)"
            }
            return nil
        case .empty:
            return "the file is empty"
        case .binary:
            return "not a vCard or CSV file (binary data)"
        case .unknown:
            return "not a vCard or CSV file"
        }
    }
}
