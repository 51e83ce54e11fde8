import BirthdayCore

/// Left-aligned columns separated by two spaces. A cell's width is what a
/// terminal gives it: East Asian wide and fullwidth characters (Han, kana,
/// Hangul, fullwidth forms) take two columns, combining marks none, the rest
/// one. Cheap enough for ten thousand rows: each cell is measured once, and
/// ASCII and Latin text without a lookup.
///
/// Cells hold contact text (names, dates that could not be read), so each is
/// put on one line first (``SafeText/line(_:maxCharacters:)``): no line
/// break can forge a row and no escape sequence reaches the terminal.
enum Table {
    static func render(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = ((header.map { [$0] } ?? []) + rows).map { row in row.map { SafeText.line($0) } }
        guard let columns = all.map(\.count).max() else { return "" }
        let cellWidths = all.map { $0.map(width) }
        var widths = [Int](repeating: 0, count: columns)
        for row in cellWidths {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell) }
        }
        return zip(all, cellWidths).map { row, rowWidths in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - rowWidths[i])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// Terminal columns of `text`.
    static func width(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var total = 0
        for scalar in text.unicodeScalars {
            // Below the combining diacritical marks everything is one column.
            if scalar.value < 0x300 {
                total += 1
                continue
            }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: total += isWide(scalar.value) ? 2 : 1
            }
        }
        return total
    }

    /// Unicode's East Asian Width W and F ranges that text in the catalog's
    /// languages and people's names use (UAX #11).
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }
}
