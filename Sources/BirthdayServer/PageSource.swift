import BirthdayCore
import BirthdayText

/// What the page feature serves (``PageController``): the web page for the
/// year under the calendar's token, with the JSON twin's revision (it counts
/// days from today, too).
package protocol PageSource: CalendarSource {
    /// The web page for the year (``YearPage``) as `request` asks for it;
    /// ``FeedSourceNoList`` when none is served (404).
    func page(_ request: PageRequest) async throws -> FeedSnapshot
}

/// What a web page is rendered for besides the data: the host the request
/// named (for the `webcal://` address and its QR code; `nil` when it named
/// none that is a plain host and port), the print layout, and where the
/// page is: its links to the feed and the JSON twin are relative to it.
package struct PageRequest: Hashable, Sendable {
    package var host: String?
    package var layout: YearPage.Layout
    /// What the page's links to `<token>.ics` and `<token>.json` start
    /// with: nothing at `/calendar/<token>`, `calendar/` at `/` (`serve
    /// --all-users` behind a proxy that names the user, ``UserHeader``).
    package var linkBase: String

    package init(host: String?, layout: YearPage.Layout, linkBase: String = "") {
        self.host = host
        self.layout = layout
        self.linkBase = linkBase
    }

    /// Whether ``host`` names this machine only (``FeedAddress/isLoopback(_:)``
    /// of its host without the port): a QR code of it no phone can follow.
    package var isLoopback: Bool {
        guard let host else { return false }
        let name: Substring
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            name = host[...end]
        } else if host.count(where: { $0 == ":" }) == 1, let colon = host.firstIndex(of: ":") {
            name = host[..<colon]
        } else {
            name = host[...]
        }
        return FeedAddress.isLoopback(String(name))
    }

    /// `host` when it is a host name, an IPv4 address or a bracketed IPv6
    /// address, with an optional port, of at most 255 bytes: what may be
    /// written into the page's `webcal://` address. Anything else is `nil`.
    package static func validHost(_ host: String?) -> String? {
        guard let host, !host.isEmpty, host.utf8.count <= 255 else { return nil }
        let allowed = host.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || [
                    UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"),
                ].contains(byte)
        }
        return allowed ? host : nil
    }
}
