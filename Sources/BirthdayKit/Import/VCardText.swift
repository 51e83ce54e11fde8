/// vCard text-value escapes and structured values
/// ([RFC 6350 §3.4](https://www.rfc-editor.org/rfc/rfc6350#section-3.4)).
///
/// `\,` `\;` `\\` and `\n`/`\N` (a line break) are escapes; any other
/// backslash is kept as it is, because older writers put stray backslashes
/// in values and the text they meant still reads best with them.
enum VCardText {
    /// The value with its escapes resolved.
    static func unescape(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let b = iterator.next() {
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard let next = iterator.next() else {
                out.append(b)
                break
            }
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

    /// Splits on every `separator` not preceded by an escaping backslash; the parts keep their escapes.
    static func split(_ text: Substring, on separator: UInt8) -> [Substring] {
        var parts: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var i = start
        var escaped = false
        while i < utf8.endIndex {
            let b = utf8[i]
            if escaped {
                escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == separator {
                parts.append(text[start..<i])
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        parts.append(text[start..<utf8.endIndex])
        return parts
    }

    /// A component of a structured value that may be a comma list (`Jr.,M.D.`):
    /// the items unescaped, trimmed and joined with single spaces.
    static func listComponent(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: ",")) else { return unescape(text) }
        return split(text, on: UInt8(ascii: ","))
            .map { unescape($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `N` ([RFC 6350 §6.2.2](https://www.rfc-editor.org/rfc/rfc6350#section-6.2.2)):
    /// family; given; additional; prefix; suffix, each possibly a comma list.
    static func nameParts(_ text: String) -> NameParts {
        let parts = split(text[...], on: UInt8(ascii: ";"))
        func part(_ k: Int) -> String { k < parts.count ? listComponent(parts[k]) : "" }
        return NameParts(prefix: part(3), given: part(1), additional: part(2), family: part(0), suffix: part(4))
    }
}
