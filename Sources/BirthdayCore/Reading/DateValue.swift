/// The result of reading a date value from a contact export.
public enum DateValue: Hashable, Sendable {
    /// A usable date.
    case date(EventDate)
    /// Text that is not a usable date; kept as written, reported, and given no reminders.
    case invalid(String)
    /// An empty value or a placeholder that means "no date" (Outlook's `0/0/00`).
    case none
}

extension DateValue {
    /// Reads a vCard `BDAY`/`ANNIVERSARY` value ([RFC 6350 §4.3](https://www.rfc-editor.org/rfc/rfc6350#section-4.3),
    /// vCard 3 and 2.1 forms).
    ///
    /// Accepted: `YYYY-MM-DD`, `YYYYMMDD`, `--MMDD`, `--MM-DD`, each optionally
    /// followed by a time part (`T231000Z`, `T14:30-05:00`, or after a space).
    /// The time part never moves the date: `19531015T231000Z` is October 15
    /// in every zone. Years 1604 and 0000 are placeholders for "no year".
    /// Anything else (a 3-digit year, `1990-02-30`, free text) is `.invalid`.
    ///
    /// - Parameter omitYear: the `X-APPLE-OMIT-YEAR` parameter's value, if present:
    ///   when it equals the written year, the year is unknown.
    public static func vCard(_ raw: String, omitYear: Int? = nil) -> DateValue {
        var raw = raw
        return raw.withUTF8 { vCard(utf8: $0, omitYear: omitYear) }
    }

    /// ``vCard(_:omitYear:)`` on the UTF-8 bytes of the value.
    static func vCard(utf8 input: UnsafeBufferPointer<UInt8>, omitYear: Int? = nil) -> DateValue {
        // Trim spaces, tabs, line breaks and no-break spaces (U+00A0, C2 A0 in UTF-8).
        @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var lower = 0
        var upper = input.count
        while lower < upper {
            if isSpace(input[lower]) {
                lower += 1
            } else if input[lower] == 0xC2 && lower + 1 < upper && input[lower + 1] == 0xA0 {
                lower += 2
            } else {
                break
            }
        }
        while upper > lower {
            if isSpace(input[upper - 1]) {
                upper -= 1
            } else if upper - 2 >= lower && input[upper - 2] == 0xC2 && input[upper - 1] == 0xA0 {
                upper -= 2
            } else {
                break
            }
        }
        if lower == upper { return .none }
        let bytes = UnsafeBufferPointer(rebasing: input[lower..<upper])
        let invalid = DateValue.invalid(String(decoding: bytes, as: UTF8.self))
        // Split off a time part: after "T"/"t" or a space, once the date part is complete.
        var end = bytes.count
        var i = 4
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "T") || b == UInt8(ascii: "t") || b == UInt8(ascii: " ") {
                end = i
                break
            }
            i += 1
        }
        if end < bytes.count {
            let time = bytes[(end + 1)...]
            guard !time.isEmpty, time.allSatisfy(isTimeByte) else { return invalid }
        }
        let date = bytes[..<end]
        func number(_ slice: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
            guard !slice.isEmpty, slice.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return slice.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        let s = date.startIndex
        let dash = UInt8(ascii: "-")
        var year: Int?
        var month: Int?
        var day: Int?
        switch date.count {
        case 10 where date[s + 4] == dash && date[s + 7] == dash:  // YYYY-MM-DD
            year = number(date[s..<s + 4])
            month = number(date[s + 5..<s + 7])
            day = number(date[s + 8..<s + 10])
            guard year != nil else { return invalid }
        case 8 where date[s] == dash && date[s + 1] == dash:  // 8 characters after "--" is no known form
            return invalid
        case 8:  // YYYYMMDD
            year = number(date[s..<s + 4])
            month = number(date[s + 4..<s + 6])
            day = number(date[s + 6..<s + 8])
            guard year != nil else { return invalid }
        case 7 where date[s] == dash && date[s + 1] == dash && date[s + 4] == dash:  // --MM-DD
            month = number(date[s + 2..<s + 4])
            day = number(date[s + 5..<s + 7])
        case 6 where date[s] == dash && date[s + 1] == dash:  // --MMDD
            month = number(date[s + 2..<s + 4])
            day = number(date[s + 4..<s + 6])
        default:
            return invalid
        }
        guard let month, let day else { return invalid }
        if let omitYear, year == omitYear { year = nil }
        guard let value = EventDate(year: year, month: month, day: day) else { return invalid }
        return .date(value)
    }

    /// Characters a time part may hold: digits, `:`, a zone (`Z`, `+`, `-`) and fractions (`.` `,`).
    @inline(__always)
    private static func isTimeByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "Z"),
            UInt8(ascii: "z"), UInt8(ascii: "."), UInt8(ascii: ","):
            true
        default:
            false
        }
    }
}

extension DateValue {
    /// The problem message for a date value that could not be read, saying
    /// what is missing when the value is a reduced-precision vCard 4 date
    /// ([RFC 6350 §4.3.1](https://www.rfc-editor.org/rfc/rfc6350#section-4.3.1)):
    /// `1985-04` and `--04` have no day, `---15` has no month, `1985` only a
    /// year. Anything else "is not a date".
    ///
    /// - Parameters:
    ///   - property: the property's name, such as `BDAY`.
    ///   - shown: the value as it may be quoted (shortened).
    ///   - raw: the value as written.
    static func problem(property: String, shown: String, raw: String) -> String {
        let text = raw.trimmingWhitespace()
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { bytes[$0] >= 48 && bytes[$0] <= 57 } }
        let dash = UInt8(ascii: "-")
        let missing: String?
        switch bytes.count {
        case 7 where digits(0..<4) && bytes[4] == dash && digits(5..<7): missing = "has a year and a month but no day"  // 1985-04
        case 6 where digits(0..<6): missing = "has a year and a month but no day"  // 198504
        case 4 where digits(0..<4): missing = "has only a year"  // 1985
        case 4 where bytes[0] == dash && bytes[1] == dash && digits(2..<4): missing = "has a month but no day"  // --04
        case 5 where bytes[0] == dash && bytes[1] == dash && bytes[2] == dash && digits(3..<5): missing = "has a day but no month"  // ---15
        default: missing = nil
        }
        guard let missing else { return "\(property) '\(shown)' is not a date" }
        return "\(property) '\(shown)' \(missing); a reminder needs both"
    }
}
