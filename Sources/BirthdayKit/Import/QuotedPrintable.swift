/// Quoted-printable decoding for vCard 2.1 values (`ENCODING=QUOTED-PRINTABLE`,
/// [RFC 2045 §6.7](https://www.rfc-editor.org/rfc/rfc2045#section-6.7)).
enum QuotedPrintable {
    /// Decodes `=XX` hex escapes (either case) to bytes.
    ///
    /// Soft line breaks (`=` at the end of a physical line) are removed by the
    /// parser while it joins the lines, so a `=` left here is either an escape,
    /// a lone `=` at the very end (dropped), or a stray `=` (kept as it is).
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        let n = input.count
        while i < n {
            let b = input[i]
            if b == UInt8(ascii: "=") {
                if i + 2 < n, let hi = hexValue(input[i + 1]), let lo = hexValue(input[i + 2]) {
                    out.append(hi << 4 | lo)
                    i += 3
                    continue
                }
                if i + 1 == n { break }  // a soft break with nothing after it
            }
            out.append(b)
            i += 1
        }
        return out
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
