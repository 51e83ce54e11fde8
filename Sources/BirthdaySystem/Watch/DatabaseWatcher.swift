import BirthdayCore
import Foundation

/// Reports, without polling, that the database file may have been written:
/// inotify on its folder, on a thread of its own, for the database and its
/// write-ahead log (`-wal`) and rollback journal (`-journal`).
///
/// This is how `birthdays run` hears every write another command makes
/// (`import`, `settings set`, `exclude`, a source sync): it is told that
/// something was written, and then asks SQLite whether another connection
/// committed (`PRAGMA data_version`, ``AppDatabase/dataVersion()`` in the
/// store), which its own writes never change. So no command has to signal
/// the daemon, and none can forget to.
///
/// Rules:
/// - Every write counts (`IN_MODIFY`), and so does the writer's last close
///   (`IN_CLOSE_WRITE`), which comes after the commit is complete; a burst of
///   events is reported as one (``changes`` keeps only the newest).
/// - Lost events (queue overflow) and the folder going away are reported too.
/// - The folder going away (deleted, moved, its file system unmounted) is
///   also reported on its own (``gone``): `run --all-users` ends the
///   daemon of a user whose folder went.
/// - Idle, the thread sleeps in `poll` and wakes for nothing but these events.
package final class DatabaseWatcher: Sendable {
    /// One element each time the database may have been written.
    package let changes: AsyncStream<Void>
    /// One element when the database's folder was deleted or moved (or its watch ended otherwise).
    package let gone: AsyncStream<Void>

    private let thread: InotifyThread

    /// Starts watching the database at `path` (an absolute path).
    ///
    /// - Throws: ``WakeError`` when inotify, the watch or the thread's eventfd cannot be set up.
    package init(database path: String) throws(WakeError) {
        let thread = try InotifyThread()
        let url = URL(fileURLWithPath: path)
        let wd = thread.watch(url.deletingLastPathComponent().path, writes: true)
        guard wd >= 0 else { throw WakeError("inotify_add_watch", errno: -wd) }
        let name = url.lastPathComponent
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        let (gone, goneContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.gone = gone
        thread.start(name: "birthdays-db") { events in
            if events.contains(where: { $0.kind != .entry || names.contains($0.name) }) { continuation.yield() }
            if events.contains(where: { $0.kind == .gone }) { goneContinuation.yield() }
        } end: {
            continuation.finish()
            goneContinuation.finish()
        }
        self.thread = thread
    }

    deinit { stop() }

    /// Stops watching and ends ``changes``.
    package func stop() { thread.stop() }
}
