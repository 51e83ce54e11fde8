import BirthdayCore
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits in each HTTP/1 connection's pipeline, between the HTTP codec and
/// Hummingbird.
///
/// - Request body parts are dropped, never passed on, but those of a POST to
///   an invitation's address (`/invite/…`), the one route that reads a body
///   (up to its cap: ``InvitationController``); dropped parts cannot keep an
///   idle connection alive.
/// - After a response that says `Connection: close` is fully written, the
///   connection is closed; this is how ``RequestGuardMiddleware``'s refusals
///   end the connection instead of reading the rest of an unwanted body.
/// - After the response to a request that says `Connection: close` (which
///   ``KeepAliveHandler`` adds to HTTP/1.0 requests without keep-alive), the
///   connection is closed too. Hummingbird only half-closes it (its output)
///   and then waits for the client to close, so a client that keeps its end
///   open would hold the socket until the idle timeout.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// For each request read and not yet answered, in order (a client may
    /// send the next one before the last is answered): whether it said
    /// `Connection: close`.
    private var requestsSayingClose = CircularBuffer<Bool>()
    private var closeAfterResponse = false
    /// Whether the body being read belongs to a POST to an invitation's address.
    private var passesBody = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            requestsSayingClose.append(Self.saysClose(request.headerFields))
            passesBody = Self.readsBody(request)
        case .body:
            guard passesBody else { return }
        case .end:
            passesBody = false
        }
        context.fireChannelRead(data)
    }

    /// Whether the server reads `request`'s body: a POST to an invitation's address.
    static func readsBody(_ request: HTTPRequest) -> Bool {
        request.method == .post && (request.path?.hasPrefix("/invite/") ?? false)
    }

    /// Whether `Connection` holds the `close` option (any case, in a list too).
    static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.trimmingWhitespace().lowercased() == "close" }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            let requestSaidClose = requestsSayingClose.popFirst() ?? false
            if requestSaidClose || Self.saysClose(head.headerFields) { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterResponse else {
                context.write(data, promise: promise)
                return
            }
            // Close only once the response has left, so a large one is not cut short.
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            written.assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}

@available(*, unavailable)
extension ConnectionCloseHandler: Sendable {}
