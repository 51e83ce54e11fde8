/// The words of a greeting the owner wrote (`greet add … --message TEXT`),
/// with placeholders for the friend:
///
/// | placeholder | becomes |
/// |---|---|
/// | `{first}` | the first name (``GreetingTemplate/firstName(of:)``) |
/// | `{name}` | the whole name |
/// | `{age}` | the age they turn, in digits |
///
/// `{{` and `}}` write a brace. Anything else between braces is an error
/// naming it (``GreetingTemplateError``), as is a `{` that is never closed,
/// so a typo such as `{frist}` never reaches a friend. The age appears only
/// where the text writes `{age}`: a greeting carries no age unless asked,
/// and a text that asks for it has no words for someone whose year is
/// unknown (``render(first:name:age:)`` is `nil`; the default text goes then).
///
/// Names come from cards, so they are made harmless for the chat services
/// a greeting may reach (``ChatText``) and put on one line (``SafeText``);
/// the owner's own words are kept as written, line breaks included.
public struct GreetingTemplate: Hashable, Sendable, CustomStringConvertible {
    /// One piece of the text.
    public enum Part: Hashable, Sendable {
        case text(String)
        case first
        case name
        case age
    }

    /// The pieces, in order.
    public let parts: [Part]
    /// The text as the owner wrote it (what is stored).
    public let text: String

    /// The longest text accepted, in characters.
    public static let maxLength = 1000

    /// The placeholders, by the word between the braces.
    static let placeholders: [String: Part] = ["first": .first, "name": .name, "age": .age]

    /// Reads `text`.
    ///
    /// - Throws: ``GreetingTemplateError`` for an empty or too long text, a
    ///   control character other than a line break, a `{` never closed, or
    ///   a placeholder that is not one of `{first}`, `{name}`, `{age}`.
    public init(_ text: String) throws(GreetingTemplateError) {
        guard !text.trimmingWhitespace().isEmpty else { throw .empty }
        guard text.count <= Self.maxLength else { throw .tooLong }
        guard !text.unicodeScalars.contains(where: { $0 != "\n" && SafeText.isUnsafe($0) }) else { throw .controlCharacter }
        var parts: [Part] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "{" {
                if next < text.endIndex, text[next] == "{" {
                    literal.append("{")
                    index = text.index(after: next)
                    continue
                }
                guard let close = text[next...].firstIndex(of: "}") else { throw .unclosed }
                let word = String(text[next..<close])
                guard let part = Self.placeholders[word] else { throw .unknownPlaceholder(word) }
                if !literal.isEmpty { parts.append(.text(literal)) }
                literal = ""
                parts.append(part)
                index = text.index(after: close)
            } else if character == "}", next < text.endIndex, text[next] == "}" {
                literal.append("}")
                index = text.index(after: next)
            } else {
                literal.append(character)
                index = next
            }
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
        self.text = text
    }

    public var description: String { text }

    /// Whether the text writes the age (`{age}`).
    public var usesAge: Bool { parts.contains(.age) }

    /// The greeting for a friend: `first` and `name` made harmless and put
    /// on one line, `age` in digits; `nil` when the text writes `{age}` and
    /// `age` is unknown.
    public func render(first: String, name: String, age: Int?) -> String? {
        if usesAge && age == nil { return nil }
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .first: out += Self.harmless(first)
            case .name: out += Self.harmless(name)
            case .age: out += age.map(String.init) ?? ""
            }
        }
        return out
    }

    /// A name as a greeting writes it: one line, its mention and link syntax shown, not parsed.
    public static func harmless(_ name: String) -> String {
        ChatText.harmless(SafeText.line(name))
    }

    /// The first name a greeting calls a friend by: the card's given name,
    /// else the first word of the name (the whole name when it has no
    /// spaces, as Japanese and Chinese names are written).
    public static func firstName(of person: Person) -> String {
        let given = person.nameParts.given.trimmingWhitespace()
        if !given.isEmpty { return given }
        return person.name.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? person.name
    }
}

/// Why a greeting's text (`--message`) was not accepted: one line naming what is wrong.
public enum GreetingTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong
    case controlCharacter
    case unclosed
    case unknownPlaceholder(String)

    public var description: String {
        switch self {
        case .empty: "--message is empty; write the greeting, such as 'Happy birthday, {first}!'"
        case .tooLong: "--message is longer than \(GreetingTemplate.maxLength) characters"
        case .controlCharacter: "--message holds a control character; only line breaks are kept"
        case .unclosed: "--message has a '{' that is never closed; write {{ for a brace"
        case .unknownPlaceholder(let word):
            "--message: {\(SafeText.line(word, maxCharacters: 40))} is not a placeholder; use {first}, {name} or {age} ({{ for a brace)"
        }
    }
}
