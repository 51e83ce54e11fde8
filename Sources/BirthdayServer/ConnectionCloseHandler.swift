import BirthdayCore
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits in each HTTP/1 connection's pipeline, between the HTTP codec and
/// Hummingbird.
///
/// - Request body parts are dropped, never passed on: no route reads a body,
///   and dropped parts cannot keep an idle connection alive.
/// - After a response that says `Connection: close` is fully written, the
///   connection is closed. Hummingbird only closes when the *request* asks
///   for it; this is how ``RequestGuardMiddleware``'s refusals end the
///   connection instead of reading the rest of an unwanted body.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .body = unwrapInboundIn(data) { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
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
