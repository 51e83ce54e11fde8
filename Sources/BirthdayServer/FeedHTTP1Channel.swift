import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The feed server's HTTP/1 connection: the pipeline is built here, in one
/// place, from public pieces (NIO's HTTP/1 codec, the HTTP-types codec,
/// Hummingbird's connection-state handler and request loop) with the feed's
/// own handlers at fixed positions, never by finding Hummingbird's handlers
/// by type in a pipeline someone else built:
///
/// | position | handler | does |
/// |---|---|---|
/// | 0 | ``FeedRevalidationBytes`` | answers a revalidation that is certain from its bytes, while position 8 is idle |
/// | 1 | NIO `HTTPResponseEncoder`, `HTTPRequestDecoder` | HTTP/1 bytes ⇄ parts |
/// | 2 | ``KeepAliveHandler`` | a request that does not keep the connection alive (HTTP/1.0 without `keep-alive`, `Connection: close`) says `Connection: close`, so the connection is closed after its response |
/// | 3 | `HTTP1ToHTTPServerCodec` | NIO parts ⇄ HTTP-types parts |
/// | 4 | ``ConnectionLimitHandler`` | tells the ``ConnectionLimiter`` when the connection is busy, idle or closed |
/// | 5 | ``ConnectionCloseHandler`` | drops request bodies; closes after a response that says `Connection: close`, or to a request that does |
/// | 6 | ``BodyPaceHandler`` | closes the connection when the body it reads is too slow (``BodyPace``), or when the server shuts down while it arrives |
/// | 7 | `HTTPConnectionStateHandler` | idle timeout, graceful shutdown |
/// | 8 | ``FeedRevalidationHandler`` | answers matching revalidations with `304` on the event loop |
/// | 9 | Hummingbird's request loop | the router and its middleware |
///
/// The revalidation fast path sits after the connection-state handler, so
/// the requests it answers count for idle timeouts and graceful shutdown
/// like any other.
struct FeedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let idleTimeout: Duration
    let bodyPace: BodyPace
    let validators: RevalidationOracle
    let limiter: ConnectionLimiter
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let revalidation = FeedRevalidationHandler(validators: validators, logger: self.logger)
            try pipeline.addHandler(
                FeedRevalidationBytes(validators: validators, behind: revalidation, idleTimeout: idleTimeout, logger: self.logger)
            )
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // Hummingbird's request loop reads one request at a time
                withErrorHandling: false,  // errors are answered by Hummingbird
                withOutboundHeaderValidation: false  // HTTP-types validated them already
            )
            try pipeline.addHandler(KeepAliveHandler())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(ConnectionLimitHandler(limiter: limiter))
            try pipeline.addHandler(ConnectionCloseHandler())
            try pipeline.addHandler(BodyPaceHandler(pace: bodyPace))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            try pipeline.addHandler(revalidation)
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

/// Makes a request that does not keep its connection alive say so in a
/// header, since the HTTP-types codec drops the HTTP version: an HTTP/1.0
/// request without `Connection: keep-alive` gets `Connection: close`, and
/// everything after it (Hummingbird, ``FeedRevalidationHandler``) closes the
/// connection after answering it instead of holding it open until the idle
/// timeout.
final class KeepAliveHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

@available(*, unavailable)
extension KeepAliveHandler: Sendable {}
