import BirthdayCalendar
import BirthdayCore
public import BirthdayStore
import Foundation
import Synchronization

/// The feed server's view of the SQLite store: the revision counter decides
/// when the cached body is stale; the export runs only then.
///
/// A calendar app revalidating its subscription must cost next to nothing, so
/// the token and the revision are kept in memory and read again only when
/// the database files changed: every commit by any process (an import, a
/// settings change, `birthdays feed rotate`) appends to the write-ahead log
/// or, after a checkpoint, rewrites the database file, which changes their
/// size or modification time. One `stat` of each per request replaces a
/// SQLite transaction, and a rotated token still stops working at once.
public struct DatabaseFeedSource: FeedSource {
    let database: AppDatabase
    /// The environment's locale, for the feed's words when the `language` setting is `system`.
    let systemLocale: String?
    private let cache = StateCache()
    private let logPath: String

    public init(database: AppDatabase, systemLocale: String? = nil) {
        self.database = database
        self.systemLocale = systemLocale
        self.logPath = database.path + "-wal"
    }

    private func stamp() -> FileStamp {
        FileStamp(database: database.path, log: logPath)
    }

    public func revision() async throws -> Int64 {
        try await state().revision
    }

    /// Reads the people and exports them, on NIO's thread pool (``Blocking``):
    /// an export of thousands of events must not hold up an event loop.
    public func feed() async throws -> FeedSnapshot {
        let contents = try await database.feedContents()
        let localizer = contents.settings.localizer(systemLocale: systemLocale)
        let body = try await Blocking.run { () throws(ExportError) in
            try CalendarExporter(settings: contents.settings, localizer: localizer).export(contents.people, lastChange: contents.changedAt)
        }
        return FeedSnapshot(body: body, lastModified: contents.changedAt, revision: contents.revision)
    }

    public func token() async throws -> String {
        try await state().token
    }

    /// The cached token and revision if the database files are unchanged
    /// since they were read (two `stat` calls, no SQLite), else `nil`.
    public func cachedValidators() -> (token: String, revision: Int64)? {
        cache.state(for: stamp()).map { ($0.token, $0.revision) }
    }

    private func state() async throws -> StateCache.State {
        let stamp = stamp()
        if let cached = cache.state(for: stamp) { return cached }
        let state = StateCache.State(stamp: stamp, token: try await database.feedToken(), revision: try await database.revision().value)
        cache.store(state)
        return state
    }
}

/// Size, modification time and inode of the database file and its
/// write-ahead log. Taken on every revalidation: two `stat` calls, no
/// allocation.
struct FileStamp: Equatable, Sendable {
    /// One file's stat figures; all zero when the file does not exist.
    struct File: Equatable, Sendable {
        var size = 0
        var seconds = 0
        var nanoseconds = 0
        var inode: UInt = 0

        init(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return }
            size = Int(info.st_size)
            seconds = Int(info.st_mtim.tv_sec)
            nanoseconds = Int(info.st_mtim.tv_nsec)
            inode = UInt(info.st_ino)
        }
    }

    var database: File
    var log: File

    init(database: String, log: String) {
        self.database = File(database)
        self.log = File(log)
    }
}

/// The last token and revision read, with the file stamp they were read at.
final class StateCache: Sendable {
    struct State: Sendable {
        var stamp: FileStamp
        var token: String
        var revision: Int64
    }

    private let current = Mutex<State?>(nil)

    func state(for stamp: FileStamp) -> State? {
        current.withLock { state in state.flatMap { $0.stamp == stamp ? $0 : nil } }
    }

    func store(_ state: State) {
        current.withLock { $0 = state }
    }
}
