/// Left-aligned columns separated by two spaces. Widths count Unicode
/// scalars, which matches the terminal for everything but wide (CJK) and
/// combining characters, and is cheap enough for ten thousand rows.
enum Table {
    static func render(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = (header.map { [$0] } ?? []) + rows
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
