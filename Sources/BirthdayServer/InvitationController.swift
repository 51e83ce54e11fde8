import BirthdayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Serves the invitations feature: an invitation's form, `GET /invite/<token>`
/// and `POST /invite/<token>`, mounted with `addRoutes(to: router.group("invite"))`
/// only when the server has an ``InvitationSource`` (a share never has).
///
/// ## Rules
/// - The page has the year page's headers (``FeedResponses/pageSecurityHeaders``:
///   no script, `form-action 'self'`) but `Referrer-Policy: same-origin` (the
///   token never leaves in a `Referer` for another origin, and the form's own
///   POST carries its real `Origin`), and `Cache-Control: no-store` (each form has its own nonce).
/// - A `POST` is decided before its body is read: a `Content-Length` over
///   ``InviteForm/maxBodyBytes`` is 413 (``RequestGuardMiddleware`` answers it
///   and closes the connection), one sent by another site's page 403
///   (``InviteOrigin``: `Origin`, `Sec-Fetch-Site`), an address over its limit 429
///   (``InviteRateLimit``, kept here on the source's clock; behind the trusted proxy the
///   client it names, ``TrustedProxy``); a chunked body is read up to
///   the cap and no further (413 beyond it), and at its pace (``BodyPace``).
/// - Then the source decides (``InviteOutcome``): 200 with the thank-you
///   page, 400 (409 for a used nonce) with the form again, 410 for a link
///   used up or expired, and for an unknown token the same 404 as any
///   unknown address. Nothing from the body becomes a header.
/// - The token and the body are never logged (``AccessLogMiddleware``
///   logs `/invite/<redacted>`).
struct InvitationController: Sendable {
    let source: any InvitationSource
    /// The per-address limit on answers, for as long as the server runs
    /// (`serve --all-users` gives every user's controller the same one).
    private let limit: InviteLimiter
    /// Which proxy names the client the limit counts.
    private let limitProxy: LimitProxy

    /// Which proxy names the client the per-address limit counts (an
    /// answer's origin is judged behind the source's own either way).
    enum LimitProxy: Sendable {
        /// The source's (``InvitationSource/trustedProxy()``): one user's server.
        case source
        /// This one only, whatever the source's: `serve --all-users`, whose
        /// limit every user's form shares, gives its `--trusted-proxy` (or
        /// none), so that no user's own `trusted-proxy` setting decides
        /// which address another user's guests are counted as.
        case server(TrustedProxy?)
    }

    init(source: any InvitationSource, limit: InviteLimiter = InviteLimiter(), limitProxy: LimitProxy = .source) {
        self.source = source
        self.limit = limit
        self.limitProxy = limitProxy
    }

    func addRoutes(to group: RouterGroup<FeedRequestContext>) {
        group.get(":token") { request, context in
            try await form(request, context: context)
        }
        group.post(":token") { request, context in
            try await answer(request, context: context)
        }
    }

    func form(_ request: Request, context: FeedRequestContext) async throws -> Response {
        guard let token = context.parameters.get("token"), FeedToken.isWellFormed(token) else { return FeedResponses.notFound() }
        do {
            guard let page = try await source.inviteForm(token: token) else { return FeedResponses.notFound() }
            return Self.response(page)
        } catch {
            return Self.unavailable(error, context: context)
        }
    }

    func answer(_ request: Request, context: FeedRequestContext) async throws -> Response {
        let length = request.headers[.contentLength].flatMap { Int($0) }
        let peer = context.peerAddress ?? "unknown"
        let proxy: TrustedProxy?
        do {
            proxy = try await source.trustedProxy()
        } catch {
            return Self.unavailable(error, context: context)
        }
        let counted: TrustedProxy? =
            switch limitProxy {
            case .source: proxy
            case .server(let server): server
            }
        let client =
            counted?.client(
                peer: peer,
                forwardedFor: request.headers[values: InviteFields.xForwardedFor],
                forwarded: request.headers[values: InviteFields.forwarded]
            )
            ?? peer
        let forwardedHost = proxy?.forwardedHost(
            peer: peer,
            forwardedHost: request.headers[values: InviteFields.xForwardedHost],
            forwarded: request.headers[values: InviteFields.forwarded]
        )
        let foreign = InviteOrigin.isForeign(
            origin: request.headers[.origin],
            fetchSite: request.headers[InviteFields.secFetchSite],
            hosts: [request.head.authority, forwardedHost].compactMap { $0 }
        )
        let decided = InviteOutcome.before(contentLength: length, foreign: foreign) {
            limit.admit(client, now: source.now())
        }
        if decided == .tooMany, let page = await busyForm(request, context: context) { return page }
        if let decided { return Self.refusal(decided) }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: InviteForm.maxBodyBytes)
        } catch {
            return Self.refusal(.tooLarge)
        }
        guard let token = context.parameters.get("token"), FeedToken.isWellFormed(token) else { return FeedResponses.notFound() }
        do {
            guard let page = try await source.inviteAnswer(token: token, body: Array(body.readableBytesView)) else {
                return FeedResponses.notFound()
            }
            return Self.response(page)
        } catch {
            return Self.unavailable(error, context: context)
        }
    }

    /// For a sender over the per-address limit: the form again with what
    /// was typed (its body read up to the cap, at its pace), 429 with
    /// `Retry-After`, or `nil` when the link is not open or the body too large.
    private func busyForm(_ request: Request, context: FeedRequestContext) async -> Response? {
        guard let token = context.parameters.get("token"), FeedToken.isWellFormed(token),
            let body = try? await request.body.collect(upTo: InviteForm.maxBodyBytes),
            let page = try? await source.inviteBusy(token: token, body: Array(body.readableBytesView))
        else { return nil }
        var response = Self.response(page)
        response.headers[.retryAfter] = "60"
        return response
    }

    /// A page with the page headers.
    static func response(_ page: InviteResponse) -> Response {
        var headers = FeedResponses.pageSecurityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        // Not `no-referrer`: with it a browser sends `Origin: null` with the form's own POST (Fetch, "serializing a
        // request origin"), which ``InviteOrigin`` cannot tell from another site's. The token still never leaves for another origin.
        headers[InviteFields.referrerPolicy] = "same-origin"
        return Response(status: .init(code: page.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page.html)))
    }

    /// 403, 413 or 429, plain, closing the connection (whatever body follows is never read).
    static func refusal(_ outcome: InviteOutcome) -> Response {
        var headers: HTTPFields = [.connection: "close"]
        if outcome == .tooMany { headers[.retryAfter] = "60" }
        let text =
            switch outcome {
            case .tooMany: "too many answers from this address; try again in a minute\n"
            case .foreign: "this form takes answers from its own page only\n"
            default: "the answer is too large\n"
            }
        return FeedResponses.text(.init(code: outcome.status), text, headers: headers)
    }

    static func unavailable(_ error: any Error, context: FeedRequestContext) -> Response {
        context.logger.error("Invitation source failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        var response = FeedResponses.text(.serviceUnavailable, "unavailable\n")
        response.headers[.retryAfter] = "60"
        return response
    }
}

/// The request fields an invitation's answer is judged by besides its body.
enum InviteFields {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}

/// The invitation form's per-address limit (``InviteRateLimit``) behind a lock.
final class InviteLimiter: Sendable {
    private let limit = Mutex(InviteRateLimit())

    func admit(_ address: String, now: Date) -> Bool {
        limit.withLock { $0.admit(address, now: now) }
    }
}
