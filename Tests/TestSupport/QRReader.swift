import Foundation

/// Reads a QR code printed as UTF-8 half blocks back into its text, as a
/// phone's camera would: the blocks become a picture (light where a block
/// is drawn, the terminal's dark background everywhere else, with a dark
/// margin around the code as a terminal window has), and zbar's `zbarimg`
/// (Debian zbar-tools) decodes it.
public enum QRReader {
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") }
    public static let missing = "needs zbarimg (apt-get install zbar-tools) to read the QR code back"

    /// The text of the code in `lines` (every line of the code, nothing else), or `nil` when zbar finds none.
    public static func decode(_ lines: [String], in directory: TemporaryDirectory, scale: Int = 6, margin: Int = 6) async throws -> String? {
        var rows: [[Bool]] = []  // true = light
        for line in lines {
            var upper: [Bool] = []
            var lower: [Bool] = []
            for character in line {
                switch character {
                case "█":
                    upper.append(true)
                    lower.append(true)
                case "▀":
                    upper.append(true)
                    lower.append(false)
                case "▄":
                    upper.append(false)
                    lower.append(true)
                case " ":
                    upper.append(false)
                    lower.append(false)
                default: return nil
                }
            }
            rows.append(upper)
            rows.append(lower)
        }
        let width = (rows.map(\.count).max() ?? 0) + 2 * margin
        let height = rows.count + 2 * margin
        // PBM (P1): 1 is black.
        var text = "P1\n\(width * scale) \(height * scale)\n"
        for y in 0..<height {
            var row = ""
            for x in 0..<width {
                let (cx, cy) = (x - margin, y - margin)
                let light = cy >= 0 && cy < rows.count && cx >= 0 && cx < rows[cy].count && rows[cy][cx]
                row += String(repeating: light ? "0 " : "1 ", count: scale)
            }
            text += String(repeating: row + "\n", count: scale)
        }
        let picture = try directory.write("code-\(UUID().uuidString).pbm", text)
        let result = try await TestProcess.run(
            ["/usr/bin/zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", picture],
            environment: ["PATH": "/usr/bin:/bin"]
        )
        guard result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .newlines)
    }
}
