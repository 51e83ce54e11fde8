import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Serves `GET /calendar/<token>.ics`, its JSON twin `GET
/// /calendar/<token>.json`, and `GET /healthz`.
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
/// revision also changes each day (``FeedSource/listRevision()``), because
/// `days_until` counts from today.
///
/// ## The page for the year
/// `/calendar/<token>` (no extension) is the web page (``YearPage``):
/// `text/html; charset=utf-8`, with the same token rules, tags, 304s and
/// gzip as the JSON twin (its revision moves with the data and the day), a
/// strict `Content-Security-Policy` (``pageSecurityHeaders``: nothing but
/// the server's own stylesheet, no script, no frame, no form elsewhere) and
/// `Referrer-Policy: no-referrer`, so the token in the address never leaves
/// in a `Referer`. `?print=month` is the same page printed one month a page.
/// The stylesheet is `/page.css` and the icon `/favicon.svg`, the same for everyone (no token).
///
/// `HEAD` is answered from the `GET` handler with the same headers and no body.
struct FeedController<Source: FeedSource> {
    let source: Source
    let cache: FeedCache<Source>
    let listCache: FeedCache<Source>
    /// One cache per page variant (host and layout), a few at most.
    let pageCaches = PageCaches<Source>()
    /// The caches of each share, by the hash of its token.
    let shareCaches = ShareCaches()
    /// The stylesheet, ready to send.
    let stylesheet = StaticFile(YearPage.stylesheet, contentType: "text/css; charset=utf-8")
    /// The page's icon (so a browser asks for no `/favicon.ico`).
    let icon = StaticFile(YearPage.icon, contentType: "image/svg+xml")

    init(source: Source) {
        self.source = source
        self.cache = FeedCache(source: source)
        self.listCache = FeedCache(source: source, kind: .list)
    }

    /// The headers of every page: what a browser may load and send.
    static var pageSecurityHeaders: HTTPFields {
        var fields: HTTPFields = [
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
        ]
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { fields[referrerPolicy] = "no-referrer" }
        return fields
    }

    /// The cache of one page variant (``PageCaches/cache(_:source:)``).
    func pageCache(_ request: PageRequest) -> FeedCache<Source> {
        pageCaches.cache(request, source: source)
    }

    /// The cache of one page variant when it exists; never makes one (the
    /// revalidation fast path asks for a host a client chose).
    func existingPageCache(_ request: PageRequest) -> FeedCache<Source>? {
        pageCaches.caches.withLock { $0[request] }
    }

    /// What ``FeedRevalidationHandler`` may answer a revalidation of
    /// `target` with: the owner's token and the cached entry's validators,
    /// when the source vouches for its token and revision without I/O and
    /// the cache holds that revision. `nil` whenever any of that is unknown;
    /// the request then takes the route. Shares are never answered here:
    /// their tokens are not the owner's, so they always take the route.
    func freshValidators(_ target: RevalidationTarget) -> FeedValidators? {
        let current: (token: String, revision: Int64)?
        let entry: FeedEntry?
        switch target {
        case .feed:
            current = source.cachedValidators()
            entry = current.flatMap { cache.cached(revision: $0.revision) }
        case .list:
            current = source.cachedListValidators()
            entry = current.flatMap { listCache.cached(revision: $0.revision) }
        case .page(let host):
            current = source.cachedListValidators()
            let page = PageRequest(host: PageRequest.validHost(host), layout: .year)
            entry = current.flatMap { current in existingPageCache(page)?.cached(revision: current.revision) }
        }
        guard let current, let entry else { return nil }
        return FeedValidators(
            token: current.token,
            etag: entry.etag,
            gzipETag: entry.gzipETag,
            lastModifiedText: entry.lastModifiedText,
            isPage: target.isPage
        )
    }

    func addRoutes(to router: Router<FeedRequestContext>) {
        router.get("/calendar/:file") { request, context in
            try await calendar(request, context: context)
        }
        let invitations = InvitationController(source: source)
        router.get("/invite/:token") { request, context in
            try await invitations.form(request, context: context)
        }
        router.post("/invite/:token") { request, context in
            try await invitations.answer(request, context: context)
        }
        router.get("/healthz") { _, _ in
            FeedResponses.text(.ok, "ok\n")
        }
        router.get("/page.css") { request, _ in
            stylesheet.response(request)
        }
        router.get("/favicon.svg") { request, _ in
            icon.response(request)
        }
    }

    func calendar(_ request: Request, context: FeedRequestContext) async throws -> Response {
        guard let file = context.parameters.get("file") else { return FeedResponses.notFound() }
        let isList = file.hasSuffix(".json")
        let isPage = !isList && !file.contains(".")
        guard isList || isPage || file.hasSuffix(".ics") else { return FeedResponses.notFound() }
        let token = isPage ? file : String(file.dropLast(isList ? 5 : 4))
        let entry: FeedEntry
        do {
            let layout: YearPage.Layout = request.uri.queryParameters.get("print") == "month" ? .monthPerPage : .year
            let page = PageRequest(host: PageRequest.validHost(request.head.authority), layout: layout)
            if FeedToken.constantTimeEquals(token, try await source.token()) {
                if isPage {
                    // Served from the cache without entering its actor while the revision holds.
                    let cache = pageCache(page)
                    if let cached = cache.cached(revision: try await source.listRevision()) {
                        entry = cached
                    } else {
                        entry = try await cache.entry()
                    }
                } else if isList {
                    entry = try await listCache.entry()
                } else if let cached = cache.cached(revision: try await source.revision()) {
                    entry = cached
                } else {
                    entry = try await cache.entry()
                }
            } else if let share = try await source.share(token: token) {
                let caches = shareCaches.caches(for: share)
                entry = try await (isPage ? caches.page(page) : isList ? caches.list : caches.feed).entry()
            } else {
                return FeedResponses.notFound()
            }
        } catch is FeedSourceNoList {
            return FeedResponses.notFound()
        } catch {
            context.logger.error("Feed source failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            var response = FeedResponses.text(.serviceUnavailable, "feed unavailable\n")
            response.headers[.retryAfter] = "60"
            return response
        }

        let gzip = request.headers[.acceptEncoding].map(Gzip.isAccepted) ?? false
        let (body, etag) = entry.representation(gzip: gzip)
        var headers: HTTPFields = [
            .eTag: etag,
            .lastModified: entry.lastModifiedText,
            .cacheControl: "private, no-cache",
            .vary: "Accept-Encoding",
        ]
        if isPage { headers.append(contentsOf: Self.pageSecurityHeaders) }
        if Self.isNotModified(request.headers, etag: etag, lastModified: entry.lastModified) {
            return Response(status: .notModified, headers: headers, body: ResponseBody())
        }
        headers[.contentType] =
            isPage ? "text/html; charset=utf-8" : isList ? "application/json; charset=utf-8" : "text/calendar; charset=utf-8"
        if gzip { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// RFC 9110 §13.2.2 for GET and HEAD: `If-None-Match` decides when
    /// present (weak comparison, `*` matches); otherwise `If-Modified-Since`.
    /// `etag` is the tag of the representation the request gets (plain or gzip).
    static func isNotModified(_ headers: HTTPFields, etag: String, lastModified: Date) -> Bool {
        let noneMatch = headers[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            return EntityTags.list(noneMatch.joined(separator: ","), matches: etag)
        }
        guard let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) else { return false }
        return lastModified <= since
    }
}

/// `If-None-Match` lists ([RFC 9110 §8.8.3](https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3)).
enum EntityTags {
    /// Whether `list` is `*` or holds a tag that weakly matches `tag` (the
    /// opaque parts are equal, `W/` ignored). Reading stops at the first entry
    /// that is not a quoted tag; tags before it still count, so `"a", junk`
    /// matches `"a"` and `junk` alone matches nothing (a 200, never a wrong 304).
    static func list(_ list: String, matches tag: String) -> Bool {
        let tag = tag.utf8
        let bytes = list.utf8
        var index = bytes.startIndex
        while true {
            while index < bytes.endIndex, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ",")].contains(bytes[index]) {
                index = bytes.index(after: index)
            }
            guard index < bytes.endIndex else { return false }
            if bytes[index] == UInt8(ascii: "*") { return true }
            if bytes[index...].starts(with: "W/".utf8) { index = bytes.index(index, offsetBy: 2) }
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\""),
                let close = bytes[bytes.index(after: index)...].firstIndex(of: UInt8(ascii: "\""))
            else { return false }
            let end = bytes.index(after: close)
            if bytes[index..<end].elementsEqual(tag) { return true }
            index = end
        }
    }
}

/// The caches of the shares: per share token (by its hash), the feed, the
/// list and the page's variants; at most 64 shares' (then all are dropped).
final class ShareCaches: Sendable {
    final class Set: Sendable {
        let feed: FeedCache<ShareFeedSource>
        let list: FeedCache<ShareFeedSource>
        let pages: PageCaches<ShareFeedSource>
        let source: ShareFeedSource

        init(_ source: ShareFeedSource) {
            self.source = source
            feed = FeedCache(source: source)
            list = FeedCache(source: source, kind: .list)
            pages = PageCaches()
        }

        func page(_ request: PageRequest) -> FeedCache<ShareFeedSource> {
            pages.cache(request, source: source)
        }
    }

    private let sets = Mutex<[String: Set]>([:])

    func caches(for source: ShareFeedSource) -> Set {
        let key = Share.tokenHash(source.shareToken)
        return sets.withLock { sets in
            if let set = sets[key], set.source.share == source.share { return set }
            if sets.count >= 64 { sets.removeAll() }
            let set = Set(source)
            sets[key] = set
            return set
        }
    }
}

/// The caches of the page's variants, the owner's (``FeedController/pageCache(_:)``)
/// or a share's (``ShareCaches/Set/page(_:)``).
final class PageCaches<Source: FeedSource>: Sendable {
    let caches = Mutex<[PageRequest: FeedCache<Source>]>([:])

    /// The cache of one page variant, made for `source` on first use; when
    /// more than eight variants were asked for (hosts are client input),
    /// the others are dropped first.
    func cache(_ request: PageRequest, source: Source) -> FeedCache<Source> {
        caches.withLock { caches in
            if let cache = caches[request] { return cache }
            if caches.count >= 8 { caches.removeAll() }
            let cache = FeedCache(source: source, kind: .page(request))
            caches[request] = cache
            return cache
        }
    }
}

/// A file the server always serves the same (the page's stylesheet): its
/// body, gzip and tags made once.
struct StaticFile: Sendable {
    let body: ByteBuffer
    let gzipBody: ByteBuffer?
    let etag: String
    let contentType: String

    init(_ text: String, contentType: String) {
        self.contentType = contentType
        body = ByteBuffer(string: text)
        gzipBody = try? Gzip.compress(body)
        etag = FeedCache<DatabaseFeedSource>.entityTag(for: body)
    }

    func response(_ request: Request) -> Response {
        let gzip = gzipBody != nil && (request.headers[.acceptEncoding].map(Gzip.isAccepted) ?? false)
        let tag = gzip ? String(etag.dropLast()) + "-gzip\"" : etag
        var headers: HTTPFields = [.eTag: tag, .cacheControl: "public, max-age=3600", .vary: "Accept-Encoding"]
        if EntityTags.list(request.headers[values: .ifNoneMatch].joined(separator: ","), matches: tag) {
            return Response(status: .notModified, headers: headers, body: ResponseBody())
        }
        headers[.contentType] = contentType
        headers[.xContentTypeOptions] = "nosniff"
        if gzip, let gzipBody {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: gzipBody))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// Fixed responses with no detail in them.
enum FeedResponses {
    static func text(_ status: HTTPResponse.Status, _ body: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The one 404 for unknown paths, wrong tokens and missing tokens alike.
    static func notFound() -> Response {
        text(.notFound, "not found\n")
    }
}
