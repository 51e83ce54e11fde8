import Foundation

/// Turning the bytes of a contacts CSV export into text, before SwiftCSV
/// tokenizes it.
enum CSVText {
    /// Decodes a whole file with ``TextDecoding/string(fromFile:)``: a UTF-8
    /// or UTF-16 byte order mark (dropped, so it is never glued to the first
    /// header), UTF-16 recognised by its NUL bytes, valid UTF-8, else
    /// Windows-1252, what Outlook writes on German and Western European
    /// Windows. Every byte decodes, so this never fails.
    static func decode(_ data: Data) -> String {
        TextDecoding.string(fromFile: data)
    }

    /// The field delimiter of a file: the most frequent of comma, semicolon
    /// and tab in the first record, outside quotes. Ties go to comma, then
    /// semicolon; a header without any of them is read as comma-separated.
    static func delimiter(of text: String) -> Character {
        var counts: [UInt8: Int] = [:]
        var quoted = false
        var seenContent = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
                seenContent = true
            } else if !quoted {
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    if seenContent { break }  // else a blank line before the header
                    continue
                }
                if byte != UInt8(ascii: " ") { seenContent = true }
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\t") { counts[byte, default: 0] += 1 }
            }
        }
        let comma = counts[UInt8(ascii: ","), default: 0]
        let semicolon = counts[UInt8(ascii: ";"), default: 0]
        let tab = counts[UInt8(ascii: "\t"), default: 0]
        if tab > comma && tab > semicolon { return "\t" }
        if semicolon > comma { return ";" }
        return ","
    }

    /// Physical line breaks in `text`: CR LF, LF and a lone CR each count once.
    static func lineBreaks(in text: some StringProtocol) -> Int {
        var count = 0
        var afterCR = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\r") {
                count += 1
                afterCR = true
            } else {
                if byte == UInt8(ascii: "\n") && !afterCR { count += 1 }
                afterCR = false
            }
        }
        return count
    }

    /// The position just after the `count`-th line break of `text` (counted
    /// as ``lineBreaks(in:)`` does), or the end of the text.
    static func index(afterLineBreaks count: Int, in text: Substring) -> Substring.Index {
        guard count > 0 else { return text.startIndex }
        var seen = 0
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            var next = utf8.index(after: index)
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                if byte == UInt8(ascii: "\r"), next < utf8.endIndex, utf8[next] == UInt8(ascii: "\n") { next = utf8.index(after: next) }
                seen += 1
                if seen == count { return next }
            }
            index = next
        }
        return text.endIndex
    }
}

/// The Windows-1252 code page ("ANSI" on Western European Windows), for text
/// that was already decoded: the byte tables are ``TextDecoding``'s.
enum Windows1252 {
    /// The byte for `scalar`, or `nil` when Windows-1252 cannot encode it.
    static func byte(for scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        if value < 0x80 || (0xA0...0xFF).contains(value) { return UInt8(value) }
        guard let offset = TextDecoding.cp1252High.firstIndex(of: UInt16(truncatingIfNeeded: value)), value <= 0xFFFF else { return nil }
        return UInt8(0x80 + offset)
    }

    /// Undoes double encoding ("StraÃŸe" → "Straße"): UTF-8 bytes that were
    /// read as Windows-1252 and written out again as UTF-8. Returns `text`
    /// unchanged when it is not such mojibake.
    static func repairingMojibake(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x80 }) else { return text }
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard let byte = byte(for: scalar) else { return text }
            bytes.append(byte)
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}
