import BirthdayCore
import Foundation

/// Reports, without polling, that the users root may list other users:
/// inotify on the root (``UserLayout``), on a thread of its own, for
/// entries named as a user is (``UserName``) that are made, renamed or
/// removed. `birthdays run --all-users` lists the root again at each
/// report and starts or stops users (``UserRoster``).
///
/// `users add` makes the folder, then the database in it; `users remove`
/// renames the folder away (to a name no user has) before deleting it, so
/// either is one event on the user's name. Lost events (queue overflow) and
/// the root going away are reported too; a burst is reported as one
/// (``changes`` keeps only the newest). Idle, the thread sleeps in `poll`.
package final class UsersWatcher: Sendable {
    /// One element each time the root may list other users.
    package let changes: AsyncStream<Void>

    private let thread: InotifyThread

    /// Starts watching the users root `root` (a folder that exists).
    ///
    /// - Throws: ``WakeError`` when inotify, the watch or the thread's eventfd cannot be set up.
    package init(root: String) throws(WakeError) {
        let thread = try InotifyThread()
        let wd = thread.watch(root)
        guard wd >= 0 else { throw WakeError("inotify_add_watch", errno: -wd) }
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        thread.start(name: "birthdays-users") { events in
            if events.contains(where: { $0.kind != .entry || UserName.isValid($0.name) }) { continuation.yield() }
        } end: {
            continuation.finish()
        }
        self.thread = thread
    }

    deinit { stop() }

    /// Stops watching and ends ``changes``.
    package func stop() { thread.stop() }
}
