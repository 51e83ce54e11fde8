import BirthdayCore
import Foundation

/// The password of a source, from its `--password-command`; `nil` when it has none.
package typealias PasswordProvider = @Sendable (Source) async throws(RemoteError) -> String?

/// Reads what changed in a CardDAV address book, incrementally.
///
/// 1. With a sync token from the last sync: one `REPORT sync-collection`
///    (RFC 6578) with that token, asking for entity tags and cards. An
///    unchanged book costs this one request. Members reported 404 are
///    deleted. A token the server no longer accepts (403/409 with
///    `valid-sync-token`) starts over from step 2. A truncated answer (507)
///    is followed with its new token until complete (at most 100 requests;
///    a listing still partial then is an error, never a removal).
/// 2. Without a token: `sync-collection` with an empty token lists every
///    member with its card, in one request; members the server reports as
///    recently deleted (404) are not members.
/// 3. A server without sync-collection (it answers 400, 403, 405, 415, 422
///    or 501 to it): `PROPFIND` Depth 0 of `getctag`; when it is the stored
///    one, nothing changed (one request). Otherwise `PROPFIND` Depth 1 lists
///    every member's `getetag`, and an `addressbook-multiget` (RFC 6352)
///    fetches only the members whose tag changed (or that came without one).
///
/// Cards a server sends without `address-data` are fetched with a
/// multiget. A member that cannot be fetched is kept as it was. Any
/// transport, authentication, HTTP or XML error throws, and the store then
/// applies nothing.
package struct CardDAVReader: SourceReader {
    private let password: PasswordProvider
    private let userAgent: String
    private let timeouts: DAVSession.Timeouts
    private let deadline: Duration
    /// Members per multiget request.
    static let multigetBatch = 1000

    /// - Parameters:
    ///   - password: runs the source's password command.
    ///   - userAgent: sent with every request (servers log it).
    ///   - readTimeout: how long an answer may keep the client waiting between bytes.
    ///   - deadline: the most one request may take, answer included; each
    ///     answer may also hold at most what ``DAVLimits/sync(knownCards:deadline:)``
    ///     allows for the cards the last sync found.
    package init(
        password: @escaping PasswordProvider,
        userAgent: String = "birthdays",
        readTimeout: Duration = .seconds(120),
        deadline: Duration = DAVLimits.defaultDeadline
    ) {
        self.password = password
        self.userAgent = userAgent
        self.timeouts = DAVSession.Timeouts(read: readTimeout)
        self.deadline = deadline
    }

    package func changes(in source: Source, since snapshot: SourceSnapshot) async throws(SourceError) -> SourceChanges {
        guard let book = URL(string: source.location), book.scheme == "http" || book.scheme == "https" else {
            throw .invalidLocation(location: source.location, reason: "not an http(s) URL")
        }
        let secret = try await WebDAV.source { () async throws(RemoteError) in try await password(source) }
        let limits = DAVLimits.sync(knownCards: snapshot.items.count, deadline: deadline)
        let session = DAVSession(username: source.username, password: secret, userAgent: userAgent, limits: limits, timeouts: timeouts)
        let result: Result<SourceChanges, SourceError>
        do throws(RemoteError) {
            var changes = try await Self.read(book, session: session, snapshot: snapshot)
            changes.requests = session.requests
            result = .success(changes)
        } catch {
            result = .failure(.remote(error))
        }
        await session.shutdown()
        return try result.get()
    }

    // MARK: - The algorithm

    static func read(_ book: URL, session: DAVSession, snapshot: SourceSnapshot) async throws(RemoteError) -> SourceChanges {
        if let token = snapshot.syncToken {
            if let changes = try await syncCollection(book, token: token, session: session, snapshot: snapshot) { return changes }
        } else if snapshot.ctag != nil {
            return try await byETags(book, session: session, snapshot: snapshot)
        }
        if let changes = try await syncCollection(book, token: nil, session: session, snapshot: snapshot) { return changes }
        return try await byETags(book, session: session, snapshot: snapshot)
    }

    /// sync-collection from `token` (all members for `nil`); `nil` when the
    /// server does not do sync-collection, or no longer takes `token`
    /// (then the caller starts over without one).
    static func syncCollection(_ book: URL, token: String?, session: DAVSession, snapshot: SourceSnapshot) async throws(RemoteError) -> SourceChanges?
    {
        let full = token == nil
        var token = token
        let found = Listing(book: book)
        var rounds = 0
        while true {
            rounds += 1
            found.truncated = false
            // Each response is taken as soon as it has arrived, while the rest is still on its way.
            let stream = try multistatusStream(book) { found.take($0) }
            let reply = try await session.send("REPORT", book, depth: "0", body: CardDAVRequests.syncCollection(token: token), streamingTo: stream)
            if reply.status != 207 {
                if token != nil, [403, 409, 412].contains(reply.status),
                    WebDAVXML.errorConditions(reply.body).contains(.dav("valid-sync-token")) || reply.status == 409
                {
                    return nil
                }
                if token == nil, [400, 403, 405, 415, 422, 501].contains(reply.status) { return nil }
                throw WebDAV.failure(reply, book)
            }
            guard let next = stream.syncToken, !next.isEmpty else {
                throw .badResponse(url: DAVSession.display(book), reason: "the sync-collection answer has no sync-token")
            }
            token = next
            // A truncated answer (507 for the book itself) goes on from its token;
            // one still truncated after 100 requests is a partial listing, which
            // must never remove anyone.
            guard found.truncated else { break }
            guard rounds < 100 else {
                throw .badResponse(url: DAVSession.display(book), reason: "the sync-collection answer was still truncated after 100 requests")
            }
        }
        let cards = found.cards
        let deleted = found.deleted
        // Members whose tag the last sync already had need no reading.
        var items: [SourceItem] = []
        var problems: [ImportProblem] = []
        var missing: [String] = []
        for href in cards.keys.sorted() {
            guard let card = cards[href], snapshot.items[href] != card.etag else { continue }
            if let data = card.data, !data.isEmpty {
                items.append(SourceItem(href: href, etag: card.etag, location: WebDAV.location(href, book), content: data))
            } else {
                missing.append(href)
            }
        }
        if !missing.isEmpty {
            let fetched = try await multiget(missing, book: book, session: session)
            items += fetched.items
            problems += fetched.problems
        }
        let listing: SourceListing = full ? .complete(present: Set(cards.keys)) : .delta(removed: deleted.sorted())
        return SourceChanges(listing: listing, items: items, problems: problems, syncToken: token, ctag: nil)
    }

    /// The classic way: getctag, then every member's getetag, then a multiget of what changed.
    static func byETags(_ book: URL, session: DAVSession, snapshot: SourceSnapshot) async throws(RemoteError) -> SourceChanges {
        let state = try await session.send("PROPFIND", book, depth: "0", body: CardDAVRequests.collectionState)
        guard state.status == 207 else { throw WebDAV.failure(state, book) }
        let collection = try WebDAV.multistatus(state, book).responses.first
        // "" remembers "no sync-collection here" even when the server has no getctag.
        let ctag = collection?.text(.getCTag) ?? ""
        if !ctag.isEmpty, ctag == snapshot.ctag {
            return SourceChanges(listing: .delta(removed: []), ctag: ctag)
        }
        let listing = try await session.send("PROPFIND", book, depth: "1", body: CardDAVRequests.memberETags)
        guard listing.status == 207 else { throw WebDAV.failure(listing, book) }
        var present = Set<String>()
        var changed: [String] = []
        for response in try WebDAV.multistatus(listing, book).responses {
            guard let href = WebDAV.member(response.href, of: book), response.status == nil || response.status == 200,
                response.properties[.resourceType]?.children.contains(.dav("collection")) != true
            else { continue }
            present.insert(href)
            // A member listed without its tag is still there: it is fetched (the multiget has its tag).
            if let etag = response.text(.getETag), snapshot.items[href] == etag { continue }
            changed.append(href)
        }
        let fetched = try await multiget(changed.sorted(), book: book, session: session)
        return SourceChanges(listing: .complete(present: present), items: fetched.items, problems: fetched.problems, syncToken: nil, ctag: ctag)
    }

    /// The cards at `hrefs`, in batches. A member that is gone (404) is
    /// skipped; one that fails otherwise is reported and kept as it was.
    static func multiget(
        _ hrefs: [String],
        book: URL,
        session: DAVSession
    ) async throws(RemoteError) -> (items: [SourceItem], problems: [ImportProblem]) {
        var items: [SourceItem] = []
        var problems: [ImportProblem] = []
        var start = 0
        while start < hrefs.count {
            let batch = hrefs[start..<min(start + multigetBatch, hrefs.count)]
            start += multigetBatch
            let reply = try await session.send("REPORT", book, depth: "1", body: CardDAVRequests.multiget(batch))
            guard reply.status == 207 else { throw WebDAV.failure(reply, book) }
            var answered = Set<String>()
            for response in try WebDAV.multistatus(reply, book).responses {
                guard let href = WebDAV.member(response.href, of: book) else { continue }
                answered.insert(href)
                if let data = response.properties[.addressData]?.text, !data.isEmpty, let etag = response.text(.getETag) {
                    items.append(SourceItem(href: href, etag: etag, location: WebDAV.location(href, book), content: Data(data.utf8)))
                } else if response.status != 404 {
                    problems.append(ImportProblem(file: WebDAV.location(href, book), line: 1, message: "the server sent no card; kept as it was"))
                }
            }
            for href in batch where !answered.contains(href) {
                problems.append(
                    ImportProblem(file: WebDAV.location(href, book), line: 1, message: "the server did not send this card; kept as it was")
                )
            }
        }
        return (items, problems)
    }

    /// What the rounds of one sync-collection found, response by response.
    private final class Listing {
        let book: URL
        /// Member → its tag and card (`nil`: sent without `address-data`).
        var cards: [String: (etag: String, data: Data?)] = [:]
        var deleted = Set<String>()
        /// The book itself answered 507: the listing goes on from the new token.
        var truncated = false

        init(book: URL) { self.book = book }

        func take(_ response: DAVResponse) {
            guard let href = WebDAV.member(response.href, of: book) else {
                if response.status == 507 { truncated = true }
                return
            }
            if response.status == 404 {
                cards[href] = nil
                deleted.insert(href)
            } else if let etag = response.text(.getETag) {
                deleted.remove(href)
                cards[href] = (etag, response.properties[.addressData].map { Data($0.text.utf8) })
            }
        }
    }

    // MARK: - Helpers

    static func multistatusStream(_ url: URL, each: @escaping (DAVResponse) -> Void) throws(RemoteError) -> MultistatusStream {
        do {
            return try MultistatusStream(each: each)
        } catch {
            throw .badResponse(url: DAVSession.display(url), reason: error.description)
        }
    }
}
