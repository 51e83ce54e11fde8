import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// How fast a request body must arrive (the one body the server reads: an
/// invitation's answer, at most ``BirthdayCore/InviteForm/maxBodyBytes``).
///
/// A browser sends such a body at once, with its head. A client that sends
/// it a byte at a time would otherwise keep its connection, and a place in
/// ``ConnectionLimiter``, for as long as it likes. So:
/// - the whole body must have arrived ``total`` after its head (10 s);
/// - from ``grace`` on (2 s), it must have come at ``minimumRate`` bytes a
///   second on average (256: a full 4 KB body in 16 s, which ``total`` cuts to 10).
///
/// A body too slow gets its connection closed (nothing was stored: the
/// answer is stored only once read whole). A value, checked against the
/// time since the head and the bytes received; ``BodyPaceHandler`` does the I/O.
package struct BodyPace: Sendable, Hashable {
    package var total: Duration
    package var grace: Duration
    package var minimumRate: Int

    package init(total: Duration = .seconds(10), grace: Duration = .seconds(2), minimumRate: Int = 256) {
        self.total = total
        self.grace = grace
        self.minimumRate = minimumRate
    }

    /// Whether a body of which `received` bytes came in `elapsed` since its
    /// head is too slow to wait for any longer.
    package func isTooSlow(received: Int, elapsed: Duration) -> Bool {
        if elapsed >= total { return true }
        guard elapsed >= grace else { return false }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(received) < Double(minimumRate) * seconds
    }

    /// When to look again after a look at `elapsed`: at the grace's end, then
    /// every half second, never past ``total``.
    package func nextCheck(after elapsed: Duration) -> Duration {
        let next = elapsed < grace ? grace : elapsed + .milliseconds(500)
        return min(next, total) - elapsed
    }
}

/// Holds each request body to its ``BodyPace``: closes the connection when a
/// body is too slow, and at once when the server shuts down while a body is
/// still arriving (graceful shutdown waits for requests in progress; one
/// whose body never comes would hold it forever).
///
/// It sits after ``ConnectionCloseHandler``, which drops every body but an
/// invitation's answer, and before Hummingbird's connection-state handler,
/// which takes the shutdown's `ChannelShouldQuiesceEvent` without passing it on.
final class BodyPaceHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let pace: BodyPace
    /// The body being received: when its head came and how many bytes came since.
    private var receiving: (started: ContinuousClock.Instant, bytes: Int)?
    private var check: Scheduled<Void>?

    init(pace: BodyPace) {
        self.pace = pace
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            stop()
            // Only a body the server reads: any other is dropped and its request refused at once.
            if ConnectionCloseHandler.readsBody(request) {
                receiving = (ContinuousClock.now, 0)
                schedule(context: context, in: pace.nextCheck(after: .zero))
            }
        case .body(let buffer):
            receiving?.bytes += buffer.readableBytes
        case .end:
            stop()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Answered before its body came (a refusal): the connection closes after it; nothing to wait for.
        if case .head = unwrapOutboundIn(data) { stop() }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, receiving != nil {
            stop()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func stop() {
        check?.cancel()
        check = nil
        receiving = nil
    }

    private func schedule(context: ChannelHandlerContext, in delay: Duration) {
        let loop = context.eventLoop.assumeIsolated()
        check = loop.scheduleTask(in: TimeAmount(delay)) { [self] in
            check = nil
            guard let receiving else { return }
            let elapsed = ContinuousClock.now - receiving.started
            if pace.isTooSlow(received: receiving.bytes, elapsed: elapsed) {
                self.receiving = nil
                context.close(promise: nil)
            } else {
                schedule(context: context, in: pace.nextCheck(after: elapsed))
            }
        }
    }
}

@available(*, unavailable)
extension BodyPaceHandler: Sendable {}
