import BirthdayCore
import Foundation
import Synchronization

/// Reports, without polling, that the database file may have been written:
/// inotify on its folder, a watch of the process's one inotify instance read
/// on its one thread (``SharedInotify``), for the database and its
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

    private let shared: SharedInotify
    private let added: (watch: Int32, id: UInt64)
    private let ends: Mutex<(@Sendable () -> Void)?>

    /// Starts watching the database at `path` (an absolute path), with the
    /// process's one inotify instance (``SharedInotify``).
    ///
    /// - Throws: ``WakeError`` when inotify, the watch or the thread's eventfd cannot be set up.
    package init(database path: String) throws(WakeError) {
        let shared = try SharedInotify.instance()
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        let (gone, goneContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.gone = gone
        added = try shared.watch(url.deletingLastPathComponent().path) { events in
            if events.contains(where: { $0.kind != .entry || names.contains($0.name) }) { continuation.yield() }
            if events.contains(where: { $0.kind == .gone }) { goneContinuation.yield() }
        }
        self.shared = shared
        ends = Mutex {
            continuation.finish()
            goneContinuation.finish()
        }
    }

    deinit { stop() }

    /// Stops watching and ends ``changes`` and ``gone`` (once).
    package func stop() {
        let end = ends.withLock { ends in
            let end = ends
            ends = nil
            return end
        }
        guard let end else { return }
        shared.remove(added)
        end()
    }
}
