import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Serves the calendar feature: `GET /calendar/<token>.ics` and its JSON
/// twin `GET /calendar/<token>.json`, for the owner's token and each
/// share's, mounted with `addRoutes(to: router.group("calendar"))`.
///
/// ## The calendar
/// - gzip when the request accepts it (`Accept-Encoding`), with
///   `Content-Encoding: gzip` and a tag of its own; `Vary: Accept-Encoding`
///   on every answer, so caches keep the two apart.
/// - 200 with the feed as `text/calendar; charset=utf-8`, a strong `ETag`
///   (hash of the body), `Last-Modified` and `Cache-Control: private,
///   no-cache` (store it, but revalidate; revalidation is a cheap 304).
/// - 304 when `If-None-Match` matches the tag, or, only when there is no
///   `If-None-Match`, when `If-Modified-Since` is not before
///   `Last-Modified` ([RFC 9110 §13.2.2](https://www.rfc-editor.org/rfc/rfc9110#section-13.2.2)).
/// - 404 with the same generic body as any unknown path when the token is
///   wrong or missing: nothing tells a guess from a typo. The token is asked
///   from the source on every request, so a rotated token locks out the old
///   URL at once, and compared in constant time.
/// - 503 when the source fails; the error's type is logged, not its text.
///
/// ## The JSON twin
/// `/calendar/<token>.json` is the next 366 days as `upcoming --json`
/// prints them (`application/json; charset=utf-8`), for dashboards that want
/// a list, not a calendar. The same token rules, tags, 304s and gzip; its
/// revision also changes each day (``CalendarSource/listRevision()``), because
/// `days_until` counts from today.
///
/// The token and the kind come from ``CalendarPath``, as the revalidation
/// fast path reads them; the page at `/calendar/<token>` is ``PageController``'s.
/// `HEAD` is answered from the `GET` handler with the same headers and no body.
struct CalendarController<Source: CalendarSource>: Sendable {
    let source: Source
    let cache: FeedCache
    let listCache: FeedCache
    /// The caches of each share, by the hash of its token.
    let shareCaches = ShareCaches<CalendarCaches>()

    init(source: Source) {
        self.source = source
        self.cache = .feed(source)
        self.listCache = .list(source)
    }

    func addRoutes(to group: RouterGroup<FeedRequestContext>) {
        group.get("{token}.ics") { request, context in
            await respond(request, context: context, kind: .feed)
        }
        group.get("{token}.json") { request, context in
            await respond(request, context: context, kind: .list)
        }
    }

    /// What ``FeedRevalidationHandler`` may answer a revalidation of the
    /// feed or the list with: the owner's token and the cached entry's
    /// validators, when the source vouches for its token and revision without
    /// I/O and the cache holds that revision. `nil` whenever any of that is
    /// unknown; the request then takes the route. Shares are never answered
    /// here: their tokens are not the owner's, so they always take the route.
    func freshValidators(_ kind: CalendarPath.Kind) -> FeedValidators? {
        let current = kind == .feed ? source.cachedValidators() : source.cachedListValidators()
        guard let current, let entry = (kind == .feed ? cache : listCache).cached(revision: current.revision) else { return nil }
        return FeedValidators(token: current.token, etag: entry.etag, gzipETag: entry.gzipETag, lastModifiedText: entry.lastModifiedText)
    }

    /// The answer to a request for `kind` (`serve --all-users` hands over the requests of this source's user).
    func respond(_ request: Request, context: FeedRequestContext, kind: CalendarPath.Kind) async -> Response {
        guard let token = CalendarPath.token(request.uri.path, asking: kind) else { return FeedResponses.notFound() }
        let contentType = kind == .feed ? "text/calendar; charset=utf-8" : "application/json; charset=utf-8"
        return await FeedResponses.serve(request, context: context, contentType: contentType) {
            let caches: CalendarCaches
            if FeedToken.constantTimeEquals(token, try await source.token()) {
                caches = CalendarCaches(feed: cache, list: listCache)
            } else if let share = try await source.share(token: token) {
                caches = shareCaches.caches(for: share) { CalendarCaches(feed: .feed($0), list: .list($0)) }
            } else {
                return nil
            }
            // Served from the cache without entering its actor while the revision holds.
            return try await (kind == .feed ? caches.feed : caches.list).currentEntry()
        }
    }
}

/// The feed's and the JSON twin's caches of one token (the owner's, or a share's).
struct CalendarCaches: Sendable {
    let feed: FeedCache
    let list: FeedCache
}

/// The caches of the shares, per share token (by its hash): the calendar's
/// (``CalendarCaches``) or the page's variants (``PageCaches``); at most 64
/// shares' (then all are dropped). A share changed since (its people, its
/// ages) starts afresh.
final class ShareCaches<Caches: Sendable>: Sendable {
    private let sets = Mutex<[String: (share: Share, caches: Caches)]>([:])

    func caches(for source: ShareFeedSource, make: (ShareFeedSource) -> Caches) -> Caches {
        let key = Share.tokenHash(source.shareToken)
        return sets.withLock { sets in
            if let set = sets[key], set.share == source.share { return set.caches }
            if sets.count >= 64 { sets.removeAll() }
            let caches = make(source)
            sets[key] = (source.share, caches)
            return caches
        }
    }
}
