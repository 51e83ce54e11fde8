import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The users `birthdays serve --all-users` serves, each with their own
/// source (``DatabaseFeedSource`` over their database) and controllers, as
/// `serve --user NAME` would have them; which user a request is for is
/// found by its token in an index of every user's tokens' hashes
/// (``UserTokenIndex``) or, at `/`, by the trusted proxy's header (``UserHeader``).
///
/// Who is served is the follower's to say (``serve(_:folder:source:)``,
/// ``keep(_:)``), as the users root changes. A request is answered for a
/// user only while their folder is still the one their source was opened
/// from (its device and inode, checked on the blocking pool): `users remove`
/// renames the folder away before anything else, so a removed user's
/// tokens answer 404 from that moment, before the follower hears of it.
///
/// ## The index
/// Each user's hashes are read when they are served, with the stamp of
/// their database's files (``FileStampWatch``, the watch their feed's cache
/// already keeps). A token the index names is asked of that one user; a
/// token it does not name (or that user no longer owns) is looked up again
/// after the hashes of every user whose stamp moved since are read again:
/// one `read` of each user's watch that finds nothing, no database asked,
/// when no one changed anything. So a token made or revoked by another
/// command is found, or answers 404, at once; for a user whose folder has no
/// watch (its stamp is two `stat` calls) within ``unwatchedInterval``. One
/// such look runs at a time: a request that comes while one runs waits for
/// the next, which all the requests come meanwhile share.
///
/// A token two users hold (a copy of one user's folder restored as
/// another's) is no one's: 404, logged without the token or the names.
///
/// The invitation forms of all users share one per-address limit, which a
/// `POST` to a token no one has counts against too, as with one user. The
/// client it counts is the one `--trusted-proxy` names (or the connection's
/// address), never the one a user's own `trusted-proxy` setting would:
/// that would let one user decide which address another's guests are.
package final class UserFeeds: Sendable {
    private struct State {
        var feeds: [UserName: UserFeed] = [:]
        var index = UserTokenIndex()
        /// The stamp of each user's database when their hashes were read.
        var read: [UserName: FileStamp] = [:]
        /// The look at who changed that runs now, and the one that runs after it (``freshen()``).
        var freshening: Task<(any Error)?, Never>?
        var nextFreshening: Task<(any Error)?, Never>?
        /// When the stamps of the users without a watch were last taken.
        var unwatchedTaken: Date?
        /// How many times a user's hashes were read (tests).
        var hashReads = 0
    }

    /// How long the stamps of users whose folder has no watch are kept
    /// before a token not found takes them again.
    static let unwatchedInterval: TimeInterval = 5

    private let state = Mutex(State())
    /// The per-address limit of every user's invitation form.
    private let invitationLimit: InviteLimiter
    /// What answers a `POST /invite/<token>` whose token no one has: the limit, then 404.
    let nobody: InvitationController
    /// The proxy `--trusted-proxy` names: the only one whose header names the client the limit counts.
    private let trustedProxy: TrustedProxy?
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - now: the clock of the invitation forms' limit, and of when users without a watch are looked at again.
    ///   - trustedProxy: the proxy `--trusted-proxy` names: whose client
    ///     every answer is counted as by the shared limit (a user's own
    ///     setting does not count for it).
    package init(now: @escaping @Sendable () -> Date, trustedProxy: TrustedProxy? = nil) {
        let limit = InviteLimiter()
        invitationLimit = limit
        self.trustedProxy = trustedProxy
        self.now = now
        nobody = InvitationController(source: NoInvitations(now: now, proxy: trustedProxy), limit: limit, limitProxy: .server(trustedProxy))
    }

    /// The users served now, by name.
    package var served: [UserName] { state.withLock { $0.feeds.keys.sorted() } }

    /// How many token hashes the index holds (tests).
    package var indexedTokens: Int { state.withLock { $0.index.count } }

    /// How many times a user's hashes were read from their database (tests).
    var hashReads: Int { state.withLock { $0.hashReads } }

    /// Serves user `name` from `source`, opened on their database in
    /// `folder`, their tokens' hashes read; `false` (not served) when the folder is gone already.
    @discardableResult
    package func serve(_ name: UserName, folder: String, source: DatabaseFeedSource) async -> Bool {
        guard let identity = await FolderIdentity.read(folder) else { return false }
        let feed = UserFeed(
            source: source,
            calendar: CalendarController(source: source),
            pages: PageController(source: source),
            invitations: InvitationController(source: source, limit: invitationLimit, limitProxy: .server(trustedProxy)),
            folder: folder,
            identity: identity
        )
        state.withLock { state in
            state.feeds[name] = feed
            state.read[name] = nil
            state.index.set(name, tokens: [])
        }
        // A failure leaves them unread: the next token not found reads them again.
        try? await index(name, feed, stamp: await source.fileStamp())
        return true
    }

    /// Serves only `names`: everyone else is dropped, with their caches and hashes.
    package func keep(_ names: Set<UserName>) {
        state.withLock { state in
            state.feeds = state.feeds.filter { names.contains($0.key) }
            state.read = state.read.filter { names.contains($0.key) }
            state.index.keep(names)
        }
    }

    /// User `name`'s feed while they are served and their folder is theirs.
    func feed(_ name: UserName) async -> UserFeed? {
        guard let feed = state.withLock({ $0.feeds[name] }), await feed.isPresent() else { return nil }
        return feed
    }

    /// The revalidation fast path's validators (``RevalidationOracle``) for
    /// `target` of the served user the index names for `token`, as their own
    /// server's oracle gives them: fresh only while their database's watch saw
    /// no change, so a removed user (their folder renamed away, which the watch
    /// sees) or a revoked token takes the route, and its 404, at once. On the
    /// event loop: one hash and one lookup, no I/O but the watch's `read`.
    func freshValidators(_ target: RevalidationTarget, token: String) -> FeedValidators? {
        let hash = Share.tokenHash(token)
        guard let feed = state.withLock({ state in state.index.user(hash: hash).flatMap { state.feeds[$0] } }) else { return nil }
        return switch target {
        case .feed: feed.calendar.freshValidators(.feed)
        case .list: feed.calendar.freshValidators(.list)
        case .page(let host): feed.pages.freshValidators(host: host)
        }
    }

    /// Whether user `name` is served (the header's question, on the event loop: no I/O).
    func isServed(_ name: UserName) -> Bool { state.withLock { $0.feeds[name] != nil } }

    /// The served user whose token `token` is, as `owns` says: the user the
    /// index names, else, after every changed user's hashes are read again,
    /// the user it names then; `nil` when no one's (or their folder has
    /// gone), or when two users hold it (logged to `logger`, naming neither).
    ///
    /// - Throws: the user's error when `owns` fails, or when no user has the
    ///   token and a changed user's hashes could not be read: 503, not a 404
    ///   that would tell their subscriber the address is dead.
    func feed(token: String, logger: Logger? = nil, owns: (UserFeed) async throws -> Bool) async throws -> UserFeed? {
        let hash = Share.tokenHash(token)
        var asked: UserName?
        var failure: (any Error)?
        var shared = false
        for pass in 0..<2 {
            if pass == 1 { failure = await freshen() }
            let named = state.withLock { state in
                shared = state.index.isShared(hash: hash)
                return state.index.user(hash: hash).flatMap { name in state.feeds[name].map { (name: name, feed: $0) } }
            }
            guard let named, named.name != asked else { continue }
            let (name, feed) = named
            asked = name
            guard try await owns(feed) else { continue }
            return await feed.isPresent() ? feed : nil
        }
        // The user names are the administrator's, not the request's: neither they nor the token are logged.
        if shared { logger?.warning("a token is held by two users; it answers 404 until one of them rotates it") }
        if let failure { throw failure }
        return nil
    }

    /// ``freshenNow()``, one at a time: a caller that comes while one runs
    /// waits for the one queued after it (begun after the caller came, so
    /// it sees what changed before), which every caller meanwhile shares.
    private func freshen() async -> (any Error)? {
        let task: Task<(any Error)?, Never> = state.withLock { state in
            if let next = state.nextFreshening { return next }
            guard let running = state.freshening else {
                let task = Task { await self.freshenNow() }
                state.freshening = task
                return task
            }
            let task = Task {
                _ = await running.value
                // This is the queued one: it runs now, and callers from now on queue after it.
                self.state.withLock { state in
                    state.freshening = state.nextFreshening
                    state.nextFreshening = nil
                }
                return await self.freshenNow()
            }
            state.nextFreshening = task
            return task
        }
        return await task.value
    }

    /// Reads again the hashes of every served user whose database's stamp
    /// moved since they were read; the first failure, if any. The stamps
    /// the watches keep are read on the spot; those to take (a user whose
    /// watch saw a change, or whose folder has no watch, those at most once
    /// in ``unwatchedInterval``) are taken in one hop to the blocking pool for all of them.
    private func freshenNow() async -> (any Error)? {
        defer { state.withLock { $0.freshening = nil } }
        let moment = now()
        let (feeds, read, unwatched) = state.withLock { state in
            let due = state.unwatchedTaken.map { !(0..<Self.unwatchedInterval).contains(moment.timeIntervalSince($0)) } ?? true
            if due { state.unwatchedTaken = moment }
            return (state.feeds, state.read, due)
        }
        var stamps: [(name: UserName, feed: UserFeed, stamp: FileStamp)] = []
        var toTake: [(name: UserName, feed: UserFeed)] = []
        for (name, feed) in feeds {
            if let kept = feed.source.keptFileStamp() {
                stamps.append((name, feed, kept))
            } else if unwatched || feed.source.isWatched() {
                toTake.append((name, feed))
            }
        }
        if !toTake.isEmpty {
            let taking = toTake
            stamps += await Blocking.run { taking.map { (name: $0.name, feed: $0.feed, stamp: $0.feed.source.fileStampBlocking()) } }
        }
        var failure: (any Error)?
        for (name, feed, stamp) in stamps {
            guard stamp != read[name] else { continue }
            do {
                try await index(name, feed, stamp: stamp)
            } catch {
                failure = failure ?? error
            }
        }
        return failure
    }

    /// Reads user `name`'s hashes into the index, with `stamp` taken before
    /// them (a write in between only makes them read again), unless another
    /// feed was served under the name meanwhile.
    private func index(_ name: UserName, _ feed: UserFeed, stamp: FileStamp) async throws {
        state.withLock { $0.hashReads += 1 }
        let tokens = try await feed.source.database.tokenHashes()
        state.withLock { state in
            guard state.feeds[name]?.identity == feed.identity else { return }
            state.index.set(name, tokens: tokens)
            state.read[name] = stamp
        }
    }
}

/// The invitations of no one: what a token no served user has is answered
/// by (``UserFeeds/nobody``), so that its `POST` meets the per-address limit
/// before its 404, as with one user.
private struct NoInvitations: InvitationSource {
    let now: @Sendable () -> Date
    let proxy: TrustedProxy?

    func inviteForm(token: String) async throws -> InviteResponse? { nil }
    func inviteAnswer(token: String, body: [UInt8]) async throws -> InviteResponse? { nil }
    func inviteBusy(token: String, body: [UInt8]) async throws -> InviteResponse? { nil }
    func trustedProxy() async throws -> TrustedProxy? { proxy }
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

/// Builds `birthdays serve --all-users` over `feeds`: every served user's
/// feed, JSON twin, page and shares under `/calendar/<token>…`, their
/// invitations' forms under `/invite/<token>`, each found by its token
/// (``UserFeeds``) and answered by that user's own controllers exactly as
/// a single user's server answers; `/page.css`, `/favicon.svg`,
/// `/healthz`; and with `userHeader`, `GET /`: the page of the user the
/// trusted proxy names (``UserHeader``), 403 for a header it refuses (the
/// same few words whatever the reason), 404 without one.
///
/// Revalidations take the fast path as with one user
/// (``FeedRevalidationHandler``), the token's user found in the index
/// (``UserFeeds/freshValidators(_:token:)``); a share's token, a stale
/// revision or a user not (or no longer) served takes the route.
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
        validators: { target, token in feeds.freshValidators(target, token: token()) },
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
                try await feeds.feed(token: token, logger: context.logger) { try await $0.ownsCalendar(token) }
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
        feed = try await feeds.feed(token: token, logger: context.logger) { try await $0.ownsInvitation(token) }
    } catch {
        return unavailable(error, context: context)
    }
    guard let feed else {
        // No one's: a POST still counts against the address's limit, as with one user.
        return request.method == .post ? try await feeds.nobody.answer(request, context: context) : FeedResponses.notFound()
    }
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
