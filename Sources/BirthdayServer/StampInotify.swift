import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One non-blocking inotify instance for every ``FileStampWatch`` of the
/// process: `serve --all-users` watches every user's database folder, and
/// Linux counts inotify instances per account (`fs.inotify.max_user_instances`,
/// 128 by default) but watches apart (`fs.inotify.max_user_watches`), so one
/// instance a user capped a server near a thousand users.
///
/// There is no thread: whoever asks whether their folder changed
/// (``take(_:)``) first reads every queued event, without blocking, and
/// marks the watches they belong to; so a write that ended before a request
/// came has its event read before that request's stamp is decided, as with
/// an instance of its own. A folder deleted or moved ends its watches
/// (``Mark/lost``). Lost events (the queue overflowed, shared by every
/// user and read only when someone asks) end every watch as
/// ``Mark/overflowed``: the events lost may have said that a folder was
/// moved or deleted, so each watch is set up again from its path.
/// Two watches of one folder share its watch descriptor, removed with the last.
final class StampInotify: Sendable {
    /// What ``take(_:)`` found for a watch since it last asked.
    struct Mark: Equatable {
        /// Something in the folder changed (or events were lost).
        var changed = false
        /// The folder was deleted or moved: the watch says nothing more.
        var lost = false
        /// Events were lost (the queue overflowed): the watch is ended, and
        /// says nothing more; watch the path again.
        var overflowed = false
    }

    private struct State {
        /// The inotify descriptor; `nil` before the first watch, -1 when it could not be made.
        var descriptor: Int32?
        /// Each watch descriptor's watches, by a number of their own.
        var watches: [Int32: Set<UInt64>] = [:]
        /// Each watch's descriptor and what happened to it since it last asked.
        var marks: [UInt64: (watch: Int32, mark: Mark)] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The process's instance (its descriptor made at the first watch).
    static let shared = StampInotify()

    /// An instance of its own (tests); ``shared`` is the process's.
    init() {}

    deinit {
        state.withLock { state in
            if let descriptor = state.descriptor, descriptor >= 0 { close(descriptor) }
        }
    }

    /// Watches `folder` (an absolute path); the watch's number for
    /// ``take(_:)`` and ``remove(_:)``, or `nil` when inotify or the watch
    /// cannot be set up. Blocking (a path walk): the blocking pool only.
    func watch(_ folder: String) -> UInt64? {
        state.withLock { state -> UInt64? in
            #if canImport(Glibc)
            if state.descriptor == nil { state.descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
            guard let descriptor = state.descriptor, descriptor >= 0 else { return nil }
            // The folder's events queued before now belong to an earlier watch of it, not to this one.
            Self.drain(&state)
            let watch = inotify_add_watch(descriptor, folder, Self.events)
            guard watch >= 0 else { return nil }
            state.next &+= 1
            let id = state.next
            state.watches[watch, default: []].insert(id)
            state.marks[id] = (watch, Mark())
            return id
            #else
            return nil
            #endif
        }
    }

    /// What happened to watch `id` since it was added or last asked (every
    /// queued event read first, without blocking), and forgets it: safe on
    /// an event loop. A watch removed, or lost before, is `lost`.
    func take(_ id: UInt64) -> Mark {
        state.withLock { state in
            Self.drain(&state)
            guard let entry = state.marks[id] else { return Mark(changed: true, lost: true) }
            if entry.mark.lost {
                state.marks[id] = nil
            } else if entry.mark.overflowed {
                state.marks[id] = nil
                Self.forget(id, of: entry.watch, &state)
            } else {
                state.marks[id]?.mark = Mark()
            }
            return entry.mark
        }
    }

    /// Ends watch `id`; the folder's watch descriptor is removed once no other watch of it is left.
    func remove(_ id: UInt64) {
        state.withLock { state in
            guard let entry = state.marks.removeValue(forKey: id) else { return }
            Self.forget(id, of: entry.watch, &state)
        }
    }

    /// How many watch descriptors are held (tests).
    var folders: Int { state.withLock { $0.watches.count } }

    private static func forget(_ id: UInt64, of watch: Int32, _ state: inout State) {
        state.watches[watch]?.remove(id)
        guard state.watches[watch]?.isEmpty ?? false else { return }
        state.watches[watch] = nil
        #if canImport(Glibc)
        if let descriptor = state.descriptor, descriptor >= 0 { _ = inotify_rm_watch(descriptor, watch) }
        #endif
    }

    #if canImport(Glibc)
    private static let events: UInt32 =
        UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
        | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
    /// Events after which a folder's watch no longer says anything.
    private static let lost: UInt32 = UInt32(IN_IGNORED) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)

    /// Reads every queued event and marks the watches they belong to.
    private static func drain(_ state: inout State) {
        guard let descriptor = state.descriptor, descriptor >= 0 else { return }
        let header = MemoryLayout<inotify_event>.size
        withUnsafeTemporaryAllocation(byteCount: 16 * 4096, alignment: MemoryLayout<inotify_event>.alignment) { bytes in
            while true {
                let count = read(descriptor, bytes.baseAddress, bytes.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    // Nothing queued; any other failure leaves every folder unknown: taken again.
                    if count == 0 || errno != EAGAIN { markAll(&state) }
                    return
                }
                var offset = 0
                while offset + header <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    offset += header + Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        markAll(&state)
                        continue
                    }
                    let ended = event.mask & lost != 0
                    for id in state.watches[event.wd] ?? [] {
                        state.marks[id]?.mark.changed = true
                        if ended { state.marks[id]?.mark.lost = true }
                    }
                    guard ended, state.watches.removeValue(forKey: event.wd) != nil else { continue }
                    // Moved: the watch would follow the folder elsewhere (removed, it ends by itself).
                    if event.mask & UInt32(IN_IGNORED) == 0 { _ = inotify_rm_watch(descriptor, event.wd) }
                }
            }
        }
    }
    #else
    private static func drain(_ state: inout State) {}
    #endif

    /// Events were lost: every watch changed and is to be set up again (``Mark/overflowed``).
    private static func markAll(_ state: inout State) {
        for id in state.marks.keys {
            state.marks[id]?.mark.changed = true
            state.marks[id]?.mark.overflowed = true
        }
    }
}
