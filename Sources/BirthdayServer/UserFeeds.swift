import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The users `birthdays serve --all-users` serves, each with their own
/// source (``DatabaseFeedSource`` over their database) and controllers, as
/// `serve --user NAME` would have them; which user a request is for is
/// found by its token (``UserTokenIndex`` says whom to ask first) or, at
/// `/`, by the trusted proxy's header (``UserHeader``).
///
/// Who is served is the follower's to say (``serve(_:folder:source:)``,
/// ``keep(_:)``), as the users root changes. A request is answered for a
/// user only while their folder is still the one their source was opened
/// from (its device and inode, checked on the blocking pool): `users remove`
/// renames the folder away before anything else, so a removed user's
/// tokens answer 404 from that moment, before the follower hears of it.
package final class UserFeeds: Sendable {
    private struct State {
        var feeds: [UserName: UserFeed] = [:]
        var index = UserTokenIndex()
    }

    private let state = Mutex(State())

    package init() {}

    /// The users served now, by name.
    package var served: [UserName] { state.withLock { $0.feeds.keys.sorted() } }

    /// Serves user `name` from `source`, opened on their database in
    /// `folder`; `false` (not served) when the folder is gone already.
    @discardableResult
    package func serve(_ name: UserName, folder: String, source: DatabaseFeedSource) async -> Bool {
        guard let identity = await FolderIdentity.read(folder) else { return false }
        let feed = UserFeed(
            source: source,
            calendar: CalendarController(source: source),
            pages: PageController(source: source),
            invitations: InvitationController(source: source),
            folder: folder,
            identity: identity
        )
        state.withLock { $0.feeds[name] = feed }
        return true
    }

    /// Serves only `names`: everyone else is dropped, with their caches and hints.
    package func keep(_ names: Set<UserName>) {
        state.withLock { state in
            state.feeds = state.feeds.filter { names.contains($0.key) }
            state.index.keep(names)
        }
    }

    /// User `name`'s feed while they are served and their folder is theirs.
    func feed(_ name: UserName) async -> UserFeed? {
        guard let feed = state.withLock({ $0.feeds[name] }), await feed.isPresent() else { return nil }
        return feed
    }

    /// Whether user `name` is served (the header's question, on the event loop: no I/O).
    func isServed(_ name: UserName) -> Bool { state.withLock { $0.feeds[name] != nil } }

    /// The served user whose token `token` is, as `owns` says, asking the
    /// user the token was last found with first (``UserTokenIndex``), then
    /// every other; `nil` when no one's (or their folder has gone).
    ///
    /// - Throws: the first user's error when no user owns the token and one
    ///   could not say (their database failed): 503, not a 404 that would
    ///   tell their subscriber the address is dead.
    func feed(token: String, owns: (UserFeed) async throws -> Bool) async throws -> UserFeed? {
        let hash = Share.tokenHash(token)
        let (candidates, feeds) = state.withLock { ($0.index.candidates(hash: hash, served: $0.feeds.keys), $0.feeds) }
        var failure: (any Error)?
        for name in candidates {
            guard let feed = feeds[name] else { continue }
            do {
                guard try await owns(feed) else { continue }
            } catch {
                failure = failure ?? error
                continue
            }
            guard await feed.isPresent() else { return nil }
            state.withLock { $0.index.found(hash: hash, user: name) }
            return feed
        }
        if let failure { throw failure }
        return nil
    }
}

/// One user served by `serve --all-users`: what `serve --user NAME` would
/// build over their database.
struct UserFeed: Sendable {
    let source: DatabaseFeedSource
    let calendar: CalendarController<DatabaseFeedSource>
    let pages: PageController<DatabaseFeedSource>
    let invitations: InvitationController
    /// Their folder, and what it was when the source was opened.
    let folder: String
    let identity: FolderIdentity

    /// Whether the folder is still the one the source was opened from
    /// (one `lstat`, on the blocking pool).
    func isPresent() async -> Bool { await FolderIdentity.read(folder) == identity }

    /// Whether `token` is the user's feed token or one of their shares'.
    func ownsCalendar(_ token: String) async throws -> Bool {
        if FeedToken.constantTimeEquals(token, try await source.token()) { return true }
        return try await source.share(token: token) != nil
    }

    /// Whether `token` is one of the user's invitation links.
    func ownsInvitation(_ token: String) async throws -> Bool {
        try await source.database.hasInvitation(token: token)
    }
}

/// A folder's device and inode (never through a link): a folder renamed
/// away and another made under its name are told apart.
struct FolderIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64

    /// `path`'s identity when it is a folder, read on the blocking pool; `nil` otherwise.
    static func read(_ path: String) async -> FolderIdentity? {
        await Blocking.run {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }
}

/// Builds `birthdays serve --all-users` over `feeds`: every served user's
/// feed, JSON twin, page and shares under `/calendar/<token>…`, their
/// invitations' forms under `/invite/<token>`, each found by its token
/// (``UserFeeds``) and answered by that user's own controllers exactly as
/// a single user's server answers; `/page.css`, `/favicon.svg`,
/// `/healthz`; and with `userHeader`, `GET /`: the page of the user the
/// trusted proxy names (``UserHeader``), 403 for a header it refuses (the
/// same few words whatever the reason), 404 without one.
///
/// The revalidation fast path is off (it knows one owner's token); every
/// request takes the route.
package func buildAllUsersFeedApplication(
    feeds: UserFeeds,
    userHeader: UserHeader?,
    host: String = FeedServerDefaults.host,
    port: Int = FeedServerDefaults.port,
    logger: Logger,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> some ApplicationProtocol {
    buildFeedApplication(
        router: buildAllUsersFeedRouter(feeds: feeds, userHeader: userHeader),
        validators: { _ in nil },
        host: host,
        port: port,
        logger: logger,
        idleTimeout: FeedServerDefaults.idleTimeout,
        bodyPace: BodyPace(),
        maxConnections: nil,
        onServerRunning: onServerRunning
    )
}

/// The router of ``buildAllUsersFeedApplication(feeds:userHeader:host:port:logger:onServerRunning:)``.
func buildAllUsersFeedRouter(feeds: UserFeeds, userHeader: UserHeader?) -> Router<FeedRequestContext> {
    let router = Router(context: FeedRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: RequestGuardMiddleware())
    let calendar = router.group("calendar")
    for (pattern, kind) in [("{token}.ics", CalendarPath.Kind.feed), ("{token}.json", .list), (":token", .page)] {
        calendar.get(RouterPath(pattern)) { request, context in
            guard let token = CalendarPath.token(request.uri.path, asking: kind), FeedToken.isWellFormed(token) else {
                return FeedResponses.notFound()
            }
            return await answer(context) {
                try await feeds.feed(token: token) { try await $0.ownsCalendar(token) }
            } with: { feed in
                kind == .page ? await feed.pages.page(request, context: context) : await feed.calendar.respond(request, context: context, kind: kind)
            }
        }
    }
    PageFiles.addRoutes(to: router.group())
    let invite = router.group("invite")
    invite.get(":token") { request, context in
        try await invitation(request, context: context, feeds: feeds) { try await $0.invitations.form(request, context: context) }
    }
    invite.post(":token") { request, context in
        try await invitation(request, context: context, feeds: feeds) { try await $0.invitations.answer(request, context: context) }
    }
    if let userHeader, let field = HTTPField.Name(userHeader.name) {
        router.get("/") { request, context in
            let decision = userHeader.decide(peer: context.peerAddress, values: request.headers[values: field], served: feeds.isServed)
            switch decision {
            case .none:
                return FeedResponses.notFound()
            case .refused:
                return refused()
            case .user(let name):
                // Removed, their folder renamed away, before the follower heard: refused as any user not served.
                guard let feed = await feeds.feed(name) else { return refused() }
                do {
                    let token = try await feed.source.token()
                    return await feed.pages.page(request, context: context, token: token, linkBase: "calendar/")
                } catch {
                    return unavailable(error, context: context)
                }
            }
        }
    }
    router.get("healthz") { _, _ in
        FeedResponses.text(.ok, "ok\n")
    }
    return router
}

/// An invitation's form or answer, by the user whose link the token is.
private func invitation(
    _ request: Request,
    context: FeedRequestContext,
    feeds: UserFeeds,
    respond: (UserFeed) async throws -> Response
) async throws -> Response {
    guard let token = context.parameters.get("token"), FeedToken.isWellFormed(token) else { return FeedResponses.notFound() }
    let feed: UserFeed?
    do {
        feed = try await feeds.feed(token: token) { try await $0.ownsInvitation(token) }
    } catch {
        return unavailable(error, context: context)
    }
    guard let feed else { return FeedResponses.notFound() }
    return try await respond(feed)
}

/// The answer of the user `find` finds by `respond`, 404 when it finds none, 503 when it fails.
private func answer(
    _ context: FeedRequestContext,
    find: () async throws -> UserFeed?,
    with respond: (UserFeed) async -> Response
) async -> Response {
    let feed: UserFeed?
    do {
        feed = try await find()
    } catch {
        return unavailable(error, context: context)
    }
    guard let feed else { return FeedResponses.notFound() }
    return await respond(feed)
}

/// 403 for a user header that is refused (``UserHeader``): the same words whatever the reason, naming no one.
private func refused() -> Response {
    FeedResponses.text(.forbidden, "forbidden\n", headers: [.cacheControl: "no-store"])
}

/// 503: a user's database failed (its error's type logged, never its text).
private func unavailable(_ error: any Error, context: FeedRequestContext) -> Response {
    context.logger.error("Feed source failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
    var response = FeedResponses.text(.serviceUnavailable, "feed unavailable\n")
    response.headers[.retryAfter] = "60"
    return response
}
