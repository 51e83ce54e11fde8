import BirthdayCore

/// Text put into an HTML page: every character that could end a text or an
/// attribute (`&`, `<`, `>`, `"`, `'`) written as a character reference, so
/// a name such as `<script>` is shown as typed and never runs.
///
/// Contact text is hostile: it goes through ``SafeText/line(_:maxCharacters:)``
/// first (one line, no control characters), then through ``escaped(_:)``.
public enum HTMLText {
    /// The start of one of the server's pages, up to and including `<main>`:
    /// the language, a phone's viewport, light and dark, no referrer, the
    /// stylesheet and the icon from the same server, and `title` (escaped
    /// here) as the page's title and its heading. `noIndex` asks search
    /// engines to leave the page out (a page a link opens for strangers).
    public static func pageStart(title: String, language: String, stylesheet: String, bodyClass: String, noIndex: Bool = false) -> String {
        let title = escaped(title)
        let robots = noIndex ? "<meta name=\"robots\" content=\"noindex\">\n" : ""
        return """
            <!DOCTYPE html>
            <html lang="\(escaped(language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            \(robots)<title>\(title)</title>
            <link rel="stylesheet" href="\(escaped(stylesheet))">
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            </head>
            <body class="\(escaped(bodyClass))">
            <header><h1>\(title)</h1></header>
            <main>

            """
    }

    /// `text` safe inside an element or a quoted attribute value.
    public static func escaped(_ text: some StringProtocol) -> String {
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
        return out
    }

    /// A person's name as a page shows it: one line without control
    /// characters, at most 200 characters, escaped.
    public static func name(_ text: some StringProtocol) -> String {
        escaped(SafeText.line(text, maxCharacters: 200))
    }
}

/// A QR code as an SVG image drawn inside a page: black modules on a white
/// square with the quiet zone of ``QRBlocks/quietZone`` modules, one path of
/// horizontal runs, and no `style` (a strict Content-Security-Policy forbids
/// inline styles; presentation attributes are not styles).
public enum QRSVG {
    /// The `<svg>` element for a code of `size` modules, `isDark(x, y)` telling
    /// which are dark; `label` (already escaped) is its accessible name.
    public static func svg(size: Int, label: String, isDark: (Int, Int) -> Bool) -> String {
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
