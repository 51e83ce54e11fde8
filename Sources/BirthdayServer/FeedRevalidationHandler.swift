import BirthdayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes

/// The validators of the feed, its JSON twin or the page as currently
/// cached: all a `304` needs.
struct FeedValidators: Sendable {
    var token: String
    var etag: String
    var gzipETag: String
    var lastModifiedText: String
    /// The page's `304` also carries ``FeedResponses/pageSecurityHeaders``, as the route's does.
    var isPage = false
}

/// The revalidation fast path's oracle (synchronous, thread-safe, no I/O
/// but a `stat`): the validators of what `target` asks for while they are
/// fresh, else `nil`. `token` gives the request's token as text, for
/// `serve --all-users` to find whose it is (``UserFeeds/freshValidators(_:token:)``);
/// a single user's oracle never asks for it.
typealias RevalidationOracle = @Sendable (_ target: RevalidationTarget, _ token: () -> String) -> FeedValidators?

/// What a revalidation asks for: `/calendar/<token>.ics`,
/// `/calendar/<token>.json`, or the page `/calendar/<token>` (whose cache
/// is chosen by the host the request names, as the route chooses it), as
/// ``CalendarPath`` reads it.
enum RevalidationTarget: Sendable, Equatable {
    case feed, list
    case page(host: String?)

    var isPage: Bool {
        if case .page = self { return true }
        return false
    }

    /// The path as ``AccessLogMiddleware/loggedPath(_:)`` writes it in access lines.
    var loggedPath: String {
        switch self {
        case .feed: Self.loggedFeed
        case .list: Self.loggedList
        case .page: Self.loggedPage
        }
    }

    private static let loggedFeed = AccessLogMiddleware<FeedRequestContext>.loggedPath("/calendar/t.ics")
    private static let loggedList = AccessLogMiddleware<FeedRequestContext>.loggedPath("/calendar/t.json")
    private static let loggedPage = AccessLogMiddleware<FeedRequestContext>.loggedPath("/calendar/t")

    /// The token's bytes in `path` and what they ask for (the page with
    /// `host`), as ``CalendarPath/parse(_:)`` reads the path for the routes;
    /// `nil` for anything else.
    static func parse<Path: BidirectionalCollection<UInt8>>(
        _ path: Path,
        host: @autoclosure () -> String?
    ) -> (token: Path.SubSequence, target: RevalidationTarget)? {
        guard let (token, kind) = CalendarPath.parse(path) else { return nil }
        switch kind {
        case .feed: return (token, .feed)
        case .list: return (token, .list)
        case .page: return (token, .page(host: host()))
        }
    }
}

/// Answers calendar revalidations (`If-None-Match` that matches) on the
/// event loop, without handing the request to Hummingbird.
///
/// A calendar app revalidates its subscription over and over; each request
/// costs Hummingbird a task and executor hops that dwarf the work itself
/// (compare a token, compare a tag). This handler sits in the HTTP/1
/// pipeline after Hummingbird's connection-state handler, where it sees each
/// request as `HTTPRequestPart`s, and answers the one case that is both
/// common and certain: a complete `GET` or `HEAD` of
/// `/calendar/<token>.ics`, its JSON twin `/calendar/<token>.json` or the
/// page `/calendar/<token>` (``RevalidationTarget``) that keeps the connection alive (no
/// `Connection: close`, which ``KeepAliveHandler`` adds to HTTP/1.0 requests
/// without keep-alive), no body, carrying `If-None-Match`, where
/// - the synchronous oracle (``CalendarController/freshValidators(_:)``,
///   ``PageController/freshValidators(host:)``) knows the
///   current token and revision without touching SQLite and the cache
///   holds the entry for that revision (for the page, the cache of the host
///   the request names, as the route picks it),
/// - the token matches in constant time, and
/// - the `If-None-Match` list matches the entry's tag (``EntityTags``).
///
/// It then writes the same `304` as the route would (`ETag`,
/// `Last-Modified`, `Cache-Control`, `Vary`, for the page its security
/// headers, `Content-Length: 0`, `Date`) and the
/// same access line, with the token redacted, through the application's
/// logger with a Hummingbird request id, as the route's would be.
///
/// ## Why it is safe
/// - Anything else is passed on untouched: other paths and methods, query
///   strings, encoded characters, no `If-None-Match` (`If-Modified-Since`
///   alone included), a body, `Expect`, `Connection: close` (HTTP/1.0 included), a
///   stale or unknown revision, a page variant not cached yet, a wrong token
///   (a share's among them: only the owner's is compared), a non-matching tag. Those take
///   the ordinary route and get exactly today's answer (a wrong token its
///   generic 404 from the route).
/// - The oracle only says "fresh" when the source's file stamp is unchanged
///   and the cache's entry is for that very revision, so a rotated token or
///   a new revision is seen at once, as on the slow path.
/// - Responses stay in request order: the fast path is taken only while no
///   passed-on request on this connection awaits its response; otherwise the
///   request is passed on behind it.
/// - Its responses travel through Hummingbird's connection-state handler
///   (``FeedHTTP1Channel`` places it there), so idle timeouts and graceful
///   shutdown count them like any other.
final class FeedRevalidationHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Between requests.
        case idle
        /// Reading a request that was passed on.
        case passing
        /// Reading a request this handler answers at its end.
        /// `start` is only taken when the access line will be logged.
        case answering(
            method: HTTPRequest.Method,
            target: RevalidationTarget,
            validators: FeedValidators,
            etag: String,
            start: ContinuousClock.Instant?
        )
    }

    private let validators: RevalidationOracle
    private let logger: Logger
    private var state = State.idle
    /// Requests passed on whose response has not been fully written yet.
    private var passedOnInFlight = 0
    private var needsFlush = false
    private var response: (second: Int, etag: String, lastModifiedText: String, isPage: Bool, response: HTTPResponse)?

    /// - Parameters:
    ///   - validators: the freshness oracle; synchronous, thread-safe, no I/O but a `stat`.
    ///   - logger: receives the access line, as the route's would.
    init(validators: @escaping RevalidationOracle, logger: Logger) {
        self.validators = validators
        self.logger = logger
    }

    /// Between requests, with every request passed on answered:
    /// ``FeedRevalidationBytes`` may answer the next one before it gets here.
    var isIdle: Bool {
        guard case .idle = state else { return false }
        return passedOnInFlight == 0
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOnInFlight == 0, let (target, fresh, etag) = answerable(request) {
                state = .answering(
                    method: request.method,
                    target: target,
                    validators: fresh,
                    etag: etag,
                    start: logger.logLevel <= .info ? .now : nil
                )
            } else {
                state = .passing
                passedOnInFlight += 1
                context.fireChannelRead(data)
            }
        case .body:
            if case .answering = state { return }
            context.fireChannelRead(data)
        case .end:
            guard case .answering(let method, let target, let fresh, let etag, let start) = state else {
                state = .idle
                context.fireChannelRead(data)
                return
            }
            state = .idle
            respond(context: context, method: method, target: target, validators: fresh, etag: etag, start: start)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOnInFlight > 0 { passedOnInFlight -= 1 }
        context.write(data, promise: promise)
    }

    /// What `request` revalidates, the validators and the representation's
    /// tag (plain, or gzip when the request accepts it) to answer it with,
    /// or `nil` to pass it on. Runs for every revalidation, so it works on
    /// the path's bytes and allocates nothing for the feed when the tag is
    /// the one clients send back.
    private func answerable(_ request: HTTPRequest) -> (RevalidationTarget, FeedValidators, String)? {
        guard request.method == .get || request.method == .head, let path = request.path?.utf8,
            let (token, target) = RevalidationTarget.parse(path, host: request.authority)
        else { return nil }
        let fields = request.headerFields
        guard let noneMatch = Self.ifNoneMatch(fields),
            fields[.transferEncoding] == nil, fields[.expect] == nil, fields[.connection] != "close",
            fields[.contentLength].map({ $0 == "0" }) ?? true,
            let fresh = validators(target, { String(decoding: token, as: UTF8.self) })
        else { return nil }
        let etag = fields[.acceptEncoding].map(Gzip.isAccepted) ?? false ? fresh.gzipETag : fresh.etag
        guard FeedToken.constantTimeEquals(token, fresh.token.utf8),
            noneMatch == etag || EntityTags.list(noneMatch, matches: etag)
        else { return nil }
        return (target, fresh, etag)
    }

    /// The `If-None-Match` list; one field is returned as it is (what
    /// `HTTPFields`' subscript would join into a new string).
    private static func ifNoneMatch(_ fields: HTTPFields) -> String? {
        var found: String?
        for field in fields where field.name == .ifNoneMatch {
            guard found == nil else { return fields[.ifNoneMatch] }
            found = field.value
        }
        return found
    }

    private func respond(
        context: ChannelHandlerContext,
        method: HTTPRequest.Method,
        target: RevalidationTarget,
        validators: FeedValidators,
        etag: String,
        start: ContinuousClock.Instant?
    ) {
        context.write(wrapOutboundOut(.head(notModified(validators, etag: etag))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
        guard let start else { return }
        logger.info(
            "\(method.rawValue) \(target.loggedPath) 304",
            metadata: [
                "hb.request.id": .stringConvertible(RequestID()),
                "http.bytes": "0",
                "http.duration_ms": "\(Self.milliseconds(since: start))",
            ]
        )
    }

    /// The `304` for `etag`, built once per tag and second (its `Date`):
    /// the route's headers in the route's order (``notModifiedFields(_:etag:)``).
    private func notModified(_ validators: FeedValidators, etag: String) -> HTTPResponse {
        let second = Int(Date().timeIntervalSince1970.rounded(.down))
        if let cached = response, cached.second == second, cached.etag == etag,
            cached.lastModifiedText == validators.lastModifiedText, cached.isPage == validators.isPage
        {
            return cached.response
        }
        var fields = Self.notModifiedFields(validators, etag: etag)
        fields[.contentLength] = "0"
        fields[.date] = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(second)))
        let built = HTTPResponse(status: .notModified, headerFields: fields)
        response = (second, etag, validators.lastModifiedText, validators.isPage, built)
        return built
    }

    /// The headers the route gives a `304` (``FeedResponses/serve(_:context:contentType:extraHeaders:entry:)``), but for the date.
    static func notModifiedFields(_ validators: FeedValidators, etag: String) -> HTTPFields {
        var fields: HTTPFields = [
            .eTag: etag,
            .lastModified: validators.lastModifiedText,
            .cacheControl: "private, no-cache",
            .vary: "Accept-Encoding",
        ]
        if validators.isPage { fields.append(contentsOf: FeedResponses.pageSecurityHeaders) }
        return fields
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }
}

@available(*, unavailable)
extension FeedRevalidationHandler: Sendable {}
