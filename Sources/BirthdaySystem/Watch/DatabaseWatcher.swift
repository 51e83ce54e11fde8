import BirthdayCore
internal import CWake
import Foundation
import Synchronization

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
/// - Idle, the thread sleeps in `poll` and wakes for nothing but these events.
public final class DatabaseWatcher: Sendable {
    /// One element each time the database may have been written.
    public let changes: AsyncStream<Void>

    private let stopFD: Int32
    private let stopped = Mutex(false)

    /// Starts watching the database at `path` (an absolute path).
    ///
    /// - Throws: ``WakeError`` when inotify, the watch or the thread's eventfd cannot be set up.
    public init(database path: String) throws(WakeError) {
        let fd = cwake_inotify_open()
        guard fd >= 0 else { throw WakeError("inotify_init1", errno: -fd) }
        let url = URL(fileURLWithPath: path)
        let wd = cwake_inotify_add_writes(fd, url.deletingLastPathComponent().path)
        guard wd >= 0 else {
            cwake_close(fd)
            throw WakeError("inotify_add_watch", errno: -wd)
        }
        let stopFD = cwake_eventfd()
        guard stopFD >= 0 else {
            cwake_close(fd)
            throw WakeError("eventfd", errno: -stopFD)
        }
        self.stopFD = stopFD
        let name = url.lastPathComponent
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        let loop = Loop(fd: fd, stopFD: stopFD, names: names, continuation: continuation)
        let thread = Thread {
            cwake_name_thread("birthdays-db")
            loop.run()
        }
        thread.start()
    }

    deinit { stop() }

    /// Stops watching and ends ``changes``.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { _ = cwake_eventfd_signal(stopFD) }
    }

    /// The watching thread's state; used on that thread only.
    private final class Loop: @unchecked Sendable {
        let fd: Int32
        let stopFD: Int32
        let names: Set<String>
        let continuation: AsyncStream<Void>.Continuation

        init(fd: Int32, stopFD: Int32, names: Set<String>, continuation: AsyncStream<Void>.Continuation) {
            self.fd = fd
            self.stopFD = stopFD
            self.names = names
            self.continuation = continuation
        }

        deinit {
            cwake_close(fd)
            cwake_close(stopFD)
        }

        func run() {
            defer { continuation.finish() }
            let size = 16 * 4096
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let ready = cwake_wait(-1, fd, stopFD)
                if ready < 0 || ready & Int32(CWAKE_READY_STOP) != 0 { return }
                var written = false
                while true {
                    let length = cwake_inotify_read(fd, buffer, UInt(size))
                    if length <= 0 { break }
                    var offset = 0
                    var wd: Int32 = 0
                    var kind: Int32 = 0
                    var name: UnsafePointer<CChar>?
                    while cwake_inotify_event(buffer, length, &offset, &wd, &kind, &name) == 1 {
                        if kind != Int32(CWAKE_INOTIFY_ENTRY) {
                            written = true
                        } else if let name, names.contains(String(cString: name)) {
                            written = true
                        }
                    }
                }
                if written { continuation.yield() }
            }
        }
    }
}
