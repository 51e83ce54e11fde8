import CLibical

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content lines of iCalendar text written as libical writes them, without
/// building libical objects where the text is plain.
///
/// libical 3.0 writes a property as its name, its parameters, `:` and its
/// value, ends the line in CRLF and folds it when it is 73 octets or longer
/// (before the CRLF). A TEXT value has `\`, `;` and `,` escaped with a
/// backslash, an extension (`X-…`) value only `\`; line breaks and other
/// control characters are libical's to write (`\n`, or dropped). So a line
/// whose value holds no control character and which stays under 73 octets
/// escaped is written here byte for byte as libical would; any other goes
/// through libical (``property(_:_:)``), so folding and the rest stay
/// libical's. `CalendarExporterTests` compares the two on every kind of text.
enum ICalLine {
    /// The longest line (without its CRLF) that libical leaves unfolded.
    static let longestUnfolded = 72

    /// How a value is escaped.
    enum Escaping {
        /// TEXT (RFC 5545 §3.3.11): `\`, `;` and `,`.
        case text
        /// An extension property's value, as libical 3.0 writes it: `\` only.
        case extensionValue
    }

    /// Appends `NAME:value` and CRLF to `bytes` when the line is plain (see
    /// above), and returns whether it did; `bytes` is unchanged otherwise.
    static func appendPlain(_ name: String, _ value: String, escaping: Escaping, to bytes: inout [UInt8]) -> Bool {
        let start = bytes.count
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ":"))
        for byte in value.utf8 {
            switch byte {
            case 0..<0x20, 0x7F:
                bytes.removeSubrange(start...)
                return false
            case UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
            case UInt8(ascii: ";"), UInt8(ascii: ","):
                if escaping == .text { bytes.append(UInt8(ascii: "\\")) }
            default:
                break
            }
            bytes.append(byte)
        }
        guard bytes.count - start <= longestUnfolded else {
            bytes.removeSubrange(start...)
            return false
        }
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        return true
    }

    /// libical's text of the property that `make` creates (with the parameters
    /// `configure` adds), folded and ending in CRLF; the property is freed.
    /// `what` names it in the error.
    static func property(
        _ what: String,
        _ make: () -> OpaquePointer?,
        configure: (OpaquePointer) throws(ExportError) -> Void = { _ in }
    ) throws(ExportError) -> [UInt8] {
        guard let property = make() else { throw ExportError(.libical(what: what)) }
        defer { libical.pointee.icalproperty_free(property) }
        try configure(property)
        guard let text = libical.pointee.icalproperty_as_ical_string_r(property) else {
            throw ExportError(.libical(what: "the text of \(what)"))
        }
        defer { libical.pointee.icalmemory_free_buffer(text) }
        let count = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// Appends a TEXT property's line: written here when plain, else made by
    /// libical with `make` from the value.
    static func appendText(
        _ name: String,
        _ value: String,
        to bytes: inout [UInt8],
        _ make: (UnsafePointer<CChar>) -> OpaquePointer?
    ) throws(ExportError) {
        if appendPlain(name, value, escaping: .text, to: &bytes) { return }
        bytes += try property(name) { value.withCString(make) }
    }

    /// Appends an extension property's line `NAME:value`: written here when
    /// plain, else made by libical.
    static func appendExtension(_ name: String, _ value: String, to bytes: inout [UInt8]) throws(ExportError) {
        if appendPlain(name, value, escaping: .extensionValue, to: &bytes) { return }
        bytes += try property(name) {
            guard let property = value.withCString({ libical.pointee.icalproperty_new_x($0) }) else { return nil }
            name.withCString { libical.pointee.icalproperty_set_x_name(property, $0) }
            return property
        }
    }

    /// Appends `NAME;VALUE=DATE:YYYYMMDD` and CRLF, a floating DATE as libical
    /// writes it (years 1…9999, zero-padded to four digits).
    static func appendDate(_ name: String, _ year: Int, _ month: Int, _ day: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: ";VALUE=DATE:".utf8)
        appendDigits(year, count: 4, to: &bytes)
        appendDigits(month, count: 2, to: &bytes)
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Appends `value` (not negative) in decimal, zero-padded to at least `count` digits.
    static func appendDigits(_ value: Int, count: Int, to bytes: inout [UInt8]) {
        var width = 1
        var power = 10
        while power <= value {
            width += 1
            power *= 10
        }
        for _ in width..<max(count, width) { bytes.append(UInt8(ascii: "0")) }
        var divisor = power / 10
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
