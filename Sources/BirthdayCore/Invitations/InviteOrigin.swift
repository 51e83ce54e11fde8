import Foundation

/// Whether an answer to an invitation's form was sent by the form itself
/// or by another site's page (a cross-site `POST`, which a third party
/// could make its visitors' browsers send from many addresses).
///
/// ## Rules
/// - `Sec-Fetch-Site`, which only a browser sets, decides when it is there:
///   `cross-site` or `same-site` is foreign (the page that posted is not the
///   form's own origin), `same-origin` and `none` (a typed address) are not.
/// - Else an `Origin` is foreign unless its host and port are those the request
///   was sent to: its `Host`, or, from the trusted proxy, the host the proxy
///   names (`X-Forwarded-Host`, `Forwarded: host=`); `Origin: null` (a
///   sandboxed or privacy-sensitive context) is foreign too. The scheme is
///   not compared: behind a TLS proxy the browser's `https` page reaches
///   the server over `http`.
/// - Without either header (curl, an old browser) an answer is not foreign:
///   browsers that post across sites send `Origin`.
public enum InviteOrigin {
    /// Whether a `POST` with these headers comes from another site.
    /// - Parameters:
    ///   - origin: its `Origin` field, if any.
    ///   - fetchSite: its `Sec-Fetch-Site` field, if any.
    ///   - hosts: the authorities (`host[:port]`) the request was sent to.
    public static func isForeign(origin: String?, fetchSite: String?, hosts: [String]) -> Bool {
        if let fetchSite {
            return fetchSite.trimmingWhitespace().lowercased() != "same-origin" && fetchSite.trimmingWhitespace().lowercased() != "none"
        }
        guard let origin = origin?.trimmingWhitespace() else { return false }
        guard let authority = authority(ofOrigin: origin) else { return true }
        return !hosts.contains { normalized($0) == authority }
    }

    /// `scheme://host[:port]` as `host[:port]`, lower-cased, without the scheme's default port; `nil` when it is not such an origin.
    static func authority(ofOrigin origin: String) -> String? {
        let lower = origin.lowercased()
        guard let separator = lower.range(of: "://") else { return nil }
        let scheme = lower[..<separator.lowerBound]
        let rest = lower[separator.upperBound...]
        guard !rest.isEmpty, !rest.contains("/") || rest.hasSuffix("/") && rest.dropLast().allSatisfy({ $0 != "/" }) else { return nil }
        var authority = String(rest.hasSuffix("/") ? rest.dropLast() : rest)
        let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        if let defaultPort, authority.hasSuffix(defaultPort) { authority = String(authority.dropLast(defaultPort.count)) }
        return authority.isEmpty ? nil : authority
    }

    /// A `Host` value lower-cased, without a port of 80 or 443 (which a browser never writes into `Origin`).
    static func normalized(_ host: String) -> String {
        var host = host.trimmingWhitespace().lowercased()
        for port in [":80", ":443"] where host.hasSuffix(port) {
            host = String(host.dropLast(port.count))
        }
        return host
    }
}
