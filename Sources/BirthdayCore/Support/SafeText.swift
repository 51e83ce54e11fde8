/// Contact text made harmless for the places it is shown: terminals,
/// notification titles and bodies, environment variables of the user's
/// command, and `file:line: message` reports.
///
/// Contact exports are input from anyone who can put a card in an address
/// book. A name may hold a line break (a forged `Subject:` or `file:line`
/// line, an injected HTTP header), an escape sequence (which a terminal
/// obeys: colours, cursor moves, a changed window title) or a bidirectional
/// override (which reorders what is shown). None of these belong in a name,
/// so:
///
/// - ``line(_:maxCharacters:)`` (names, table cells) turns each run of
///   such characters, and of spaces, into one space, trims the ends, and cuts
///   what is longer than `maxCharacters` with `…`.
/// - ``quoted(_:)`` (text quoted in a problem message, file names) keeps the
///   characters visible instead: ESC becomes `\x1B`, a line feed `\n`.
///
/// What counts as unsafe: the C0 controls (U+0000–U+001F, tab and line
/// breaks included), DEL and the C1 controls (U+007F–U+009F), the line and
/// paragraph separators (U+2028, U+2029), and the bidirectional embedding,
/// override and isolate controls (U+202A–U+202E, U+2066–U+2069).
public enum SafeText {
    /// Whether `scalar` must never reach a terminal or a header as it is.
    @inline(__always)
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds nothing ``isUnsafe(_:)`` and no leading or trailing space.
    public static func isSafeLine(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains(where: isUnsafe) && text.first != " " && text.last != " "
    }

    /// `text` on one line: every run of unsafe characters and spaces becomes
    /// one space, the ends are trimmed, and text longer than `maxCharacters`
    /// is cut there and ends in `…`.
    public static func line(_ text: some StringProtocol, maxCharacters: Int = .max) -> String {
        var out = String()
        if isPlainLine(text) || isSafeLine(text) && !text.contains("  ") {
            out = String(text)
        } else {
            out.reserveCapacity(text.utf8.count)
            var pendingSpace = false
            for scalar in text.unicodeScalars {
                if isUnsafe(scalar) || scalar == " " || scalar == "\u{00A0}" {
                    pendingSpace = !out.isEmpty
                    continue
                }
                if pendingSpace {
                    out.unicodeScalars.append(" ")
                    pendingSpace = false
                }
                out.unicodeScalars.append(scalar)
            }
        }
        guard maxCharacters < .max, out.utf8.count > maxCharacters, out.count > maxCharacters else { return out }
        return String(out.prefix(max(0, maxCharacters - 1))).trimmingWhitespace() + "…"
    }

    /// Whether the text's UTF-8 bytes hold nothing ``isUnsafe(_:)``, no space at
    /// either end and no two spaces in a row: one pass over the bytes, for
    /// the names and cells of a table of ten thousand rows. `false` only
    /// says "look closer" (``isSafeLine(_:)`` and a search for two spaces
    /// compare characters, where a space may carry a combining mark).
    static func isPlainLine(_ text: some StringProtocol) -> Bool {
        if let plain = text.utf8.withContiguousStorageIfAvailable(isPlainLine) { return plain }
        var copy = String(text)
        return copy.withUTF8(isPlainLine)
    }

    private static func isPlainLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var previous: UInt8 = 0x20  // a leading space is not plain
        while let b = iterator.next() {
            switch b {
            case 0x20 where previous == 0x20: return false
            case 0x00...0x1F, 0x7F: return false
            case 0xC2:
                // U+0080–U+009F: C2 80 … C2 9F.
                guard let next = iterator.next() else { return false }
                if next <= 0x9F { return false }
                previous = next
                continue
            case 0xE2:
                // U+2028–U+202E: E2 80 A8 … E2 80 AE; U+2066–U+2069: E2 81 A6 … E2 81 A9.
                guard let second = iterator.next(), let third = iterator.next() else { return false }
                if second == 0x80 && (0xA8...0xAE).contains(third) || second == 0x81 && (0xA6...0xA9).contains(third) { return false }
                previous = third
                continue
            default: break
            }
            previous = b
        }
        return previous != 0x20
    }

    /// `text` with each unsafe character written as an escape a reader can
    /// see: `\n`, `\r`, `\t`, `\x1B` for the other C0 controls and DEL,
    /// `\u0085` for the rest. Nothing else changes.
    public static func quoted(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return String(text) }
        var out = String()
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out +=
                    scalar.value <= 0x7F
                    ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }
}
