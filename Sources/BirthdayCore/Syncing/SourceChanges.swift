import Foundation

/// What a reader knows of a source from its last sync: enough to ask only
/// for what changed since.
public struct SourceSnapshot: Sendable, Equatable {
    /// The CardDAV sync token ([RFC 6578](https://www.rfc-editor.org/rfc/rfc6578)) of the last sync.
    public var syncToken: String?
    /// The CardDAV collection tag (`getctag`) of the last sync.
    public var ctag: String?
    /// Every item the last syncs saw, href (or file name) → entity tag (or file stamp).
    public var items: [String: String]

    public init(syncToken: String? = nil, ctag: String? = nil, items: [String: String] = [:]) {
        self.syncToken = syncToken
        self.ctag = ctag
        self.items = items
    }
}

/// One item of a source with its content: a card of an address book, a
/// `.vcf` of a vdir, or the whole file of a file source.
public struct SourceItem: Sendable, Equatable {
    /// The item's key in the source: the href on the server, the file name in a vdir.
    public var href: String
    /// The server's entity tag, or a stamp of the file (size, modification time, inode).
    public var etag: String
    /// Where it is, for problems and for ``Person/source``: a URL or a path.
    public var location: String
    /// The vCard or CSV bytes.
    public var content: Data

    public init(href: String, etag: String, location: String, content: Data) {
        self.href = href
        self.etag = etag
        self.location = location
        self.content = content
    }
}

/// What a reader found at a source since its ``SourceSnapshot``.
///
/// Rules the store applies (``SourceListing``):
/// - `complete(present:)`: every item the source holds is named; an item of
///   the snapshot that is not named is gone. Named items missing from
///   ``items`` are unchanged, or could not be fetched this time: either way
///   they stay as they are. A partial answer must never be passed as
///   complete.
/// - `delta(removed:)`: only changes; items not mentioned are unchanged.
public struct SourceChanges: Sendable, Equatable {
    public var listing: SourceListing
    /// New and changed items, with their content.
    public var items: [SourceItem]
    /// Things worth telling that did not stop the sync (an item that could not be fetched and was kept).
    public var problems: [ImportProblem]
    /// The state to remember for the next sync.
    public var syncToken: String?
    public var ctag: String?
    /// HTTP requests this took (0 for local sources), for logs and benchmarks.
    public var requests: Int

    public init(
        listing: SourceListing,
        items: [SourceItem] = [],
        problems: [ImportProblem] = [],
        syncToken: String? = nil,
        ctag: String? = nil,
        requests: Int = 0
    ) {
        self.listing = listing
        self.items = items
        self.problems = problems
        self.syncToken = syncToken
        self.ctag = ctag
        self.requests = requests
    }

    /// Nothing changed: keep the snapshot's state.
    public static func unchanged(_ snapshot: SourceSnapshot, requests: Int) -> SourceChanges {
        SourceChanges(listing: .delta(removed: []), syncToken: snapshot.syncToken, ctag: snapshot.ctag, requests: requests)
    }
}

/// Whether a ``SourceChanges`` lists the whole source or only what changed.
public enum SourceListing: Sendable, Equatable {
    /// The hrefs of every item the source holds now.
    case complete(present: Set<String>)
    /// The hrefs that were deleted; everything else not in ``SourceChanges/items`` is unchanged.
    case delta(removed: [String])
}

/// Reads what changed at a source. Implemented for local files and vdirs
/// (the store) and for CardDAV (`BirthdayNetwork`).
public protocol SourceReader: Sendable {
    /// The changes since `snapshot`.
    ///
    /// - Throws: ``SourceError`` when the source cannot be read completely
    ///   (network, authentication, HTTP or XML errors, a missing folder):
    ///   then nothing is applied.
    func changes(in source: Source, since snapshot: SourceSnapshot) async throws(SourceError) -> SourceChanges
}

/// The reader for each kind of source. CardDAV's is made only when a
/// CardDAV source is synced, so a daemon with local sources only never
/// creates an HTTP client.
public struct SourceReaders: Sendable {
    private let make: @Sendable (SourceKind) -> (any SourceReader)?

    public init(_ make: @escaping @Sendable (SourceKind) -> (any SourceReader)?) {
        self.make = make
    }

    /// The reader for `kind`, or `nil` when this build cannot read it.
    public func reader(for kind: SourceKind) -> (any SourceReader)? { make(kind) }
}

/// Syncs a whole source in another process, which reads it and applies
/// the changes to the database itself: how `birthdays` syncs CardDAV
/// sources, through the `birthdays-network` helper, so that neither the
/// daemon nor the other commands map an HTTP and TLS stack.
public protocol SourceDelegate: Sendable {
    /// Syncs `source` as of `now` in `timeZone` and returns what the other
    /// process did; `locale` is the caller's (for the words of the reminders
    /// it reschedules, when the `language` setting is `system`).
    ///
    /// - Throws: ``SourceError`` when the other process could not run or gave
    ///   no report (then it changed nothing); a sync that ran and failed is a
    ///   report with an error.
    func sync(_ source: Source, allowMassRemoval: Bool, now: Date, timeZone: TimeZone, locale: String?) async throws(SourceError) -> SourceSyncReport
}
