import BirthdayCore
import BirthdayText
import Foundation

/// What the server needs from the store (the lead implements it over SQLite).
///
/// The server asks for ``revision()`` on every calendar request and for
/// ``feed()`` only when the revision differs from the one it has cached, so
/// `revision()` should be cheap and `feed()` may do the export.
package protocol FeedSource: Sendable {
    /// A number that changes whenever the people or the settings that affect
    /// the feed change, or anything else that changes its body (for
    /// ``DatabaseFeedSource``, the year: expanded dates of other calendars move on each January 1).
    func revision() async throws -> Int64
    /// The current feed, exported.
    func feed() async throws -> FeedSnapshot
    /// The current secret token; a new value takes effect on the next request.
    func token() async throws -> String
    /// The current token and revision if they are known without any I/O
    /// beyond a `stat`, or `nil` when that is not certain.
    ///
    /// The server's revalidation fast path (``FeedRevalidationHandler``)
    /// calls this synchronously on an event loop for every conditional
    /// request, so it must never block on the database. Returning `nil` is
    /// always safe: the request then takes the ordinary route. The default
    /// implementation returns `nil`.
    func cachedValidators() -> (token: String, revision: Int64)?
    /// As ``cachedValidators()``, with ``listRevision()`` for the revision:
    /// what the fast path answers the JSON twin's and the page's
    /// revalidations with. The default implementation returns `nil`.
    func cachedListValidators() -> (token: String, revision: Int64)?
    /// A number that changes whenever the JSON list (``list()``) does: with
    /// the data and with the day, since its `days_until` count from today.
    func listRevision() async throws -> Int64
    /// The JSON twin of the feed: the next 366 days as `upcoming --json`
    /// writes them. The default throws ``FeedSourceNoList``: no list is served (404).
    func list() async throws -> FeedSnapshot
    /// The web page for the year (``YearPage``) as `request` asks for it; its
    /// revision is ``listRevision()`` (it counts days from today, too). The
    /// default throws ``FeedSourceNoList``: no page is served (404).
    func page(_ request: PageRequest) async throws -> FeedSnapshot
    /// The share (`birthdays share add`) whose token is `token`, or `nil`
    /// (the default: no shares).
    func share(token: String) async throws -> ShareFeedSource?
    /// The invitation form of the link `token` (`GET /invite/<token>`), or
    /// `nil` when no link has it (404; the default: no invitations).
    func inviteForm(token: String) async throws -> InviteResponse?
    /// What a `POST` of `body` (at most ``InviteForm/maxBodyBytes``) to the
    /// link `token` comes to, or `nil` when no link has it (404).
    func inviteAnswer(token: String, body: [UInt8]) async throws -> InviteResponse?
    /// The form of link `token` again for a sender over the per-address
    /// limit, with what `body` typed (429), or `nil` (a plain 429; the default).
    func inviteBusy(token: String, body: [UInt8]) async throws -> InviteResponse?
    /// Whether the peer `address` may send one more answer now (and counts
    /// it): the per-address limit (``InviteRateLimit``). Called on the event
    /// loop: it must not block. The default admits everything.
    func admitInviteAnswer(from address: String) -> Bool
    /// The reverse proxy whose `X-Forwarded-For` and `Forwarded` say who the
    /// client is (``TrustedProxy``), or `nil` (the default): none.
    func trustedProxy() async throws -> TrustedProxy?
}

/// A page the invitation's address answers with.
package struct InviteResponse: Sendable, Equatable {
    package var status: Int
    package var html: String

    package init(status: Int, html: String) {
        self.status = status
        self.html = html
    }
}

/// What a web page is rendered for besides the data: the host the request
/// named (for the `webcal://` address and its QR code; `nil` when it named
/// none that is a plain host and port) and the print layout.
package struct PageRequest: Hashable, Sendable {
    package var host: String?
    package var layout: YearPage.Layout

    package init(host: String?, layout: YearPage.Layout) {
        self.host = host
        self.layout = layout
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

extension FeedSource {
    package func cachedValidators() -> (token: String, revision: Int64)? { nil }
    package func cachedListValidators() -> (token: String, revision: Int64)? { nil }
    package func listRevision() async throws -> Int64 { try await revision() }
    package func list() async throws -> FeedSnapshot { throw FeedSourceNoList() }
    package func page(_ request: PageRequest) async throws -> FeedSnapshot { throw FeedSourceNoList() }
    package func share(token: String) async throws -> ShareFeedSource? { nil }
    package func inviteForm(token: String) async throws -> InviteResponse? { nil }
    package func inviteAnswer(token: String, body: [UInt8]) async throws -> InviteResponse? { nil }
    package func inviteBusy(token: String, body: [UInt8]) async throws -> InviteResponse? { nil }
    package func admitInviteAnswer(from address: String) -> Bool { true }
    package func trustedProxy() async throws -> TrustedProxy? { nil }
}

/// A source that serves no JSON list: its address answers 404.
package struct FeedSourceNoList: Error {
    package init() {}
}

/// One exported feed, as the server caches and serves it.
package struct FeedSnapshot: Sendable, Equatable {
    /// The iCalendar text (from `CalendarExporter.export`), or the list's JSON.
    package var body: String
    /// When the data last changed; sent as `Last-Modified` (to the second).
    package var lastModified: Date
    /// The ``FeedSource/revision()`` this body was built from.
    package var revision: Int64

    package init(body: String, lastModified: Date, revision: Int64) {
        self.body = body
        self.lastModified = lastModified
        self.revision = revision
    }
}
