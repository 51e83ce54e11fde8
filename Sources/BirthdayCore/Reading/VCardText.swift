/// vCard text-value escapes and structured values
/// ([RFC 6350 §3.4](https://www.rfc-editor.org/rfc/rfc6350#section-3.4)),
/// read from UTF-8 bytes.
///
/// `\,` `\;` `\\` and `\n`/`\N` (a line break) are escapes; any other
/// backslash is kept as it is, because older writers put stray backslashes
/// in values and the text they meant still reads best with them.
enum VCardText {
    /// The text of `bytes[start..<end]` with its escapes resolved.
    static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var i = start
        while i < end && bytes[i] != UInt8(ascii: "\\") { i += 1 }
        if i == end { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < end {
            let b = bytes[i]
            i += 1
            guard b == UInt8(ascii: "\\"), i < end else {
                out.append(b)
                continue
            }
            let next = bytes[i]
            i += 1
            switch next {
            case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\\"): out.append(next)
            case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(UInt8(ascii: "\n"))
            default:
                out.append(b)
                out.append(next)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The ranges between `separator`s in `bytes[start..<end]` that are not
    /// escaped with a backslash, at most `limit` of them (the last one runs to `end`).
    static func components(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, separator: UInt8, limit: Int = .max) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        parts.reserveCapacity(min(limit, 6))
        var partStart = start
        var i = start
        while i < end && parts.count < limit - 1 {
            let b = bytes[i]
            if b == UInt8(ascii: "\\") {
                i += 2
                continue
            }
            if b == separator {
                parts.append(partStart..<i)
                partStart = i + 1
            }
            i += 1
        }
        parts.append(partStart..<max(partStart, end))
        return parts
    }

    /// A component of a structured value that may be a comma list (`Jr.,M.D.`):
    /// the items unescaped, trimmed and joined with single spaces.
    static func listComponent(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let items = components(bytes, range.lowerBound, range.upperBound, separator: UInt8(ascii: ","))
        guard items.count > 1 else { return unescaped(bytes, range.lowerBound, range.upperBound) }
        return items.map { unescaped(bytes, $0.lowerBound, $0.upperBound).trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `N` ([RFC 6350 §6.2.2](https://www.rfc-editor.org/rfc/rfc6350#section-6.2.2)):
    /// family; given; additional; prefix; suffix, each possibly a comma list.
    static func nameParts(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> NameParts {
        let parts = components(bytes, start, end, separator: UInt8(ascii: ";"), limit: 6)
        func part(_ k: Int) -> String {
            guard k < parts.count, !parts[k].isEmpty else { return "" }
            return listComponent(bytes, parts[k])
        }
        return NameParts(prefix: part(3), given: part(1), additional: part(2), family: part(0), suffix: part(4))
    }

    /// Whether `bytes[start..<end]`, trimmed of spaces and tabs, equals `upper` ignoring ASCII case.
    static func trimmedEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ upper: StaticString) -> Bool {
        guard let base = bytes.baseAddress else { return upper.utf8CodeUnitCount == 0 }
        let (a, b) = ASCII.trimmed(base, start, end)
        return ASCII.equalsUpperCased(base, a, b, upper)
    }
}
