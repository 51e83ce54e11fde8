import Foundation

/// The reverse proxy the feed server trusts to say who its client is
/// (`serve --trusted-proxy ADDR`, the `trusted-proxy` setting).
///
/// Behind a proxy every connection comes from the proxy's address, so
/// whatever counts by address (the invitation form's per-address limit,
/// ``InviteRateLimit``) would count every visitor as one. A request that
/// comes from the trusted address is counted by the client the proxy names:
/// - the last address of `X-Forwarded-For` (the one the proxy added; the
///   ones before it are the client's own words), else
/// - the `for=` of the last element of `Forwarded` ([RFC 7239](https://www.rfc-editor.org/rfc/rfc7239)),
///   read only when there is no `X-Forwarded-For`;
/// - else, or when what it names is not an IP address (`unknown`, an
///   obfuscated `_name`), the proxy's own address.
///
/// A request from any other address is counted by that address: its
/// headers are ignored, so a client that reaches the server directly cannot
/// pick the address it is counted as.
public struct TrustedProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's address (``IPAddress/canonical(_:)``).
    public let address: String

    /// `text` as a proxy's address: an IPv4 or IPv6 address (not a name, not a range); `nil` otherwise.
    public init?(_ text: String) {
        guard let address = IPAddress.canonical(text.trimmingWhitespace()) else { return nil }
        self.address = address
    }

    public var description: String { address }

    /// The address a request from `peer` is counted as: the client the
    /// proxy names when `peer` is the proxy, else `peer` itself.
    /// - Parameters:
    ///   - forwardedFor: the request's `X-Forwarded-For` fields, in order.
    ///   - forwarded: its `Forwarded` fields, in order.
    public func client(peer: String, forwardedFor: [String], forwarded: [String]) -> String {
        guard IPAddress.canonical(peer) == address else { return peer }
        let listed = forwardedFor.flatMap { $0.split(separator: ",") }
        if let last = listed.last {
            return IPAddress.canonical(Self.withoutPort(last.trimmingWhitespace())) ?? peer
        }
        let elements = forwarded.flatMap { $0.split(separator: ",") }
        guard let element = elements.last else { return peer }
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace().lowercased() == "for" else { continue }
            var value = parts[1].trimmingWhitespace()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return IPAddress.canonical(Self.withoutPort(value)) ?? peer
        }
        return peer
    }

    /// The host a request from `peer` was sent to as the proxy names it
    /// (the last `X-Forwarded-Host`, else the `host=` of the last element of
    /// `Forwarded`), or `nil` when `peer` is not the proxy or it names none.
    public func forwardedHost(peer: String, forwardedHost: [String], forwarded: [String]) -> String? {
        guard IPAddress.canonical(peer) == address else { return nil }
        if let last = forwardedHost.flatMap({ $0.split(separator: ",") }).last { return last.trimmingWhitespace() }
        guard let element = forwarded.flatMap({ $0.split(separator: ",") }).last else { return nil }
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace().lowercased() == "host" else { continue }
            let value = parts[1].trimmingWhitespace()
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }

    /// An address without the port a proxy may add: `192.0.2.1:4711` → `192.0.2.1`, `[2001:db8::1]:4711` → `2001:db8::1`.
    static func withoutPort(_ text: String) -> String {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<close]) }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}

/// IP addresses in one text form, so that two spellings of an address compare equal.
public enum IPAddress {
    /// `text` as an IP address in canonical form: IPv4 as four decimal
    /// numbers (an IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, as its IPv4
    /// address); IPv6 as RFC 5952 writes it (lower case, no leading zeros,
    /// the longest run of zero groups as `::`). A zone (`%eth0`) is dropped.
    /// `nil` for anything else.
    public static func canonical(_ text: some StringProtocol) -> String? {
        var text = Substring(text)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        if !text.contains(":") { return ipv4(text).map { $0.map(String.init).joined(separator: ".") } }
        guard let groups = ipv6(text) else { return nil }
        if groups[0..<5].allSatisfy({ $0 == 0 }), groups[5] == 0xFFFF {
            return [groups[6] >> 8, groups[6] & 0xFF, groups[7] >> 8, groups[7] & 0xFF].map(String.init).joined(separator: ".")
        }
        // The longest run of two or more zero groups becomes `::` (the first, when two are as long).
        var best: (start: Int, length: Int) = (0, 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.length)...].joined(separator: ":")
    }

    /// Four decimal numbers 0–255 (no leading zeros but `0` itself).
    private static func ipv4(_ text: Substring) -> [UInt16]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt16] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), part == "0" || !part.hasPrefix("0"), let value = UInt16(part),
                value <= 255
            else { return nil }
            out.append(value)
        }
        return out
    }

    /// Eight 16-bit groups, with `::` and a dotted IPv4 tail as RFC 4291 allows.
    private static func ipv6(_ text: Substring) -> [UInt16]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, last: Bool) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var out: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if last, index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = ipv4(piece) else { return nil }
                    out += [v4[0] << 8 | v4[1], v4[2] << 8 | v4[3]]
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let value = UInt16(piece, radix: 16) else { return nil }
                    out.append(value)
                }
            }
            return out
        }
        guard let head = groups(halves[0], last: halves.count == 1) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1], last: true), head.count + tail.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
