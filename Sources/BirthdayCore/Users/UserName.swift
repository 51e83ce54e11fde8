/// The name of one user of a server that keeps many (`birthdays users add
/// NAME`, `--user NAME`, `BIRTHDAYS_USER`): the name of that user's folder
/// under the users root (``UserLayout``), so it is checked before any path is
/// made of it.
///
/// The rule: 1 to 32 characters, each a lowercase ASCII letter, a digit,
/// `-` or `_`, the first a letter or a digit. So a name is never empty, `.`
/// or `..`, never holds a `/` or a dot (no hidden folder, no `NAME.removed`
/// a kept folder is renamed to), never reads as an option, and two names
/// never differ only by case (the same person typed twice) or by a look-alike
/// letter from another script.
public struct UserName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as typed, once checked.
    public let rawValue: String

    /// The longest name.
    public static let maximumLength = 32

    /// `text` checked against the rule.
    ///
    /// - Throws: ``UserNameError`` saying what is wrong, in a sentence that quotes the text safely.
    public init(_ text: String) throws(UserNameError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumLength else { throw .tooLong(text) }
        for byte in bytes where !Self.allowed(byte) { throw .notAllowed(text) }
        guard let first = bytes.first, first != UInt8(ascii: "-"), first != UInt8(ascii: "_") else { throw .badStart(text) }
        rawValue = text
    }

    /// Whether `text` is a user's name (a folder of the users root named otherwise is no user).
    public static func isValid(_ text: String) -> Bool { (try? UserName(text)) != nil }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: UserName, rhs: UserName) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a text is not a user's name: one sentence, the text shown on one
/// line with its control characters visible (``SafeText``).
public enum UserNameError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong(String)
    case notAllowed(String)
    case badStart(String)

    public var description: String {
        let rule = "a user's name is 1 to 32 lowercase letters, digits, '-' or '_'"
        return switch self {
        case .empty: "a user's name cannot be empty: it is 1 to 32 lowercase letters, digits, '-' or '_'"
        case .tooLong(let text): "'\(SafeText.line(String(text.prefix(40))))…' is too long; " + rule
        case .notAllowed(let text): "'\(SafeText.line(text))' is not a user's name; " + rule + " (no dots, slashes or capitals)"
        case .badStart(let text): "'\(SafeText.line(text))' is not a user's name: it must start with a letter or a digit"
        }
    }
}
