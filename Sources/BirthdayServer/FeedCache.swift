import BirthdayCore
import BirthdayStore
import Foundation
import Hummingbird
import Synchronization

/// Holds one body (the feed, its JSON twin or one page variant) ready to
/// send, and rebuilds it only when its revision changes.
///
/// Every request asks for the revision; only a new revision leads to a
/// call to `snapshot` (``CalendarSource/feed()`` and the others). Requests
/// that arrive while a rebuild runs wait for that rebuild instead of
/// starting their own.
actor FeedCache {
    /// A body with its validators, computed once per revision.
    typealias Entry = FeedEntry

    /// The revision the body would be built for now.
    private let revision: @Sendable () async throws -> Int64
    /// Builds the body.
    private let snapshot: @Sendable () async throws -> FeedSnapshot
    private var current: Entry? {
        didSet { latest.withLock { $0 = current } }
    }
    /// A copy of ``current`` readable without entering the actor: the path
    /// every revalidation takes, so it costs no executor hop.
    private nonisolated let latest = Mutex<Entry?>(nil)
    private var pending: (revision: Int64, task: Task<Entry, any Error>)?

    init(revision: @escaping @Sendable () async throws -> Int64, snapshot: @escaping @Sendable () async throws -> FeedSnapshot) {
        self.revision = revision
        self.snapshot = snapshot
    }

    /// The cache of `source`'s feed.
    static func feed(_ source: some CalendarSource) -> FeedCache {
        FeedCache(revision: { try await source.revision() }, snapshot: { try await source.feed() })
    }

    /// The cache of `source`'s JSON twin.
    static func list(_ source: some CalendarSource) -> FeedCache {
        FeedCache(revision: { try await source.listRevision() }, snapshot: { try await source.list() })
    }

    /// The cache of one variant of `source`'s page (its revision is the JSON twin's).
    static func page(_ source: some PageSource, _ request: PageRequest) -> FeedCache {
        FeedCache(revision: { try await source.listRevision() }, snapshot: { try await source.page(request) })
    }

    /// The cached entry when it was built for `revision`.
    nonisolated func cached(revision: Int64) -> Entry? {
        latest.withLock { entry in entry.flatMap { $0.revision == revision ? $0 : nil } }
    }

    /// The entry for the current revision, served from ``cached(revision:)``
    /// without entering the actor while the revision holds.
    nonisolated func currentEntry() async throws -> Entry {
        if let cached = cached(revision: try await revision()) { return cached }
        return try await entry()
    }

    /// The entry for the current revision.
    func entry() async throws -> Entry {
        let revision = try await revision()
        if let current, current.revision == revision { return current }
        let task: Task<Entry, any Error>
        if let pending, pending.revision == revision {
            task = pending.task
        } else {
            let snapshot = self.snapshot
            task = Task { try await Self.build(try await snapshot()) }
            pending = (revision, task)
        }
        defer {
            if pending?.revision == revision { pending = nil }
        }
        let entry = try await task.value
        if current.map({ $0.revision != entry.revision }) ?? true { current = entry }
        return entry
    }

    /// Prepares a snapshot: its bytes, their hash and their gzip, made once
    /// per revision on the blocking pool (``Blocking``): each reads or
    /// writes the whole body, thousands of events, which must not hold up
    /// an event loop (where the caller, a route, runs).
    private static func build(_ snapshot: FeedSnapshot) async throws -> Entry {
        let seconds = snapshot.lastModified.timeIntervalSince1970.rounded(.down)
        let lastModified = Date(timeIntervalSince1970: seconds)
        let text = snapshot.body
        let (body, etag, gzipBody) = try await Blocking.run { () throws(Gzip.Failure) in
            let body = ByteBuffer(string: text)
            return (body, entityTag(for: body), try Gzip.compress(body))
        }
        return Entry(
            revision: snapshot.revision,
            body: body,
            etag: etag,
            gzipBody: gzipBody,
            gzipETag: String(etag.dropLast()) + "-gzip\"",
            lastModified: lastModified,
            lastModifiedText: HTTPDate.format(lastModified)
        )
    }

    /// `"<64-bit FNV-1a of the bytes>-<byte count>"`, both in hex. The tag
    /// only has to change when the body does; it is no secret and no
    /// signature.
    static func entityTag(for body: ByteBuffer) -> String {
        "\"" + StableHash.hex(body.readableBytesView) + "-" + String(body.readableBytes, radix: 16) + "\""
    }

}

/// A body with its validators, computed once per revision.
struct FeedEntry: Sendable {
    let revision: Int64
    let body: ByteBuffer
    /// A strong entity tag, quoted: a hash of the body bytes and their count.
    let etag: String
    /// The same body in gzip, sent to clients that accept it.
    let gzipBody: ByteBuffer
    /// The gzip representation's own strong tag: ``etag`` with `-gzip` inside the quotes.
    let gzipETag: String
    /// `Last-Modified`, truncated to whole seconds as HTTP dates are.
    let lastModified: Date
    let lastModifiedText: String

    /// The body and tag of the representation a request gets.
    func representation(gzip: Bool) -> (body: ByteBuffer, etag: String) {
        gzip ? (gzipBody, gzipETag) : (body, etag)
    }
}
