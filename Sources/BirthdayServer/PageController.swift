import BirthdayCore
import BirthdayText
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Serves the page feature: the web page for the year (``YearPage``) at
/// `/calendar/<token>` (no extension), for the owner's token and each
/// share's, mounted with `addRoutes(to: router.group("calendar"))`; and its
/// stylesheet `/page.css` and icon `/favicon.svg`, the same for everyone (no
/// token), mounted with `addFiles(to: router.group())`.
///
/// The page is `text/html; charset=utf-8`, with the same token rules, tags,
/// 304s and gzip as the JSON twin (its revision moves with the data and the
/// day, ``CalendarSource/listRevision()``), a strict
/// `Content-Security-Policy` (``FeedResponses/pageSecurityHeaders``:
/// nothing but the server's own stylesheet, no script, no frame, no form
/// elsewhere) and `Referrer-Policy: no-referrer`, so the token in the address
/// never leaves in a `Referer`. `?print=month` is the same page printed one
/// month a page. The token comes from ``CalendarPath``, as the revalidation
/// fast path reads it.
struct PageController<Source: PageSource>: Sendable {
    let source: Source
    /// One cache per page variant (host and layout), a few at most.
    let pageCaches = PageCaches()
    /// The page variants of each share, by the hash of its token.
    let shareCaches = ShareCaches<PageCaches>()

    func addRoutes(to group: RouterGroup<FeedRequestContext>) {
        group.get(":token") { request, context in
            await page(request, context: context)
        }
    }

    /// The stylesheet and the icon, which no token guards (``PageFiles``).
    func addFiles(to group: RouterGroup<FeedRequestContext>) {
        PageFiles.addRoutes(to: group)
    }

    /// What ``FeedRevalidationHandler`` may answer a revalidation of the
    /// page for `host` with: as ``CalendarController/freshValidators(_:)``,
    /// from the cache of the variant the route picks for that host, only when
    /// it exists (never made for a host a client chose).
    func freshValidators(host: String?) -> FeedValidators? {
        guard let current = source.cachedListValidators() else { return nil }
        let variant = PageRequest(host: PageRequest.validHost(host), layout: .year)
        guard let entry = pageCaches.existing(variant)?.cached(revision: current.revision) else { return nil }
        return FeedValidators(
            token: current.token,
            etag: entry.etag,
            gzipETag: entry.gzipETag,
            lastModifiedText: entry.lastModifiedText,
            isPage: true
        )
    }

    /// The page of `/calendar/<token>` (`serve --all-users` hands over the requests of this source's user).
    func page(_ request: Request, context: FeedRequestContext) async -> Response {
        guard let token = CalendarPath.token(request.uri.path, asking: .page) else { return FeedResponses.notFound() }
        return await page(request, context: context, token: token)
    }

    /// The page of `token` (the owner's or a share's), its links starting with `linkBase` (``PageRequest/linkBase``).
    func page(_ request: Request, context: FeedRequestContext, token: String, linkBase: String = "") async -> Response {
        let layout: YearPage.Layout = request.uri.queryParameters.get("print") == "month" ? .monthPerPage : .year
        let variant = PageRequest(host: PageRequest.validHost(request.head.authority), layout: layout, linkBase: linkBase)
        return await FeedResponses.serve(
            request,
            context: context,
            contentType: "text/html; charset=utf-8",
            extraHeaders: FeedResponses.pageSecurityHeaders
        ) {
            let cache: FeedCache
            if FeedToken.constantTimeEquals(token, try await source.token()) {
                cache = pageCaches.cache(variant) { .page(source, variant) }
            } else if let share = try await source.share(token: token) {
                cache = shareCaches.caches(for: share) { _ in PageCaches() }.cache(variant) { .page(share, variant) }
            } else {
                return nil
            }
            // Served from the cache without entering its actor while the revision holds.
            return try await cache.currentEntry()
        }
    }
}

/// The page's stylesheet `/page.css` and icon `/favicon.svg`, the same for
/// every page and every user, which no token guards.
enum PageFiles {
    /// The stylesheet, ready to send.
    static let stylesheet = StaticFile(YearPage.stylesheet, contentType: "text/css; charset=utf-8")
    /// The page's icon (so a browser asks for no `/favicon.ico`).
    static let icon = StaticFile(YearPage.icon, contentType: "image/svg+xml")

    static func addRoutes(to group: RouterGroup<FeedRequestContext>) {
        group.get("page.css") { request, _ in
            stylesheet.response(request)
        }
        group.get("favicon.svg") { request, _ in
            icon.response(request)
        }
    }
}

/// The caches of the page's variants, the owner's or a share's.
final class PageCaches: Sendable {
    private let caches = Mutex<[PageRequest: FeedCache]>([:])

    /// The cache of one page variant, made with `make` on first use; when
    /// more than eight variants were asked for (hosts are client input),
    /// the others are dropped first.
    func cache(_ request: PageRequest, make: () -> FeedCache) -> FeedCache {
        caches.withLock { caches in
            if let cache = caches[request] { return cache }
            if caches.count >= 8 { caches.removeAll() }
            let cache = make()
            caches[request] = cache
            return cache
        }
    }

    /// The cache of one page variant when it exists; never makes one (the
    /// revalidation fast path asks for a host a client chose).
    func existing(_ request: PageRequest) -> FeedCache? {
        caches.withLock { $0[request] }
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
        etag = FeedCache.entityTag(for: body)
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
