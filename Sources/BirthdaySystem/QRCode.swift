import BirthdayCore
import BirthdayText
import CQREncode

/// A QR code of a text, made by libqrencode (Debian's libqrencode4, loaded
/// with dlopen the first time: see CQREncode.h): byte mode, error
/// correction level M (15% of the code may be lost), the smallest version
/// that holds the text.
package struct QRCode: Sendable {
    /// Modules per side.
    package let size: Int
    /// Row by row, `true` for a dark module.
    private let modules: [Bool]

    /// Why no code could be made.
    package enum Failure: Error, Sendable, CustomStringConvertible {
        /// libqrencode is not installed (or is not the expected one).
        case libraryMissing(reason: String)
        /// libqrencode could not encode the text (too long for a QR code).
        case notEncoded(String)

        package var description: String {
            switch self {
            case .libraryMissing(let reason):
                "a QR code needs libqrencode (Debian: apt-get install libqrencode4), which could not be loaded: \(reason)"
            case .notEncoded(let text):
                "this text cannot be drawn as a QR code (\(text.utf8.count) bytes)"
            }
        }
    }

    package init(encoding text: String) throws(Failure) {
        var failure: UnsafePointer<CChar>?
        guard let library = cqrencode_load(&failure) else {
            throw .libraryMissing(reason: failure.map { String(cString: $0) } ?? "unknown")
        }
        guard let code = library.pointee.QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw .notEncoded(text)
        }
        defer { library.pointee.QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // Each byte describes one module; its lowest bit is 1 for dark.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module in column `x`, row `y` is dark.
    package func isDark(_ x: Int, _ y: Int) -> Bool { modules[y * size + x] }

    /// The code as lines of UTF-8 half blocks (``QRBlocks``).
    package var lines: [String] { QRBlocks.lines(size: size, isDark: isDark) }
}

extension QRCode {
    /// The `<svg>` drawing of `text`'s code for a web page (``QRSVG``), with
    /// `label` (escaped there) as its accessible name; `nil` when no code can be made.
    package static func svg(encoding text: String, label: String) -> HTML? {
        guard let code = try? QRCode(encoding: text) else { return nil }
        return QRSVG.svg(size: code.size, label: label, isDark: code.isDark)
    }
}
