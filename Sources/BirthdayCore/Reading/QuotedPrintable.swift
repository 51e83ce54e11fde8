/// Quoted-printable decoding for vCard 2.1 values (`ENCODING=QUOTED-PRINTABLE`,
/// [RFC 2045 §6.7](https://www.rfc-editor.org/rfc/rfc2045#section-6.7)).
package enum QuotedPrintable {
    /// Decodes `=XX` hex escapes (either case) to bytes, in place.
    ///
    /// Soft line breaks (`=` at the end of a physical line) are removed by the
    /// parser while it joins the lines, so a `=` left here is either an escape,
    /// a lone `=` at the very end (dropped), or a stray `=` (kept as it is).
    static func decode(_ bytes: inout [UInt8]) {
        let count = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
            let n = buffer.count
            var read = 0
            var write = 0
            while read < n {
                let b = buffer[read]
                if b == UInt8(ascii: "=") {
                    if read + 2 < n, let hi = hexValue(buffer[read + 1]), let lo = hexValue(buffer[read + 2]) {
                        buffer[write] = hi << 4 | lo
                        write += 1
                        read += 3
                        continue
                    }
                    if read + 1 == n { break }  // a soft break with nothing after it
                }
                buffer[write] = b
                write += 1
                read += 1
            }
            return write
        }
        bytes.removeLast(bytes.count - count)
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
