import Foundation

/// What kind of export a file holds, judged from its content, not its name.
enum ContactFormat: Equatable {
    case vCard
    case csv
    case empty
    case binary
    case unknown

    /// Looks at the first 64 KiB: a `BEGIN:VCARD` line (any case, any group
    /// prefix, UTF-8 or UTF-16) makes it a vCard file; NUL bytes that are not
    /// UTF-16 make it binary; a first line with a comma, semicolon or tab
    /// makes it CSV.
    static func detect(_ data: Data) -> ContactFormat {
        // The common case first, without a pass over 64 KiB: a file (or a CardDAV
        // member) that starts with `BEGIN:VCARD`, after an optional UTF-8 BOM and blanks.
        if startsWithBeginVCard(data) { return .vCard }
        let head = data.prefix(65_536)
        guard head.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return .empty }
        // Dropping NUL bytes turns ASCII in UTF-16 (either byte order) into ASCII.
        let nulCount = head.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        let looksUTF16 = head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) || nulCount * 4 >= head.count
        let ascii = looksUTF16 ? Data(head.filter { $0 != 0 }) : Data(head)
        let lowered = ascii.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if lowered.firstRange(of: Array("begin:vcard".utf8)) != nil { return .vCard }
        if !looksUTF16 && nulCount > 0 { return .binary }
        // Control bytes other than tab, CR, LF, form feed, ESC mean binary data.
        let control = ascii.prefix(4096).filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C && $0 != 0x1B }.count
        if control > 0 { return .binary }
        let firstLine = lowered.prefix { $0 != 0x0A && $0 != 0x0D }
        if firstLine.contains(UInt8(ascii: ",")) || firstLine.contains(UInt8(ascii: ";")) || firstLine.contains(UInt8(ascii: "\t")) {
            return .csv
        }
        return .unknown
    }

    /// Whether `data` starts with `BEGIN:VCARD` in any case, after an optional UTF-8 BOM and blanks.
    private static func startsWithBeginVCard(_ data: Data) -> Bool {
        var index = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
        let expected = Array("begin:vcard".utf8)
        guard data.endIndex - index >= expected.count else { return false }
        for (offset, byte) in expected.enumerated() {
            let found = data[index + offset]
            if (found >= 0x41 && found <= 0x5A ? found | 0x20 : found) != byte { return false }
        }
        return true
    }
}
