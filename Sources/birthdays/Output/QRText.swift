import BirthdaySystem

/// A QR code under an address, as commands print it.
enum QRText {
    /// A blank line, the code, and `note` under it when there is one.
    static func block(for text: String, note: String?) throws -> String {
        let code: QRCode
        do {
            code = try QRCode(encoding: text)
        } catch {
            throw CLIError(error.description)
        }
        return "\n" + code.lines.joined(separator: "\n") + (note.map { "\n" + $0 } ?? "")
    }
}
