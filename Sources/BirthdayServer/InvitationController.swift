import BirthdayCore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Serves an invitation's form: `GET /invite/<token>` and `POST /invite/<token>`.
///
/// ## Rules
/// - The page has the year page's headers (``FeedController/pageSecurityHeaders``:
///   no script, `form-action 'self'`, no referrer, so the token never leaves
///   in a `Referer`) and `Cache-Control: no-store` (each form has its own nonce).
/// - A `POST` is decided before its body is read: a `Content-Length` over
///   ``InviteForm/maxBodyBytes`` is 413 (``RequestGuardMiddleware`` answers it
///   and closes the connection), an address over its limit 429
///   (``FeedSource/admitInviteAnswer(from:)``); a chunked body is read up to
///   the cap and no further (413 beyond it).
/// - Then the source decides (``InviteOutcome``): 200 with the thank-you
///   page, 400 (409 for a used nonce) with the form again, 410 for a link
///   used up or expired, and for an unknown token the same 404 as any
///   unknown address. Nothing from the body becomes a header.
/// - The token and the body are never logged (``AccessLogMiddleware``
///   logs `/invite/<redacted>`).
struct InvitationController<Source: FeedSource>: Sendable {
    let source: Source

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
        let decided = InviteOutcome.before(contentLength: length) {
            source.admitInviteAnswer(from: context.peerAddress ?? "unknown")
        }
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

    /// A page with the page headers.
    static func response(_ page: InviteResponse) -> Response {
        var headers = FeedController<Source>.pageSecurityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .init(code: page.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page.html)))
    }

    /// 413 or 429, plain, closing the connection (whatever body follows is never read).
    static func refusal(_ outcome: InviteOutcome) -> Response {
        var headers: HTTPFields = [.connection: "close"]
        if outcome == .tooMany { headers[.retryAfter] = "60" }
        let text = outcome == .tooMany ? "too many answers from this address; try again in a minute\n" : "the answer is too large\n"
        return FeedResponses.text(.init(code: outcome.status), text, headers: headers)
    }

    static func unavailable(_ error: any Error, context: FeedRequestContext) -> Response {
        context.logger.error("Invitation source failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        var response = FeedResponses.text(.serviceUnavailable, "unavailable\n")
        response.headers[.retryAfter] = "60"
        return response
    }
}
