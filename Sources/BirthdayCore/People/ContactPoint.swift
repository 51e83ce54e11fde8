/// One way to reach a person, as their card gives it: an e-mail address
/// (`EMAIL`, a CSV e-mail column), a phone number (`TEL`, a CSV phone
/// column) or an instant-messaging address (`IMPP`: `xmpp:`, `sip:`,
/// `matrix:` …).
///
/// The ``value`` is what the card says (without a `mailto:` or `tel:`
/// prefix), checked by ``read(_:_:)``; ``uri`` is what a handler opens.
/// A person's contact points are kept in the card's order of preference
/// (``ContactPoints/ordered(_:)``). Never logged.
public struct ContactPoint: Hashable, Sendable {
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case email
        case phone
        case impp

        /// The order of kinds when the card prefers none: e-mail, then instant messaging, then phone.
        var rank: Int {
            switch self {
            case .email: 0
            case .impp: 1
            case .phone: 2
            }
        }
    }

    public var kind: Kind
    public var value: String

    /// A point as stored: accepted once, it is not checked again.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// The longest value kept; a longer one is reported, not kept.
    public static let maxLength = 256

    /// The point `raw` gives for `kind`, trimmed (a `mailto:` or `tel:` prefix
    /// removed), or why it is not one, as a sentence an import problem ends with:
    /// an e-mail address needs one `@` with text on both sides and no space,
    /// `<`, `>`, `,`, `;`, `:` or `"` (one address, not a list), a
    /// phone number a digit and nothing but digits, spaces and `+ - . ( ) / * #`
    /// (a `;ext=` and other `tel:` parameters are kept), an instant-messaging
    /// address a URI scheme (`xmpp:`) and text after it. No control character
    /// and at most ``maxLength`` characters in any.
    public static func read(_ kind: Kind, _ raw: String) -> Result<ContactPoint, Rejection> {
        // On the string's own UTF-8 bytes, not a copy: every import reads one per EMAIL and TEL line.
        var raw = raw
        return raw.withUTF8 { read(kind, bytes: $0) }
    }

    private static func read(_ kind: Kind, bytes: UnsafeBufferPointer<UInt8>) -> Result<ContactPoint, Rejection> {
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes, start) { start += 1 }
        while end > start && isSpace(bytes, end - 1) { end -= 1 }
        guard start < end else { return .failure(.empty) }
        guard end - start <= maxLength else { return .failure(.tooLong) }
        var ascii = true
        for i in start..<end where bytes[i] < 0x20 || bytes[i] == 0x7F || bytes[i] >= 0x80 {
            guard bytes[i] >= 0x80 else { return .failure(.notValid(kind)) }
            ascii = false
        }
        if !ascii {
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            guard !text.unicodeScalars.contains(where: SafeText.isUnsafe) else { return .failure(.notValid(kind)) }
        }
        func hasPrefix(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard end - start >= count else { return false }
            for k in 0..<count where ASCII.upperCased(bytes[start + k]) != ASCII.upperCased(prefix.utf8Start[k]) { return false }
            return true
        }
        switch kind {
        case .email:
            if hasPrefix("mailto:") { start += 7 }
            var at: Int?
            for i in start..<end {
                switch bytes[i] {
                case UInt8(ascii: "@"):
                    guard at == nil else { return .failure(.notValid(kind)) }
                    at = i
                case 0x20, 0x09, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"),
                    UInt8(ascii: "\""):
                    return .failure(.notValid(kind))
                case 0xC2 where i + 1 < end && bytes[i + 1] == 0xA0:
                    return .failure(.notValid(kind))
                default:
                    continue
                }
            }
            guard let at, at > start, at < end - 1 else { return .failure(.notValid(kind)) }
        case .phone:
            if hasPrefix("tel:") {
                start += 4
                while start < end && isSpace(bytes, start) { start += 1 }
            }
            var digits = false
            var i = start
            while i < end && bytes[i] != UInt8(ascii: ";") {
                let b = bytes[i]
                if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                    digits = true
                } else if b == 0xC2 && i + 1 < end && bytes[i + 1] == 0xA0 {
                    i += 1
                } else if !Self.phoneSeparators.contains(b) {
                    return .failure(.notValid(kind))
                }
                i += 1
            }
            guard digits else { return .failure(.notValid(kind)) }
        case .impp:
            var colon = start
            while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon > start, colon < end - 1, Self.isScheme(bytes[start..<colon]) else { return .failure(.notValid(kind)) }
            for i in start..<end where bytes[i] == 0x20 || bytes[i] == 0x09 || (bytes[i] == 0xC2 && i + 1 < end && bytes[i + 1] == 0xA0) {
                return .failure(.notValid(kind))
            }
        }
        return .success(ContactPoint(kind: kind, value: String(decoding: bytes[start..<end], as: UTF8.self)))
    }

    /// A space, a tab, a line break, or a no-break space (`C2 A0`) starting at `i` or ending at it.
    private static func isSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        let b = bytes[i]
        if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { return true }
        if b == 0xC2 { return i + 1 < bytes.count && bytes[i + 1] == 0xA0 }
        return b == 0xA0 && i > 0 && bytes[i - 1] == 0xC2
    }

    private static let phoneSeparators: Set<UInt8> = Set(" +-.()/*#".utf8)

    /// A letter, then letters, digits, `+ - .` (RFC 3986 §3.1).
    private static func isScheme(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = bytes.first, ASCII.upperCased(first) >= UInt8(ascii: "A"), ASCII.upperCased(first) <= UInt8(ascii: "Z") else {
            return false
        }
        return bytes.allSatisfy { b in
            let u = ASCII.upperCased(b)
            return (u >= UInt8(ascii: "A") && u <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == 0x2B || b == 0x2D
                || b == 0x2E
        }
    }

    /// Why a value is not a contact point.
    public enum Rejection: Error, Sendable, Hashable {
        case empty
        case tooLong
        case notValid(Kind)

        /// Said after the property and its quoted value.
        public var reason: String {
            switch self {
            case .empty: "is empty"
            case .tooLong: "is longer than \(ContactPoint.maxLength) characters; left out"
            case .notValid(.email): "is not an e-mail address; left out"
            case .notValid(.phone): "is not a phone number; left out"
            case .notValid(.impp): "is not an address with a scheme such as xmpp: or sip:; left out"
            }
        }
    }

    /// The URI that reaches the point: `mailto:` with the address
    /// percent-encoded where RFC 6068 asks, `tel:` with the number's digits
    /// only (visual separators and spaces removed; a global number keeps its
    /// `+`, RFC 3966), or the instant-messaging URI as written.
    public var uri: String {
        switch kind {
        case .email:
            return "mailto:" + Self.percentEncoded(value.utf8, keeping: Self.addressBytes)
        case .phone:
            let bytes = Array(value.utf8)
            let split = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var digits: [UInt8] = []
            for b in bytes[..<split]
            where (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "*") || b == UInt8(ascii: "#")
                || (b == UInt8(ascii: "+") && digits.isEmpty)
            {
                digits.append(b)
            }
            let rest = bytes[split...].filter { $0 != 0x20 && $0 != 0x09 }
            return "tel:" + Self.percentEncoded(digits, keeping: Self.telBytes) + Self.percentEncoded(rest, keeping: Self.telParameterBytes)
        case .impp:
            return Self.percentEncoded(value.utf8, keeping: Self.uriBytes)
        }
    }

    /// The ``uri`` with a subject for a `mailto:` (`?subject=Happy%20birthday%21`);
    /// other schemes carry none.
    public func uri(subject: String?) -> String {
        guard kind == .email, let subject, !subject.isEmpty else { return uri }
        return uri + "?subject=" + Self.percentEncoded(subject.utf8, keeping: Self.unreservedBytes)
    }

    /// The URI scheme, lower-cased: `mailto`, `tel`, `xmpp`, `sip`, `matrix`.
    public var scheme: String {
        switch kind {
        case .email: "mailto"
        case .phone: "tel"
        case .impp: Self.scheme(of: Substring(value))?.lowercased() ?? ""
        }
    }

    /// `xmpp` in `xmpp:ada@example.org`: a letter, then letters, digits, `+ - .` (RFC 3986 §3.1).
    static func scheme(of text: Substring) -> Substring? {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme
    }

    /// Which ASCII bytes stay as they are, by byte (128 entries): the rest is `%XX`.
    private static func table(_ kept: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 128)
        for b in kept.utf8 { table[Int(b)] = true }
        return table
    }

    private static let unreservedText = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    private static let unreservedBytes = table(unreservedText)
    private static let addressBytes = table(unreservedText + "!$'*+=@^`{|}")
    private static let telBytes = table(unreservedText + "+*#")
    private static let telParameterBytes = table(unreservedText + "+*#;=")
    private static let uriBytes = table(unreservedText + ":/?#[]@!$&'()*+,;=%")

    /// `bytes` with every byte outside `keeping` written as `%XX`.
    static func percentEncoded(_ bytes: some Sequence<UInt8>, keeping: [Bool]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in bytes {
            if b < 0x80 && keeping[Int(b)] {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The contact points of one card as read, before they are checked and ordered.
public enum ContactPoints {
    /// The most a person keeps; a card with more keeps the first in order.
    public static let limit = 20

    /// One `EMAIL`, `TEL` or `IMPP` line, or one CSV cell, as read.
    public struct Candidate: Sendable, Hashable {
        public var kind: ContactPoint.Kind
        public var raw: String
        /// How much the card prefers it: 1 (most) to 100; `nil` when it says nothing.
        public var preference: Int?
        /// The line problems name.
        public var line: Int
        /// The property or column problems name (`EMAIL`, `Mobile Phone`).
        public var property: String

        public init(kind: ContactPoint.Kind, raw: String, preference: Int? = nil, line: Int, property: String) {
            self.kind = kind
            self.raw = raw
            self.preference = preference
            self.line = line
            self.property = property
        }
    }

    /// The valid points of `candidates` in order: those the card prefers
    /// first (by preference, 1 first), then e-mail, instant messaging and
    /// phone; in the card's order otherwise. The same point twice is kept
    /// once, at most ``limit`` are kept. Each value that is not valid gives a
    /// problem at its line (an empty one is skipped silently).
    public static func resolve(_ candidates: [Candidate], file: String, problems: inout [ImportProblem]) -> [ContactPoint] {
        guard !candidates.isEmpty else { return [] }
        var read: [(point: ContactPoint, candidate: Candidate, order: Int)] = []
        for (order, candidate) in candidates.enumerated() {
            switch ContactPoint.read(candidate.kind, candidate.raw) {
            case .success(let point):
                read.append((point, candidate, order))
            case .failure(.empty):
                continue
            case .failure(let rejection):
                let shown = candidate.raw.trimmingWhitespace()
                let quoted = shown.count > 60 ? String(shown.prefix(60)) + "…" : shown
                problems.append(ImportProblem(file: file, line: candidate.line, message: "\(candidate.property) '\(quoted)' \(rejection.reason)"))
            }
        }
        read.sort { a, b in
            let pa = a.candidate.preference ?? Int.max
            let pb = b.candidate.preference ?? Int.max
            if pa != pb { return pa < pb }
            if a.point.kind.rank != b.point.kind.rank { return a.point.kind.rank < b.point.kind.rank }
            return a.order < b.order
        }
        var points: [ContactPoint] = []
        // Each point's URI, lower-cased, once it was needed (then once per point, not once per pair).
        var uris: [String?] = []
        for entry in read {
            // The URI is worked out only against another point of the same kind (most cards have one of each).
            let point = entry.point
            var uri: String?
            var seen = false
            for k in points.indices where points[k].kind == point.kind {
                if points[k].value == point.value {
                    seen = true
                    break
                }
                if uris[k] == nil { uris[k] = points[k].uri.lowercased() }
                if uri == nil { uri = point.uri.lowercased() }
                if uris[k] == uri {
                    seen = true
                    break
                }
            }
            if seen { continue }
            points.append(point)
            uris.append(uri)
            if points.count == limit { break }
        }
        return points
    }
}
