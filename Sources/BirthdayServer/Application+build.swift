import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The address the feed is served on unless configured otherwise: loopback
/// only, so the birthday list is not reachable from the network by default.
package enum FeedServerDefaults {
    package static let host = "127.0.0.1"
    package static let port = 8484
    /// How long a connection may send nothing (or only part of a request head) before it is closed.
    package static let idleTimeout = Duration.seconds(30)
    /// How long SIGTERM waits for requests in progress before it cancels them.
    package static let shutdownGrace = Duration.seconds(3)
}

/// Runs a feed server built by ``buildFeedApplication(source:host:port:logger:idleTimeout:bodyPace:maxConnections:onServerRunning:)``
/// until SIGTERM or SIGINT: it stops accepting, closes idle connections and
/// those still sending a body (``BodyPaceHandler``), and gives the requests
/// in progress ``FeedServerDefaults/shutdownGrace`` before cancelling them,
/// so the server ends within seconds whatever its clients hold open.
package func runFeedServer(_ app: some ApplicationProtocol, logger: Logger) async throws {
    var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = FeedServerDefaults.shutdownGrace
    try await ServiceGroup(configuration: configuration).run()
}

/// Builds the feed server: `GET`/`HEAD /calendar/<token>.ics`, its JSON
/// twin `/calendar/<token>.json`, the page for the year, the invitation
/// form (`GET`/`POST /invite/<token>`), and `GET /healthz`.
///
/// The result is a Hummingbird application and so a swift-service-lifecycle
/// `Service`: run it alone with `runService()`, or put it in the daemon's
/// `ServiceGroup`, which shuts it down gracefully on SIGTERM.
///
/// - Parameters:
///   - source: where the feed, its revision and the token come from.
///   - host: the address to bind; ``FeedServerDefaults/host`` is loopback.
///   - port: the TCP port; 0 picks a free one (tests).
///   - logger: receives one access line per request (no tokens, paths,
///     names or bodies) and Hummingbird's server messages.
///   - idleTimeout: how long an idle or slow connection is kept; a request
///     head that does not arrive completely within it is dropped.
///   - bodyPace: how fast a request body (an invitation's answer) must
///     arrive; a slower one has its connection closed.
///   - maxConnections: the most connections open at once; by default the
///     descriptor limit less a reserve (``ConnectionLimiter`` says why and
///     what happens at the bound).
///   - onServerRunning: called once the server listens (its port is bound).
package func buildFeedApplication(
    source: some FeedSource,
    host: String = FeedServerDefaults.host,
    port: Int = FeedServerDefaults.port,
    logger: Logger,
    idleTimeout: Duration = FeedServerDefaults.idleTimeout,
    bodyPace: BodyPace = BodyPace(),
    maxConnections: Int? = nil,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router(context: FeedRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: RequestGuardMiddleware())
    let controller = FeedController(source: source)
    controller.addRoutes(to: router)

    let limiter = ConnectionLimiter(bound: maxConnections, logger: logger)
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            FeedHTTP1Channel(
                responder: responder,
                idleTimeout: idleTimeout,
                bodyPace: bodyPace,
                validators: { controller.freshValidators($0) },
                limiter: limiter,
                logger: logger
            )
        },
        configuration: .init(address: .hostname(host, port: port), serverName: nil, availableConnectionsDelegate: limiter.delegate),
        onServerRunning: onServerRunning,
        logger: logger
    )
}
