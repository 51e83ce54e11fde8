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
        let text = raw.trimmingWhitespace()
        if text.isEmpty { return .none }
        let bytes = Array(text.utf8)
        // Split off a time part: after "T"/"t" or a space, once the date part is complete.
        var end = bytes.count
        for (i, b) in bytes.enumerated() where i >= 4 && (b == UInt8(ascii: "T") || b == UInt8(ascii: "t") || b == UInt8(ascii: " ")) {
            end = i
            break
        }
        if end < bytes.count {
            let time = bytes[(end + 1)...]
            let allowed: Set<UInt8> = Set("0123456789:+-Zz.,".utf8)
            guard !time.isEmpty, time.allSatisfy({ allowed.contains($0) }) else { return .invalid(raw.trimmingWhitespace()) }
        }
        let date = bytes[..<end]
        func number(_ slice: ArraySlice<UInt8>) -> Int? {
            guard !slice.isEmpty, slice.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return slice.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        let s = date.startIndex
        var year: Int?
        var month: Int?
        var day: Int?
        switch date.count {
        case 10 where date[s + 4] == UInt8(ascii: "-") && date[s + 7] == UInt8(ascii: "-"):  // YYYY-MM-DD
            year = number(date[s..<s + 4]); month = number(date[s + 5..<s + 7]); day = number(date[s + 8..<s + 10])
            guard year != nil else { return .invalid(text) }
        case 8 where date[s] == UInt8(ascii: "-") && date[s + 1] == UInt8(ascii: "-"):  // --MMDD? no: --MM-DD is 7
            return .invalid(text)
        case 8:  // YYYYMMDD
            year = number(date[s..<s + 4]); month = number(date[s + 4..<s + 6]); day = number(date[s + 6..<s + 8])
            guard year != nil else { return .invalid(text) }
        case 7 where date[s] == UInt8(ascii: "-") && date[s + 1] == UInt8(ascii: "-") && date[s + 4] == UInt8(ascii: "-"):  // --MM-DD
            month = number(date[s + 2..<s + 4]); day = number(date[s + 5..<s + 7])
        case 6 where date[s] == UInt8(ascii: "-") && date[s + 1] == UInt8(ascii: "-"):  // --MMDD
            month = number(date[s + 2..<s + 4]); day = number(date[s + 4..<s + 6])
        default:
            return .invalid(text)
        }
        guard let month, let day else { return .invalid(text) }
        if let omitYear, year == omitYear { year = nil }
        guard let value = EventDate(year: year, month: month, day: day) else { return .invalid(text) }
        return .date(value)
    }
}
