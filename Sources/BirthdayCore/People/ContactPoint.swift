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
        var text = Substring(raw.trimmingWhitespace())
        guard !text.isEmpty else { return .failure(.empty) }
        guard text.utf8.count <= maxLength else { return .failure(.tooLong) }
        guard !text.unicodeScalars.contains(where: SafeText.isUnsafe) else { return .failure(.notValid(kind)) }
        switch kind {
        case .email:
            if text.lowercased().hasPrefix("mailto:") { text = text.dropFirst(7) }
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !text.contains(where: \.isWhitespace),
                !text.contains(where: { "<>,;:\"".contains($0) })
            else { return .failure(.notValid(kind)) }
        case .phone:
            if text.lowercased().hasPrefix("tel:") { text = text.dropFirst(4).drop(while: \.isWhitespace) }
            let number = text.prefix { $0 != ";" }
            guard number.contains(where: \.isASCIIDigit),
                number.allSatisfy({ $0.isASCIIDigit || " +-.()/*#\u{A0}".contains($0) })
            else { return .failure(.notValid(kind)) }
        case .impp:
            guard let scheme = scheme(of: text), text.count > scheme.count + 1, !text.contains(where: \.isWhitespace) else {
                return .failure(.notValid(kind))
            }
        }
        return .success(ContactPoint(kind: kind, value: String(text)))
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
            return "mailto:" + Self.percentEncoded(value, keeping: Self.addressCharacters)
        case .phone:
            let number = value.prefix { $0 != ";" }
            let rest = value.dropFirst(number.count)
            var digits = ""
            for character in number where character.isASCIIDigit || character == "*" || character == "#" || (character == "+" && digits.isEmpty) {
                digits.append(character)
            }
            return "tel:" + Self.percentEncoded(digits, keeping: Self.telCharacters)
                + Self.percentEncoded(rest.filter { !$0.isWhitespace }, keeping: Self.telCharacters.union(";="))
        case .impp:
            return Self.percentEncoded(value, keeping: Self.uriCharacters)
        }
    }

    /// The ``uri`` with a subject for a `mailto:` (`?subject=Happy%20birthday%21`);
    /// other schemes carry none.
    public func uri(subject: String?) -> String {
        guard kind == .email, let subject, !subject.isEmpty else { return uri }
        return uri + "?subject=" + Self.percentEncoded(subject, keeping: Self.unreserved)
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

    private static let unreserved: Set<Character> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    private static let addressCharacters = unreserved.union("!$'*+=@^`{|}")
    private static let telCharacters = unreserved.union("+*#")
    private static let uriCharacters = unreserved.union(":/?#[]@!$&'()*+,;=%")

    /// `text` with every byte of a character outside `keeping` written as `%XX`.
    static func percentEncoded(_ text: some StringProtocol, keeping: Set<Character>) -> String {
        var out = ""
        for character in text {
            if keeping.contains(character) {
                out.append(character)
            } else {
                for byte in String(character).utf8 { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) }
            }
        }
        return out
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
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
        var seen: Set<String> = []
        var points: [ContactPoint] = []
        for entry in read where seen.insert(entry.point.uri.lowercased()).inserted {
            points.append(entry.point)
            if points.count == limit { break }
        }
        return points
    }
}
