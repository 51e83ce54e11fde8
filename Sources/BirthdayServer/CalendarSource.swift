import BirthdayCore
import Foundation

/// What the calendar feature serves (``CalendarController``): the feed and
/// its JSON twin under the owner's token, and the shares under theirs. The
/// page for the year (``PageSource``) and the invitations
/// (``InvitationSource``) are features of their own.
///
/// The server asks for ``revision()`` on every calendar request and for
/// ``feed()`` only when the revision differs from the one it has cached, so
/// `revision()` should be cheap and `feed()` may do the export.
package protocol CalendarSource: Sendable {
    /// A number that changes whenever the people or the settings that affect
    /// the feed change, or anything else that changes its body (for
    /// ``DatabaseFeedSource``, the year: expanded dates of other calendars move on each January 1).
    func revision() async throws -> Int64
    /// The current feed, exported.
    func feed() async throws -> FeedSnapshot
    /// The current secret token; a new value takes effect on the next request.
    func token() async throws -> String
    /// The current token and revision if they are known without any I/O, or
    /// `nil` when that is not certain.
    ///
    /// The server's revalidation fast path (``FeedRevalidationHandler``)
    /// calls this synchronously on an event loop for every conditional
    /// request, so it must never block: no SQLite, no `stat`. Returning `nil` is
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
    /// The share (`birthdays share add`) whose token is `token`, or `nil`
    /// (the default: no shares). A share serves the calendar and the page, never invitations.
    func share(token: String) async throws -> ShareFeedSource?
}

extension CalendarSource {
    package func cachedValidators() -> (token: String, revision: Int64)? { nil }
    package func cachedListValidators() -> (token: String, revision: Int64)? { nil }
    package func listRevision() async throws -> Int64 { try await revision() }
    package func list() async throws -> FeedSnapshot { throw FeedSourceNoList() }
    package func share(token: String) async throws -> ShareFeedSource? { nil }
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
    /// The ``CalendarSource/revision()`` (or ``CalendarSource/listRevision()``) this body was built from.
    package var revision: Int64

    package init(body: String, lastModified: Date, revision: Int64) {
        self.body = body
        self.lastModified = lastModified
        self.revision = revision
    }
}
