import Foundation

/// The character set a vCard value's bytes are declared in (the vCard 2.1
/// `CHARSET` parameter), reduced to what the decoder can tell apart.
///
/// Values without a `CHARSET` and values whose charset is unknown are read as
/// UTF-8 when they are valid UTF-8, else as Windows-1252: exports from old
/// Windows tools write 8-bit text without saying so.
enum TextCharset: Hashable, Sendable {
    /// UTF-8 (and US-ASCII, and anything unknown): valid UTF-8, else Windows-1252.
    case utf8
    /// ISO-8859-1: every byte is the code point of the same number.
    case latin1
    /// Windows-1252: Latin-1 with printable characters in 0x80–0x9F.
    case windows1252
    /// A charset Foundation decodes (Shift_JIS, EUC-JP, ISO-8859-2, Windows-125x…);
    /// bytes it rejects fall back to Windows-1252.
    case foundation(String.Encoding)

    /// Reads a `CHARSET` parameter value such as `UTF-8`, `ISO-8859-1` or `Shift_JIS` (any case).
    init(name: some StringProtocol) {
        switch name.uppercased() {
        case "UTF-8", "UTF8", "US-ASCII", "ASCII", "ANSI_X3.4-1968": self = .utf8
        case "ISO-8859-1", "ISO8859-1", "ISO_8859-1", "LATIN1", "LATIN-1", "L1": self = .latin1
        case "WINDOWS-1252", "CP1252", "X-CP1252", "WIN-1252": self = .windows1252
        case "SHIFT_JIS", "SHIFT-JIS", "SJIS", "X-SJIS", "CP932", "WINDOWS-31J", "MS_KANJI": self = .foundation(.shiftJIS)
        case "EUC-JP", "EUCJP": self = .foundation(.japaneseEUC)
        case "ISO-2022-JP": self = .foundation(.iso2022JP)
        case "ISO-8859-2", "ISO8859-2", "LATIN2": self = .foundation(.isoLatin2)
        case "WINDOWS-1250", "CP1250": self = .foundation(.windowsCP1250)
        case "WINDOWS-1251", "CP1251": self = .foundation(.windowsCP1251)
        case "WINDOWS-1253", "CP1253": self = .foundation(.windowsCP1253)
        case "WINDOWS-1254", "CP1254": self = .foundation(.windowsCP1254)
        default: self = .utf8
        }
    }
}

/// Byte-to-text conversions for contact files: the whole file's encoding
/// (BOM, UTF-16) and single values in a declared charset.
enum TextDecoding {
    /// How a whole file is encoded, as far as the parser cares.
    enum FileEncoding: Equatable {
        /// UTF-8 or an 8-bit charset (decoded value by value); skip `bomLength` bytes.
        case bytes(bomLength: Int)
        /// UTF-16; converted to UTF-8 before parsing, after `bomLength` bytes.
        case utf16(bigEndian: Bool, bomLength: Int)
    }

    /// Detects the file encoding: a UTF-8 or UTF-16 byte-order mark, else UTF-16
    /// by its NUL byte pattern (ASCII text in UTF-16 has a NUL in every other
    /// byte), else 8-bit.
    static func detectEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> FileEncoding {
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return .bytes(bomLength: 3) }
        if n >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE { return .utf16(bigEndian: false, bomLength: 2) }
        if n >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF { return .utf16(bigEndian: true, bomLength: 2) }
        // Sample the start: UTF-16 text of a vCard is mostly ASCII, so one byte of each pair is NUL.
        let sample = min(n, 1024) & ~1
        guard sample >= 4 else { return .bytes(bomLength: 0) }
        var evenZeros = 0
        var oddZeros = 0
        var i = 0
        while i < sample {
            if bytes[i] == 0 { evenZeros += 1 }
            if bytes[i + 1] == 0 { oddZeros += 1 }
            i += 2
        }
        let pairs = sample / 2
        if evenZeros * 2 >= pairs && oddZeros * 8 < pairs { return .utf16(bigEndian: true, bomLength: 0) }
        if oddZeros * 2 >= pairs && evenZeros * 8 < pairs { return .utf16(bigEndian: false, bomLength: 0) }
        return .bytes(bomLength: 0)
    }

    /// A whole file as text: its encoding detected by ``detectEncoding(_:)``
    /// (a byte order mark is dropped), 8-bit files read as UTF-8 when they are
    /// valid UTF-8, else as Windows-1252. Never fails: UTF-16 that is not
    /// well formed is repaired with U+FFFD.
    static func string(fromFile data: Data) -> String {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch detectEncoding(bytes) {
            case .bytes(let bomLength):
                let body = UnsafeBufferPointer(rebasing: bytes[bomLength...])
                return isValidUTF8(body) ? String(decoding: body, as: UTF8.self) : String(decoding: windows1252(body), as: UTF8.self)
            case .utf16(let bigEndian, let bomLength):
                let text = String(decoding: utf8(fromUTF16: UnsafeBufferPointer(rebasing: bytes[bomLength...]), bigEndian: bigEndian), as: UTF8.self)
                return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
            }
        }
    }

    /// Converts UTF-16 bytes to UTF-8; unpaired surrogates and a trailing odd byte become U+FFFD.
    static func utf8(fromUTF16 bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2 + bytes.count / 8)
        let units = bytes.count / 2
        @inline(__always) func unit(_ k: Int) -> UInt32 {
            let a = UInt32(bytes[2 * k])
            let b = UInt32(bytes[2 * k + 1])
            return bigEndian ? (a << 8 | b) : (b << 8 | a)
        }
        var k = 0
        while k < units {
            var scalar = unit(k)
            k += 1
            if scalar >= 0xD800 && scalar <= 0xDBFF, k < units {
                let low = unit(k)
                if low >= 0xDC00 && low <= 0xDFFF {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    k += 1
                }
            }
            if scalar >= 0xD800 && scalar <= 0xDFFF { scalar = 0xFFFD }
            appendUTF8(scalar, to: &out)
        }
        if bytes.count % 2 == 1 { appendUTF8(0xFFFD, to: &out) }
        return out
    }

    /// Converts one value's bytes from `charset` to UTF-8, in place.
    ///
    /// Bytes that are not valid in the declared charset are read as
    /// Windows-1252 (whose undefined bytes map to the Latin-1 code point), so
    /// conversion never fails and never drops a byte. ASCII is left as it is.
    static func convertToUTF8(_ bytes: inout [UInt8], from charset: TextCharset) {
        let converted: [UInt8]? = bytes.withUnsafeBufferPointer { buffer in
            if isASCII(buffer) && charset != .foundation(.iso2022JP) { return nil }
            switch charset {
            case .utf8:
                return isValidUTF8(buffer) ? nil : windows1252(buffer)
            case .latin1:
                return latin1(buffer)
            case .windows1252:
                return windows1252(buffer)
            case .foundation(let encoding):
                if let text = String(data: Data(buffer: buffer), encoding: encoding) { return Array(text.utf8) }
                return windows1252(buffer)
            }
        }
        if let converted { bytes = converted }
    }

    /// Whether every byte is below 0x80 (checked eight bytes at a time).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Whether the bytes are well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var scalar: UInt32
            let minimum: UInt32
            switch b {
            case 0xC0...0xDF: (length, scalar, minimum) = (2, UInt32(b & 0x1F), 0x80)
            case 0xE0...0xEF: (length, scalar, minimum) = (3, UInt32(b & 0x0F), 0x800)
            case 0xF0...0xF7: (length, scalar, minimum) = (4, UInt32(b & 0x07), 0x10000)
            default: return false
            }
            guard i + length <= n else { return false }
            for k in 1..<length {
                let c = bytes[i + k]
                guard c & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return false }
            i += length
        }
        return true
    }

    /// ISO-8859-1 to UTF-8: each byte is the Unicode scalar of the same value.
    static func latin1(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes { appendUTF8(UInt32(b), to: &out) }
        return out
    }

    /// Windows-1252 to UTF-8; the five bytes it leaves undefined keep their Latin-1 meaning.
    static func windows1252(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes {
            let scalar = b >= 0x80 && b <= 0x9F ? UInt32(cp1252High[Int(b) - 0x80]) : UInt32(b)
            appendUTF8(scalar, to: &out)
        }
        return out
    }

    /// Code points of Windows-1252 bytes 0x80–0x9F (undefined ones as Latin-1 C1 controls).
    static let cp1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    @inline(__always)
    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
