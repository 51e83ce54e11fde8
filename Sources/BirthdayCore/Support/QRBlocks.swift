/// Draws a QR code's modules as text, two rows of modules per line, with
/// the UTF-8 half blocks `qrencode -t UTF8` uses: `█` (both light), `▀`
/// (the upper light), `▄` (the lower light) and a space (both dark).
///
/// Rules:
/// - Light modules are the drawn ones, as with `qrencode -t UTF8`: on the
///   usual light-on-dark terminal the code then reads dark on light, as
///   printed codes do, and it survives copy and paste and terminals without
///   colour (no escape sequences).
/// - A quiet zone of ``quietZone`` light modules surrounds the code, the 4
///   the QR standard asks for and `qrencode` draws (readers find the code by
///   it): a webcal address with its 32-digit token (69 bytes, version 5 at
///   level M, 37 modules) is 45 columns and 23 lines.
/// - Every line has the same number of characters; none ends in a space
///   that a terminal or an editor could trim, because the quiet zone is light.
public enum QRBlocks {
    /// The light margin around the code, in modules.
    public static let quietZone = 4

    /// The lines for a square of `size` modules, `isDark(x, y)` telling which
    /// are dark (x to the right, y down, from 0).
    public static func lines(size: Int, quietZone: Int = QRBlocks.quietZone, isDark: (Int, Int) -> Bool) -> [String] {
        let total = size + 2 * quietZone
        func light(_ x: Int, _ y: Int) -> Bool {
            let (cx, cy) = (x - quietZone, y - quietZone)
            guard cx >= 0, cy >= 0, cx < size, cy < size else { return true }
            return !isDark(cx, cy)
        }
        var lines: [String] = []
        var y = 0
        while y < total {
            var line = ""
            for x in 0..<total {
                let upper = light(x, y)
                // Past the last row: dark, so an odd height ends in upper halves.
                let lower = y + 1 < total ? light(x, y + 1) : false
                line.append(upper ? (lower ? "█" : "▀") : (lower ? "▄" : " "))
            }
            lines.append(line)
            y += 2
        }
        return lines
    }
}
