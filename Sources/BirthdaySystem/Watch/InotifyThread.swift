import BirthdayCore
internal import CWake
import Foundation
import Synchronization

/// One inotify descriptor read on a thread of its own until ``stop()``:
/// what ``SourceWatcher`` and ``DatabaseWatcher`` share.
///
/// Add the watches first (``watch(_:writes:)``), then ``start(name:_:)``
/// with what to do with each batch of events read together. Idle, the
/// thread sleeps in `poll` on the descriptor and a stop eventfd, and wakes
/// for nothing else. The descriptors are closed when the thread ends.
final class InotifyThread: Sendable {
    /// One event: its watch descriptor, what happened, and the entry's name ("" when none).
    struct Event: Sendable {
        enum Kind: Sendable {
            /// An entry of the watched folder changed.
            case entry
            /// The watched folder was deleted or moved, or its watch ended.
            case gone
            /// Events were lost: look at everything again.
            case overflow
        }

        var watch: Int32
        var kind: Kind
        var name: String
    }

    private let fd: Int32
    private let stopper: Stopper
    private let started = Mutex(false)

    /// The stop eventfd, signalled at most once and never after it is closed
    /// (its number could belong to another file by then).
    final class Stopper: Sendable {
        let fd: Int32
        /// True once signalled or closed.
        private let done = Mutex(false)

        init(fd: Int32) { self.fd = fd }

        func signal() {
            done.withLock { done in
                guard !done else { return }
                done = true
                _ = cwake_eventfd_signal(fd)
            }
        }

        func close() {
            done.withLock { done in
                done = true
                cwake_close(fd)
            }
        }
    }

    /// - Throws: ``WakeError`` when inotify or the eventfd cannot be created.
    init() throws(WakeError) {
        let fd = cwake_inotify_open()
        guard fd >= 0 else { throw WakeError("inotify_init1", errno: -fd) }
        let stopFD = cwake_eventfd()
        guard stopFD >= 0 else {
            cwake_close(fd)
            throw WakeError("eventfd", errno: -stopFD)
        }
        self.fd = fd
        self.stopper = Stopper(fd: stopFD)
    }

    deinit {
        // Never started: nothing else will close them.
        if !started.withLock({ $0 }) {
            cwake_close(fd)
            stopper.close()
        }
    }

    /// Watches `directory`: for entries created, renamed, written (last
    /// close), deleted or re-linked, or with `writes`, for every write too
    /// (a file kept open, as SQLite keeps its log). The watch descriptor, or
    /// a negative errno.
    func watch(_ directory: String, writes: Bool = false) -> Int32 {
        writes ? cwake_inotify_add_writes(fd, directory) : cwake_inotify_add(fd, directory)
    }

    /// Removes watch `watch` (its `gone` event follows); a watch already gone is no error.
    func unwatch(_ watch: Int32) { _ = cwake_inotify_remove(fd, watch) }

    /// Starts the thread; `batch` gets the events of each wake (never empty), `end` is called once when it stops.
    func start(name: String, _ batch: @escaping @Sendable ([Event]) -> Void, end: @escaping @Sendable () -> Void) {
        started.withLock { $0 = true }
        let loop = Loop(fd: fd, stopper: stopper, batch: batch, end: end)
        let thread = Thread {
            cwake_name_thread(name)
            loop.run()
        }
        thread.start()
    }

    /// Stops the thread (once; later calls, and calls after the thread ended by itself, do nothing).
    func stop() { stopper.signal() }

    /// The thread's state; used on that thread only.
    private final class Loop: @unchecked Sendable {
        let fd: Int32
        let stopper: Stopper
        let batch: @Sendable ([Event]) -> Void
        let end: @Sendable () -> Void

        init(fd: Int32, stopper: Stopper, batch: @escaping @Sendable ([Event]) -> Void, end: @escaping @Sendable () -> Void) {
            self.fd = fd
            self.stopper = stopper
            self.batch = batch
            self.end = end
        }

        deinit {
            cwake_close(fd)
            stopper.close()
        }

        func run() {
            defer { end() }
            let size = 16 * 4096
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let ready = cwake_wait(-1, fd, stopper.fd)
                if ready < 0 || ready & Int32(CWAKE_READY_STOP) != 0 { return }
                var events: [Event] = []
                while true {
                    let length = cwake_inotify_read(fd, buffer, UInt(size))
                    if length <= 0 { break }
                    var offset = 0
                    var wd: Int32 = 0
                    var kind: Int32 = 0
                    var name: UnsafePointer<CChar>?
                    while cwake_inotify_event(buffer, length, &offset, &wd, &kind, &name) == 1 {
                        let decoded: Event.Kind =
                            switch kind {
                            case Int32(CWAKE_INOTIFY_OVERFLOW): .overflow
                            case Int32(CWAKE_INOTIFY_GONE): .gone
                            default: .entry
                            }
                        events.append(Event(watch: wd, kind: decoded, name: name.map { String(cString: $0) } ?? ""))
                    }
                }
                if !events.isEmpty { batch(events) }
            }
        }
    }
}
