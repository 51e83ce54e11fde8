import BirthdayCore

/// Left-aligned columns separated by two spaces. Widths count Unicode
/// scalars, which matches the terminal for everything but wide (CJK) and
/// combining characters, and is cheap enough for ten thousand rows.
///
/// Cells hold contact text (names, dates that could not be read), so each is
/// put on one line first (``SafeText/line(_:maxCharacters:)``): no line
/// break can forge a row and no escape sequence reaches the terminal.
enum Table {
    static func render(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = ((header.map { [$0] } ?? []) + rows).map { row in row.map { SafeText.line($0) } }
        guard let columns = all.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.unicodeScalars.count) }
        }
        return all.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.unicodeScalars.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
