import BirthdayStore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The database's ``FileStamp``, taken again only after something in its
/// folder changed, and never on an event loop.
///
/// Each revalidation needs the stamp, and its two `stat` calls (a path walk
/// each) were a sixth of a `304`'s time under `wrk`. An inotify watch on the
/// database's folder (the file, its write-ahead log and whatever else is
/// created, written, moved or removed there) is read without blocking
/// instead: one `read` that finds nothing, and the stamp kept from the last
/// time (``kept()``, what the revalidation fast path asks on the event loop).
/// The watch is one of the process's one inotify instance (``StampInotify``:
/// `serve --all-users` watches every user's folder with it). When the read
/// finds an event of this folder, the queue is drained and the kept stamp dropped,
/// so a write that ended before a request came has its event read before
/// that request's stamp is decided: a new revision and a rotated token are
/// still seen at once.
///
/// A stamp is taken only by ``current()``, on the blocking pool
/// (``Blocking``): a `stat` can block (a folder on NFS or a FUSE mount never
/// answers), and an event loop must not. The watch itself (a `realpath`, the
/// mount table `/proc/self/mountinfo`, `inotify_add_watch`) is set up there too,
/// at the first stamp, not when the server is built.
///
/// Without a watch (a database that is not a regular file, a symbolic link
/// whose target lies elsewhere, a folder on a file system not known to be
/// local, inotify unavailable, or the folder itself moved or removed)
/// ``kept()`` has nothing and every ``current()`` takes the stamp, as
/// before; events lost to an overflowed queue drop every kept stamp, and each
/// watch is set up again at the next stamp (a folder moved or replaced while
/// its events were lost is then watched where its path now leads). inotify
/// sees only this machine's writes: on NFS, SMB, a FUSE mount or any file
/// system not in ``localFileSystems``, another machine's commit would go
/// unseen, so such a folder is never watched.
final class FileStampWatch: Sendable {
    private struct State {
        var stamp: FileStamp?
        /// The folder's watch in ``inotify`` (``StampInotify/watch(_:)``); -1 once there is none, `nil` before the first stamp set it up.
        var watch: Int64?
        /// How many stamps were taken (tests: a kept stamp takes none).
        var taken = 0
        /// How many times a drain found events (``FileStamp/changes``).
        var changes: UInt64 = 0
    }

    private let database: String
    private let log: String
    /// The mount table the watch reads (``isLocal(_:mounts:)``).
    private let mounts: String
    /// The inotify instance the folder is watched with: the process's one.
    private let inotify: StampInotify
    private let state = Mutex(State())

    /// Reads nothing: the watch is set up at the first ``current()``.
    ///
    /// - Parameters:
    ///   - database: the database file's path.
    ///   - log: its write-ahead log's, in the same folder.
    ///   - mounts: the mount table (tests give their own).
    ///   - inotify: the instance that watches the folder (tests give their own).
    init(database: String, log: String, mounts: String = "/proc/self/mountinfo", inotify: StampInotify = .shared) {
        self.database = database
        self.log = log
        self.mounts = mounts
        self.inotify = inotify
    }

    deinit {
        state.withLock { state in
            if let watch = state.watch, watch >= 0 { inotify.remove(UInt64(watch)) }
        }
    }

    /// The kept stamp when the watch saw no change since it was taken (one
    /// `read` of the watch that finds nothing, never a `stat`), else `nil`:
    /// safe on an event loop.
    func kept() -> FileStamp? {
        state.withLock { state in keep(&state) }
    }

    /// The stamp, as ``FileStamp/init(database:log:changes:)`` would take it
    /// now: the kept one while the watch saw no change, else taken anew (the
    /// watch set up first, the first time) on the blocking pool.
    func current() async -> FileStamp {
        if let kept = kept() { return kept }
        return await Blocking.run { self.take() }
    }

    /// The stamp as ``current()`` gives it, taken here when it must be:
    /// blocking, for the blocking pool only (one hop for many stamps).
    func currentBlocking() -> FileStamp { kept() ?? take() }

    /// The kept stamp while the watch's queue is empty; a drain that finds
    /// events drops it (and counts the change).
    private func keep(_ state: inout State) -> FileStamp? {
        guard state.watch ?? -1 >= 0, let stamp = state.stamp else { return nil }
        guard drain(&state) else { return stamp }
        state.changes &+= 1
        state.stamp = nil
        return nil
    }

    /// Takes the stamp (blocking: the blocking pool only). The `stat` calls
    /// run outside the lock, so ``kept()`` on an event loop never waits for
    /// them; the stamp is kept only when no change was seen meanwhile.
    private func take() -> FileStamp {
        if state.withLock({ $0.watch == nil }) {
            let watch = Self.watch(database, mounts: mounts, with: inotify)
            state.withLock { state in
                if state.watch == nil {
                    state.watch = watch.map(Int64.init) ?? -1
                } else if let watch {
                    inotify.remove(watch)
                }
            }
        }
        // Events queued until now are in this stamp: read them, so they do not drop it again.
        let changes = state.withLock { state in
            if drain(&state) { state.changes &+= 1 }
            return state.changes
        }
        let stamp = FileStamp(database: database, log: log, changes: changes)
        state.withLock { state in
            state.taken += 1
            let watching = (state.watch ?? -1) >= 0
            state.stamp = watching && state.changes == changes ? stamp : nil
        }
        return stamp
    }

    /// How many times the stamp was taken.
    var stampsTaken: Int { state.withLock { $0.taken } }

    /// Whether the folder is watched (never before the first ``current()``).
    var isWatching: Bool { state.withLock { ($0.watch ?? -1) >= 0 } }

    /// Whether the folder changed since the last time (every queued event of
    /// the instance read, without blocking); a watch lost is dropped (-1),
    /// one ended by lost events is made again at the next stamp (`nil`).
    private func drain(_ state: inout State) -> Bool {
        guard let watch = state.watch, watch >= 0 else { return false }
        let mark = inotify.take(UInt64(watch))
        if mark.lost {
            state.watch = -1
        } else if mark.overflowed {
            state.watch = nil
        }
        return mark.changed || mark.lost || mark.overflowed
    }

    #if canImport(Glibc)
    /// The folder of `database` watched with `inotify` when `mounts` says it
    /// is local and the database is a regular file: the watch's number, or `nil`.
    private static func watch(_ database: String, mounts: String, with inotify: StampInotify) -> UInt64? {
        var info = stat()
        guard lstat(database, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let folder: String
        if let slash = database.utf8.lastIndex(of: UInt8(ascii: "/")) {
            folder = slash == database.utf8.startIndex ? "/" : String(database[..<slash])
        } else {
            folder = "."
        }
        guard isLocal(folder, mounts: mounts) else { return nil }
        return inotify.watch(folder)
    }

    /// File systems only this machine writes to, as `/proc/self/mountinfo`
    /// names them. Any other (NFS, SMB/CIFS, FUSE, Ceph, 9p, …) may change
    /// under another machine, which inotify never hears.
    static let localFileSystems: Set<String> = [
        "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "zfs", "overlay", "bcachefs",
        "reiserfs", "jfs", "nilfs2", "vfat", "exfat", "ntfs3",
    ]

    /// Whether `folder` lies on a file system in ``localFileSystems``: the
    /// type of the mount whose point is the longest prefix of its real path.
    static func isLocal(_ folder: String, mounts: String = "/proc/self/mountinfo") -> Bool {
        guard let resolved = realpath(folder, nil) else { return false }
        let path = String(cString: resolved)
        free(resolved)
        guard let table = try? String(contentsOfFile: mounts, encoding: .utf8) else { return false }
        var best: (length: Int, type: Substring)?
        for line in table.split(separator: "\n") {
            // "36 35 98:0 /mnt1 /mnt/point rw,noatime master:1 - ext3 /dev/root rw": the fifth
            // field is the mount point (spaces as \040), the first after " - " the type.
            let fields = line.split(separator: " ")
            guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.endIndex else { continue }
            let point = unescaped(fields[4])
            let within = point == "/" || path == point || path.hasPrefix(point + "/")
            // A later mount on the same point hides the one before: it wins.
            if within, point.count >= best?.length ?? -1 { best = (point.count, fields[dash + 1]) }
        }
        return best.map { localFileSystems.contains(String($0.type)) } ?? false
    }

    /// A mountinfo field with its octal escapes (`\\040` a space, `\\011` a tab,
    /// `\\012` a newline, `\\134` a backslash) turned back into bytes.
    static func unescaped(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    #else
    private static func watch(_ database: String, mounts: String, with inotify: StampInotify) -> UInt64? { nil }
    static func isLocal(_ folder: String, mounts: String = "/proc/self/mountinfo") -> Bool { false }
    #endif
}
