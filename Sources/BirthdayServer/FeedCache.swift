import BirthdayCore
import BirthdayStore
import Foundation
import Hummingbird
import Synchronization

/// Holds the feed body ready to send, and rebuilds it only when the source's
/// revision changes.
///
/// Every request asks the source for its revision; only a new revision
/// leads to a call to ``FeedSource/feed()``. Requests that arrive while a
/// rebuild runs wait for that rebuild instead of starting their own.
actor FeedCache<Source: FeedSource> {
    /// A body with its validators, computed once per revision.
    typealias Entry = FeedEntry

    private let source: Source
    /// Which representation this cache holds: the feed, or its JSON list.
    private let kind: Kind
    private var current: Entry? {
        didSet { latest.withLock { $0 = current } }
    }
    /// A copy of ``current`` readable without entering the actor: the path
    /// every revalidation takes, so it costs no executor hop.
    private nonisolated let latest = Mutex<Entry?>(nil)
    private var pending: (revision: Int64, task: Task<Entry, any Error>)?

    /// The calendar feed, its JSON twin, or a web page.
    enum Kind: Sendable {
        case feed, list
        case page(PageRequest)
    }

    init(source: Source, kind: Kind = .feed) {
        self.source = source
        self.kind = kind
    }

    private static func revision(of source: Source, kind: Kind) async throws -> Int64 {
        switch kind {
        case .feed: try await source.revision()
        case .list, .page: try await source.listRevision()
        }
    }

    /// The cached entry when it was built for `revision`.
    nonisolated func cached(revision: Int64) -> Entry? {
        latest.withLock { entry in entry.flatMap { $0.revision == revision ? $0 : nil } }
    }

    /// The entry for the source's current revision.
    func entry() async throws -> Entry {
        let revision = try await Self.revision(of: source, kind: kind)
        if let current, current.revision == revision { return current }
        let task: Task<Entry, any Error>
        if let pending, pending.revision == revision {
            task = pending.task
        } else {
            let source = self.source
            let kind = self.kind
            task = Task { try await Self.build(from: source, kind: kind) }
            pending = (revision, task)
        }
        defer {
            if pending?.revision == revision { pending = nil }
        }
        let entry = try await task.value
        if current.map({ $0.revision != entry.revision }) ?? true { current = entry }
        return entry
    }

    /// Fetches and prepares a snapshot: hashes it and compresses it once. Being
    /// `nonisolated` and `async`, it runs off the actor, and the compression
    /// on NIO's thread pool, so neither holds up requests served from the cache.
    private static func build(from source: Source, kind: Kind) async throws -> Entry {
        let snapshot =
            switch kind {
            case .feed: try await source.feed()
            case .list: try await source.list()
            case .page(let request): try await source.page(request)
            }
        let body = ByteBuffer(string: snapshot.body)
        let seconds = snapshot.lastModified.timeIntervalSince1970.rounded(.down)
        let lastModified = Date(timeIntervalSince1970: seconds)
        let etag = entityTag(for: body)
        let gzipBody = try await Blocking.run { () throws(Gzip.Failure) in try Gzip.compress(body) }
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
