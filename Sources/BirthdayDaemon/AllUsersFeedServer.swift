import BirthdayCore
import BirthdayServer
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Who `birthdays serve --all-users` serves, following the users root:
/// it lists the root at start and whenever the root's watch (``UsersWatcher``)
/// or SIGHUP says it may have changed, opens the source of each user newly
/// listed and drops each user no longer listed (``UserFeeds``). Thin: the
/// server decides nothing here.
///
/// A user whose database does not open is logged with their name and left
/// out until the root changes again or SIGHUP; the others are served all
/// the same.
package struct UsersFeedFollower: Service {
    /// What the server answers from.
    package let feeds: UserFeeds
    let folders: UserFolders
    let open: @Sendable (UserName) async throws -> DatabaseFeedSource
    let logger: Logger

    /// - Parameters:
    ///   - folders: the users root.
    ///   - open: user `name`'s source over their own database, as `serve --user NAME` makes it.
    ///   - logger: what concerns users as a whole (their names, never their people).
    ///   - now: the clock of the invitation forms' per-address limit.
    ///   - trustedProxy: the proxy `--trusted-proxy` names (``UserFeeds/init(now:trustedProxy:)``).
    package init(
        folders: UserFolders,
        open: @escaping @Sendable (UserName) async throws -> DatabaseFeedSource,
        logger: Logger,
        now: @escaping @Sendable () -> Date,
        trustedProxy: TrustedProxy?
    ) {
        self.feeds = UserFeeds(now: now, trustedProxy: trustedProxy)
        self.folders = folders
        self.open = open
        self.logger = logger
    }

    /// Lists the root and serves who it lists: every user not served yet
    /// opened at once, each in a task of its own; those no longer listed
    /// dropped. The server calls it once before it listens, so its first
    /// request finds every user.
    ///
    /// - Throws: ``UserFolderError`` when the root cannot be listed (at start: the server does not start).
    package func follow() async throws(UserFolderError) {
        let folders = folders
        let names = try await Blocking.run { () throws(UserFolderError) in try folders.list() }
        feeds.keep(Set(names))
        let served = Set(feeds.served)
        await withTaskGroup(of: Void.self) { group in
            for name in names where !served.contains(name) {
                group.addTask {
                    do {
                        let source = try await open(name)
                        if await feeds.serve(name, folder: folders.folder(name), source: source) {
                            logger.notice("serving user", metadata: ["user": "\(name)"])
                        }
                    } catch {
                        logger.error("cannot serve user until the users change or SIGHUP", metadata: ["user": "\(name)", "error": "\(error)"])
                    }
                }
            }
        }
        // A user removed while their database was being opened.
        feeds.keep(Set(try await Blocking.run { () throws(UserFolderError) in try folders.list() }))
    }

    package func run() async throws {
        let watcher = UsersWatcher.orWarning(root: folders.root, logger: logger)
        defer { watcher?.stop() }
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            if let watcher {
                group.addTask {
                    for await _ in watcher.changes { continuation.yield() }
                }
            }
            group.addTask {
                for await _ in hangups { continuation.yield() }
            }
            group.addTask {
                try? await gracefulShutdown()
                continuation.finish()
            }
            for await _ in changes {
                do {
                    try await follow()
                } catch {
                    logger.error("cannot list the users; those served are kept", metadata: ["error": "\(error)"])
                }
            }
            group.cancelAll()
        }
    }
}
