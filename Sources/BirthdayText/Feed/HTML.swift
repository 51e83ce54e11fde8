import BirthdayCore

/// HTML that is already escaped: the only thing the server's pages
/// (``YearPage``, ``InvitePage``) are made of.
///
/// A value comes from three places only: a literal in the source (the
/// markup the code writes, `"<p class=\"done\">"`), ``init(escaping:)``,
/// which writes every character that could end a text or an attribute
/// (`&`, `<`, `>`, `"`, `'`) as a character reference, and an interpolation,
/// which escapes every value that is not `HTML` already:
///
/// ```swift
/// let line: HTML = "<li class=\"name\">\(person.name)</li>"   // the name is escaped
/// page += line                                                  // HTML + HTML
/// ```
///
/// So a missing escape does not compile: there is no initializer from a
/// `String` value (the literal type is `StaticString`, which only a literal
/// makes), ``+(_:_:)`` and ``+=(_:_:)`` take `HTML` on both sides, and a
/// `String` interpolated is escaped, never pasted. `page += name` with a
/// `String` name is a type error; `"\(name)"` is the escaped name. A name
/// such as `<script>` is shown as typed and never runs.
///
/// Contact text is hostile: a name goes through ``name(_:)`` (one line, no
/// control characters, at most 200 characters, escaped).
public struct HTML: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup, ready to be sent.
    public private(set) var markup: String

    /// Markup written in the source.
    public init(stringLiteral literal: StaticString) {
        markup = literal.description
    }

    /// `text` escaped: safe inside an element or a quoted attribute value.
    public init(escaping text: some StringProtocol) {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        markup = out
    }

    public init(stringInterpolation: StringInterpolation) {
        markup = stringInterpolation.markup
    }

    /// Builds `HTML` from literals (kept) and values (escaped unless they are `HTML`).
    public struct StringInterpolation: StringInterpolationProtocol {
        var markup = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// A literal part of the source: kept as written.
        public mutating func appendLiteral(_ literal: StaticString) {
            markup += literal.description
        }

        /// HTML already: kept as it is.
        public mutating func appendInterpolation(_ html: HTML) {
            markup += html.markup
        }

        /// Any other value (a `String`, a number, a date): its text, escaped.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            markup += HTML(escaping: value.description).markup
        }
    }

    /// The markup.
    public var description: String { markup }

    /// Nothing.
    public static let empty: HTML = ""

    public var isEmpty: Bool { markup.isEmpty }

    /// A person's name as a page shows it: one line without control
    /// characters, at most 200 characters, escaped.
    public static func name(_ text: some StringProtocol) -> HTML {
        HTML(escaping: SafeText.line(text, maxCharacters: 200))
    }

    public static func + (left: HTML, right: HTML) -> HTML {
        var joined = left
        joined += right
        return joined
    }

    public static func += (left: inout HTML, right: HTML) {
        left.markup += right.markup
    }

    /// `html` `count` times.
    public static func repeating(_ html: HTML, count: Int) -> HTML {
        var out = HTML.empty
        for _ in 0..<max(0, count) { out += html }
        return out
    }

    /// The start of one of the server's pages, up to and including `<main>`:
    /// the language, a phone's viewport, light and dark, no referrer, the
    /// stylesheet and the icon from the same server, and `title` as the
    /// page's title and its heading. `noIndex` asks search engines to leave
    /// the page out (a page a link opens for strangers).
    public static func pageStart(title: String, language: String, stylesheet: String, bodyClass: String, noIndex: Bool = false) -> HTML {
        let robots: HTML = noIndex ? "<meta name=\"robots\" content=\"noindex\">\n" : ""
        return """
            <!DOCTYPE html>
            <html lang="\(language)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            \(robots)<title>\(title)</title>
            <link rel="stylesheet" href="\(stylesheet)">
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            </head>
            <body class="\(bodyClass)">
            <header><h1>\(title)</h1></header>
            <main>

            """
    }
}

extension Sequence<HTML> {
    /// The elements one after another, `separator` between them.
    public func joined(separator: HTML = .empty) -> HTML {
        var out = HTML.empty
        var first = true
        for html in self {
            if !first { out += separator }
            out += html
            first = false
        }
        return out
    }
}

/// A QR code as an SVG image drawn inside a page: black modules on a white
/// square with the quiet zone of ``QRBlocks/quietZone`` modules, one path of
/// horizontal runs, and no `style` (a strict Content-Security-Policy forbids
/// inline styles; presentation attributes are not styles).
public enum QRSVG {
    /// The `<svg>` element for a code of `size` modules, `isDark(x, y)` telling
    /// which are dark; `label` (escaped here) is its accessible name.
    public static func svg(size: Int, label: String, isDark: (Int, Int) -> Bool) -> HTML {
        let quiet = QRBlocks.quietZone
        let total = size + 2 * quiet
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x, y) else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < size, isDark(x + run, y) { run += 1 }
                path += "M\(x + quiet) \(y + quiet)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" class="qr" viewBox="0 0 \(total) \(total)" role="img" aria-label="\(label)" \
            shape-rendering="crispEdges"><rect width="\(total)" height="\(total)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
