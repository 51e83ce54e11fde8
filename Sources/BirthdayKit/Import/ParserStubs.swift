import Foundation

// Temporary: replaced by the real parsers when their branches land.
enum VCardParser {
    static func parse(_ data: Data, file: String) -> ParseResult { ParseResult() }
}
