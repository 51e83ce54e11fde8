import Foundation

/// Turning the bytes of a contacts CSV export into text, before SwiftCSV
/// tokenizes it.
enum CSVText {
    /// Decodes a whole file.
    ///
    /// Rules, in order:
    /// - a UTF-8 byte order mark means UTF-8 (the mark is dropped, so it is never
    ///   glued to the first header);
    /// - a UTF-16 byte order mark (`FF FE` or `FE FF`) means UTF-16 in that byte order;
    /// - no mark, but a NUL byte in every other position of the first bytes
    ///   (`N\0a\0`), means UTF-16 without a mark;
    /// - bytes that are valid UTF-8 are UTF-8;
    /// - anything else is Windows-1252, what Outlook writes on German and
    ///   Western European Windows. Every byte decodes, so this never fails.
    ///
    /// Malformed UTF-16 is repaired with U+FFFD rather than rejected.
    static func decode(_ data: Data) -> String {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return String(decoding: bytes.dropFirst(3), as: UTF8.self)
        }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(bytes.dropFirst(2), littleEndian: true) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(bytes.dropFirst(2), littleEndian: false) }
        if bytes.count >= 4 {
            if bytes[0] != 0 && bytes[1] == 0 && bytes[2] != 0 && bytes[3] == 0 { return utf16(bytes[...], littleEndian: true) }
            if bytes[0] == 0 && bytes[1] != 0 && bytes[2] == 0 && bytes[3] != 0 { return utf16(bytes[...], littleEndian: false) }
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return Windows1252.decode(bytes)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let a = UInt16(bytes[index])
            let b = UInt16(bytes[index + 1])
            units.append(littleEndian ? a | b << 8 : a << 8 | b)
            index += 2
        }
        let text = String(decoding: units, as: UTF16.self)
        return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
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

/// The Windows-1252 code page ("ANSI" on Western European Windows).
enum Windows1252 {
    /// Bytes 0x80–0x9F; the five bytes the code page leaves undefined map to
    /// the C1 control with the same number, as the WHATWG Encoding Standard does.
    private static let high: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// Decodes bytes; every byte maps to one scalar.
    static func decode(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value = (0x80...0x9F).contains(byte) ? high[Int(byte) - 0x80] : UInt32(byte)
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// The byte for `scalar`, or `nil` when Windows-1252 cannot encode it.
    static func byte(for scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        if value < 0x80 || (0xA0...0xFF).contains(value) { return UInt8(value) }
        guard let offset = high.firstIndex(of: value) else { return nil }
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
