import BirthdayCore
import Synchronization

/// One inotify instance, and one thread (`birthdays-db`), for every
/// ``DatabaseWatcher`` of the process, each watch's events handed to its own
/// handler. `run --all-users` watches every user's database folder, and
/// Linux counts inotify instances per account (`fs.inotify.max_user_instances`,
/// 128 by default) but watches apart (`fs.inotify.max_user_watches`): one
/// instance a user capped a machine near a thousand users.
///
/// Made at the first watch and kept for the process. Lost events (a queue
/// overflow) are handed to every handler.
final class SharedInotify: Sendable {
    typealias Handler = @Sendable ([InotifyThread.Event]) -> Void

    /// Each watch descriptor's handlers, by a number of their own (two watchers of one folder share its descriptor).
    private final class Handlers: Sendable {
        let map = Mutex<[Int32: [UInt64: Handler]]>([:])
        let next = Atomic<UInt64>(0)
    }

    private let thread: InotifyThread
    private let handlers = Handlers()
    private static let shared = Mutex<SharedInotify?>(nil)

    private init() throws(WakeError) {
        thread = try InotifyThread()
        let handlers = handlers
        thread.start(name: "birthdays-db") { events in
            var byWatch: [Int32: [InotifyThread.Event]] = [:]
            var overflow = false
            for event in events {
                if event.kind == .overflow { overflow = true } else { byWatch[event.watch, default: []].append(event) }
            }
            let current = handlers.map.withLock { $0 }
            for (watch, own) in current {
                var mine = byWatch[watch] ?? []
                if overflow { mine.append(InotifyThread.Event(watch: watch, kind: .overflow, name: "")) }
                guard !mine.isEmpty else { continue }
                for handler in own.values { handler(mine) }
            }
        } end: {
            // Only when its poll fails: the instance is kept for the process.
        }
    }

    /// The process's instance, made (its thread started) at the first call.
    ///
    /// - Throws: ``WakeError`` when inotify or the thread's eventfd cannot be set up.
    static func instance() throws(WakeError) -> SharedInotify {
        try shared.withLock { (shared: inout SharedInotify?) throws(WakeError) -> SharedInotify in
            if let made = shared { return made }
            let made = try SharedInotify()
            shared = made
            return made
        }
    }

    /// Watches `directory` for every write too (``InotifyThread/watch(_:writes:)``), its events to `handler`;
    /// what ``remove(_:)`` takes.
    ///
    /// - Throws: ``WakeError`` when the watch cannot be added.
    func watch(_ directory: String, _ handler: @escaping Handler) throws(WakeError) -> (watch: Int32, id: UInt64) {
        let id = handlers.next.wrappingAdd(1, ordering: .relaxed).newValue
        // Under the lock: the thread finds the handler of any event of the new watch.
        return try handlers.map.withLock { (map: inout [Int32: [UInt64: Handler]]) throws(WakeError) -> (watch: Int32, id: UInt64) in
            let watch = thread.watch(directory, writes: true)
            guard watch >= 0 else { throw WakeError("inotify_add_watch", errno: -watch) }
            map[watch, default: [:]][id] = handler
            return (watch, id)
        }
    }

    /// Ends a watch ``watch(_:_:)`` gave: its handler gets nothing more, and the
    /// folder's watch is removed once no one else watches it.
    func remove(_ added: (watch: Int32, id: UInt64)) {
        handlers.map.withLock { map in
            map[added.watch]?[added.id] = nil
            guard map[added.watch]?.isEmpty ?? false else { return }
            map[added.watch] = nil
            thread.unwatch(added.watch)
        }
    }
}
