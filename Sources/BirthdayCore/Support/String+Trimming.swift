extension StringProtocol {
    /// The string without leading and trailing spaces, tabs and line breaks.
    package func trimmingWhitespace() -> String {
        // Most values have nothing to trim: neither end is a byte any of the spaces below starts or ends with.
        let text = String(self)
        if let first = text.utf8.first, let last = text.utf8.last, !Self.mayBeSpace(first), !Self.mayBeSpace(last) { return text }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\u{00A0}" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }

    /// Whether a string may start or end with a space ``trimmingWhitespace()`` removes
    /// at `byte`: space, tab, CR, LF, or the first or last byte of U+00A0 in UTF-8.
    @inline(__always)
    private static func mayBeSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A || byte == 0xC2 || byte == 0xA0
    }
}
