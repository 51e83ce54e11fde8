import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Left-aligned columns separated by two spaces, padded by the width a
/// terminal gives each cell: East Asian wide and fullwidth characters (Han,
/// kana, Hangul, fullwidth forms) and emoji take two columns, combining
/// marks none, the rest one. Cheap enough for ten thousand rows: each cell
/// is measured once, and ASCII and Latin text without a lookup.
///
/// Fitted to the terminal: when ``fitWidth`` is known (`$COLUMNS`, else the
/// width of the terminal standard output is), the widest of the columns
/// that may shrink (names, titles, bodies; never ids and dates) give up
/// space until a line fits, and cells cut that way end in `…`. Output to a
/// pipe or a file is never cut (unless `$COLUMNS` says so).
///
/// Cells hold contact text (names, dates that could not be read), so each is
/// put on one line first (``SafeText/line(_:maxCharacters:)``): no line
/// break can forge a row and no escape sequence reaches the terminal.
enum Table {
    /// The width to fit tables to: `$COLUMNS` when set to a number, else the
    /// width of the terminal on standard output, else `nil` (no limit).
    static let fitWidth: Int? = terminalWidth(ProcessInfo.processInfo.environment)

    /// No column is narrowed below this many cells (or its header's width).
    static let minimumColumn = 6

    /// - Parameters:
    ///   - shrinkable: the columns that may be cut to fit (`nil`: all).
    ///   - limit: the width to fit; `nil` leaves lines as long as they are.
    static func render(_ rows: [[String]], header: [String]? = nil, shrinkable: Set<Int>? = nil, width limit: Int? = Table.fitWidth) -> String {
        // Cells one after another in one array (a row's run starts at its offset), each measured once.
        var cells: [String] = []
        var cellWidths: [Int] = []
        var starts: [Int] = []
        let count = rows.count + (header == nil ? 0 : 1)
        starts.reserveCapacity(count + 1)
        cells.reserveCapacity(count * (rows.first?.count ?? 0))
        cellWidths.reserveCapacity(cells.capacity)
        var widths: [Int] = []
        func add(_ row: [String]) {
            starts.append(cells.count)
            for (i, raw) in row.enumerated() {
                let cell = SafeText.line(raw)
                let cellWidth = width(cell)
                cells.append(cell)
                cellWidths.append(cellWidth)
                if i < widths.count { widths[i] = max(widths[i], cellWidth) } else { widths.append(cellWidth) }
            }
        }
        if let header { add(header) }
        for row in rows { add(row) }
        starts.append(cells.count)
        guard count > 0 else { return "" }
        let natural = widths
        if let limit { widths = fit(widths, into: limit, floors: header.map { $0.map(width) }, shrinkable: shrinkable) }
        let cut = widths != natural
        // The text as UTF-8 bytes, made a string once at the end.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * (widths.reduce(0, +) + 2 * widths.count))
        for row in 0..<count {
            if row > 0 { bytes.append(0x0A) }
            let start = starts[row]
            // Up to the last cell with text: a line never ends in spaces.
            guard let last = (start..<starts[row + 1]).last(where: { !cells[$0].isEmpty }).map({ $0 - start }) else { continue }
            for i in 0...last {
                let cell = cells[start + i]
                let (text, used) = cut && cellWidths[start + i] > widths[i] ? truncate(cell, to: widths[i]) : (cell, cellWidths[start + i])
                if i > 0 { bytes.append(contentsOf: repeatElement(0x20, count: 2)) }
                bytes.append(contentsOf: text.utf8)
                if i < last { bytes.append(contentsOf: repeatElement(0x20, count: widths[i] - used)) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Column widths that fit `limit` with two spaces between columns: the
    /// widest column gives up a cell at a time, down to ``minimumColumn``
    /// (or its header's width, when less).
    static func fit(_ natural: [Int], into limit: Int, floors headers: [Int]?, shrinkable: Set<Int>? = nil) -> [Int] {
        var widths = natural
        let floors = widths.indices.map { i in
            shrinkable?.contains(i) == false ? natural[i] : min(natural[i], max(minimumColumn, min(headers?[safe: i] ?? 0, minimumColumn * 2)))
        }
        var excess = widths.reduce(0, +) + 2 * max(widths.count - 1, 0) - limit
        while excess > 0 {
            guard let widest = widths.indices.filter({ widths[$0] > floors[$0] }).max(by: { widths[$0] < widths[$1] }) else { break }
            let second = widths.indices.filter { $0 != widest }.map { widths[$0] }.max() ?? 0
            let step = min(excess, widths[widest] - floors[widest], max(1, widths[widest] - second))
            widths[widest] -= step
            excess -= step
        }
        return widths
    }

    /// The start of `text` that takes at most `columns` cells with a `…` at
    /// its end, and how many cells it takes.
    static func truncate(_ text: String, to columns: Int) -> (String, Int) {
        guard columns > 1 else { return (columns == 1 ? "…" : "", max(columns, 0)) }
        var out = ""
        var used = 0
        for character in text {
            let cells = width(String(character))
            if used + cells > columns - 1 { break }
            out.append(character)
            used += cells
        }
        return (out + "…", used + 1)
    }

    /// Terminal columns of `text`.
    static func width(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        // Scalar by scalar while there is no emoji (most names): the same sum as by character, without finding characters.
        var total = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            // Below the combining diacritical marks everything is one column.
            if v < 0x300 {
                total += 1
                continue
            }
            // Han ideographs and Hangul syllables: wide letters, no mark or emoji among them.
            if (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xAC00...0xD7A3).contains(v) {
                total += 2
                continue
            }
            // (No scalar below U+231A, the first, has the property.)
            if v >= 0x231A && (scalar.properties.isEmojiPresentation || v == 0xFE0F) { return widthByCharacter(text) }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: total += isWide(v) ? 2 : 1
            }
        }
        return total
    }

    /// ``width(_:)`` of a text with emoji in it.
    private static func widthByCharacter(_ text: String) -> Int {
        var total = 0
        for character in text {
            // An emoji, with its modifiers, joiners and flags, is one picture two columns wide.
            if character.unicodeScalars.contains(where: { $0.value >= 0x231A && ($0.properties.isEmojiPresentation || $0.value == 0xFE0F) }) {
                total += 2
                continue
            }
            for scalar in character.unicodeScalars {
                if scalar.value < 0x300 {
                    total += 1
                    continue
                }
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .format: continue
                default: total += isWide(scalar.value) ? 2 : 1
                }
            }
        }
        return total
    }

    /// Unicode's East Asian Width W and F ranges that text in the catalog's
    /// languages and people's names use (UAX #11); emoji are found by their
    /// `Emoji_Presentation` property instead.
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// `$COLUMNS` when it is a positive number, else the width of the terminal on standard output, else `nil`.
    static func terminalWidth(_ environment: [String: String]) -> Int? {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        guard isatty(1) == 1 else { return nil }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

extension Array {
    /// The element at `index`, or `nil` when there is none.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
