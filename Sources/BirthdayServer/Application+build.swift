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
///
/// `before` run in the same group, started before the server and stopped
/// after it (``InvitationFollowUp``: the dates the server's last answers gave
/// are still handed over); `beside` after it (`serve --all-users`: the
/// follower of the users root).
package func runFeedServer(
    _ app: some ApplicationProtocol,
    before: [any Service] = [],
    beside: [any Service] = [],
    logger: Logger
) async throws {
    var configuration = ServiceGroupConfiguration(
        services: before + [app] + beside,
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    configuration.maximumGracefulShutdownDuration = FeedServerDefaults.shutdownGrace
    try await ServiceGroup(configuration: configuration).run()
}

/// Builds the feed server over `source` for the calendar and the page, and
/// `invitations` for the invitation form: `GET`/`HEAD /calendar/<token>.ics`,
/// its JSON twin `/calendar/<token>.json`, the page for the year
/// `/calendar/<token>` with `/page.css` and `/favicon.svg`, the invitation form
/// (`GET`/`POST /invite/<token>`; none without `invitations`), and `GET /healthz`.
///
/// The result is a Hummingbird application and so a swift-service-lifecycle
/// `Service`: run it alone with `runService()`, or put it in the daemon's
/// `ServiceGroup`, which shuts it down gracefully on SIGTERM.
///
/// - Parameters:
///   - source: where the feed, the page, their revisions and the token come from.
///   - invitations: where the invitations' forms and answers go; `nil`: no invitation route.
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
    source: some PageSource,
    invitations: (any InvitationSource)?,
    host: String = FeedServerDefaults.host,
    port: Int = FeedServerDefaults.port,
    logger: Logger,
    idleTimeout: Duration = FeedServerDefaults.idleTimeout,
    bodyPace: BodyPace = BodyPace(),
    maxConnections: Int? = nil,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let (router, validators) = buildFeedRouter(source: source, invitations: invitations)
    return buildFeedApplication(
        router: router,
        validators: validators,
        host: host,
        port: port,
        logger: logger,
        idleTimeout: idleTimeout,
        bodyPace: bodyPace,
        maxConnections: maxConnections,
        onServerRunning: onServerRunning
    )
}

/// The feed server over `router`, its revalidation fast path asking `validators`:
/// what ``buildFeedApplication(source:invitations:host:port:logger:idleTimeout:bodyPace:maxConnections:onServerRunning:)``
/// and `serve --all-users` (``buildAllUsersFeedApplication(feeds:userHeader:host:port:logger:onServerRunning:)``) share.
func buildFeedApplication(
    router: Router<FeedRequestContext>,
    validators: @escaping RevalidationOracle,
    host: String,
    port: Int,
    logger: Logger,
    idleTimeout: Duration,
    bodyPace: BodyPace,
    maxConnections: Int?,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void
) -> some ApplicationProtocol {
    let limiter = ConnectionLimiter(bound: maxConnections, logger: logger)
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            FeedHTTP1Channel(
                responder: responder,
                idleTimeout: idleTimeout,
                bodyPace: bodyPace,
                validators: validators,
                limiter: limiter,
                logger: logger
            )
        },
        configuration: .init(address: .hostname(host, port: port), serverName: nil, availableConnectionsDelegate: limiter.delegate),
        onServerRunning: onServerRunning,
        logger: logger
    )
}

/// The feed server's router, one controller per feature, each mounted on
/// its group as the Hummingbird examples do: ``CalendarController`` and
/// ``PageController`` on `calendar` (the page's files at the root),
/// ``InvitationController`` on `invite` when there are `invitations`; and the
/// revalidation fast path's oracle, which asks the calendar's or the page's
/// controller as ``CalendarPath`` reads the path.
func buildFeedRouter(
    source: some PageSource,
    invitations: (any InvitationSource)?
) -> (router: Router<FeedRequestContext>, validators: RevalidationOracle) {
    let router = Router(context: FeedRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: RequestGuardMiddleware())
    let calendar = CalendarController(source: source)
    let pages = PageController(source: source)
    calendar.addRoutes(to: router.group("calendar"))
    pages.addRoutes(to: router.group("calendar"))
    pages.addFiles(to: router.group())
    if let invitations {
        InvitationController(source: invitations).addRoutes(to: router.group("invite"))
    }
    router.get("healthz") { _, _ in
        FeedResponses.text(.ok, "ok\n")
    }
    let validators: RevalidationOracle = { target, _ in
        switch target {
        case .feed: calendar.freshValidators(.feed)
        case .list: calendar.freshValidators(.list)
        case .page(let host): pages.freshValidators(host: host)
        }
    }
    return (router, validators)
}
