import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with the revalidation fast path added.
///
/// Hummingbird's `additionalChannelHandlers` go before its connection-state
/// handler, which would then not see the requests the fast path answers
/// (idle timeout, graceful shutdown). So the pipeline is built by
/// `HTTP1Channel` as usual and then two handlers are inserted:
/// ``HTTP1VersionRecorder`` before the HTTP-types codec (the last place the
/// HTTP version is known) and ``FeedRevalidationHandler`` right after the
/// connection-state handler, before Hummingbird's request loop.
struct FeedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let validators: @Sendable () -> FeedValidators?
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let validators = self.validators
        let accessLogger = self.logger
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let version = HTTP1RequestVersion()
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(HTTP1VersionRecorder(version: version), position: .before(codec))
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(
                FeedRevalidationHandler(validators: validators, logger: accessLogger, version: version),
                position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
