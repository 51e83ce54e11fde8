import BirthdayCore
import HTTPTypes
import Hummingbird
import Logging

/// Logs one line per request: method, a redacted path, status, body bytes
/// and duration.
///
/// Paths are never logged as sent: the calendar path holds the secret
/// token, so it appears as `/calendar/<redacted>.ics` (`.json`, or nothing
/// for the page), and an invitation's as `/invite/<redacted>`; `/healthz`, `/page.css` and `/favicon.svg` as themselves;
/// anything else as `<other>` (it is client input). Query strings, headers
/// and bodies are never logged.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status, bytes: response.body.contentLength, since: start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, context: context, status: error.status, bytes: nil, since: start)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: HTTPResponse.Status, bytes: Int?, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "\(request.method.rawValue) \(Self.loggedPath(request.uri.path)) \(status.code)",
            metadata: [
                "http.bytes": "\(bytes ?? 0)",
                "http.duration_ms": "\((milliseconds * 1000).rounded() / 1000)",
            ]
        )
    }

    /// The path as it may appear in logs.
    static func loggedPath(_ path: String) -> String {
        if path == "/healthz" || path == "/page.css" || path == "/favicon.svg" { return path }
        if path.hasPrefix("/invite/") { return "/invite/<redacted>" }
        if path.hasPrefix("/calendar/") {
            let file = path.dropFirst("/calendar/".count)
            // The page: a token without an extension.
            if !file.isEmpty && !file.contains(".") { return "/calendar/<redacted>" }
            return path.hasSuffix(".json") ? "/calendar/<redacted>.json" : "/calendar/<redacted>.ics"
        }
        return "<other>"
    }
}

/// Refuses what this server never needs, before any route runs: methods
/// other than GET and HEAD get 405 with `Allow: GET, HEAD` (an invitation's
/// address, `/invite/<token>`, takes POST too), and requests that announce a
/// body (`Content-Length` above 0 or any `Transfer-Encoding`) get 413, but
/// for a POST to an invitation's address, whose body may be up to
/// ``InviteForm/maxBodyBytes`` (413 with a larger `Content-Length`; its answer
/// to a chunked body closes the connection, so the rest is never read). A refused
/// request that has a body is answered with `Connection: close`, and
/// ``ConnectionCloseHandler`` closes the connection once the answer is
/// written, so the body is never read.
///
/// It also gives every 404 (unknown paths included) the same generic body.
struct RequestGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let length = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        let hasBody = length > 0 || request.headers[.transferEncoding] != nil
        let close: HTTPFields = hasBody ? [.connection: "close"] : [:]
        let isInvitation = request.uri.path.hasPrefix("/invite/")
        if isInvitation && request.method == .post {
            guard length <= InviteForm.maxBodyBytes else {
                return FeedResponses.text(.contentTooLarge, "the answer is too large\n", headers: close)
            }
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError where error.status == .notFound {
                response = FeedResponses.notFound()
            }
            // A chunked body may not have been read to its end (a path no route takes): close, never drain it.
            if request.headers[.transferEncoding] != nil { response.headers[.connection] = "close" }
            return response
        }
        guard request.method == .get || request.method == .head else {
            let allowed = isInvitation ? "GET, HEAD, POST" : "GET, HEAD"
            return FeedResponses.text(.methodNotAllowed, "method not allowed\n", headers: close + [.allow: allowed])
        }
        guard !hasBody else {
            return FeedResponses.text(.contentTooLarge, "request bodies are not accepted\n", headers: close)
        }
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound {
            return FeedResponses.notFound()
        }
    }
}
