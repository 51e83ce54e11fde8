import BirthdayCore
import Foundation

/// Finds the address books behind a URL ([RFC 6764](https://www.rfc-editor.org/rfc/rfc6764)
/// §6 and [RFC 6352](https://www.rfc-editor.org/rfc/rfc6352) §7):
///
/// 1. `PROPFIND` Depth 0 on the URL: an address book is itself the answer;
///    a home set (`addressbook-home-set`) is listed; a principal
///    (`current-user-principal`) is asked for its home set.
/// 2. When the URL answers none of that (or 404, 405 …), the same on
///    `/.well-known/carddav` of the same server, whose redirect leads to the
///    server's context path.
/// 3. The home set's members (`PROPFIND` Depth 1) whose resource type is
///    `addressbook`, with their display names.
///
/// DNS SRV records (the other half of RFC 6764) are not looked up: give the
/// server's URL.
package struct CardDAVDiscovery: Sendable {
    private let userAgent: String
    private let deadline: Duration

    /// - Parameter deadline: the most one request may take, answer included (``DAVLimits``).
    package init(userAgent: String = "birthdays", deadline: Duration = DAVLimits.defaultDeadline) {
        self.userAgent = userAgent
        self.deadline = deadline
    }

    /// The address books reachable from `location`.
    ///
    /// - Throws: ``SourceError/remote(_:)``: unauthorized, network, HTTP and XML errors,
    ///   ``SourceError/notAnAddressBook(url:)`` and ``SourceError/noAddressBooks(url:)``.
    package func addressBooks(from location: String, username: String?, password: String?) async throws(SourceError) -> [AddressBook] {
        guard let url = URL(string: location), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .invalidLocation(location: location, reason: "not an http(s) URL")
        }
        let session = DAVSession(username: username, password: password, userAgent: userAgent, limits: .discovery(deadline: deadline))
        let result: Result<[AddressBook], SourceError>
        do throws(SourceError) {
            result = .success(try await discover(url, session: session))
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        return try result.get()
    }

    private func discover(_ url: URL, session: DAVSession) async throws(SourceError) -> [AddressBook] {
        if let found = try await follow(url, session: session) { return found }
        guard let wellKnown = URL(string: "/.well-known/carddav", relativeTo: url)?.absoluteURL, wellKnown.path != url.path else {
            throw .notAnAddressBook(url: DAVSession.display(url))
        }
        if let found = try await follow(wellKnown, session: session) { return found }
        throw .notAnAddressBook(url: DAVSession.display(url))
    }

    /// The books from `url`, or `nil` when it leads nowhere.
    private func follow(_ url: URL, session: DAVSession) async throws(SourceError) -> [AddressBook]? {
        guard let (response, answered) = try await WebDAV.source({ () async throws(RemoteError) in try await describe(url, session: session) }) else {
            return nil
        }
        let types = response.properties[.resourceType]?.children ?? []
        if types.contains(.addressBook) {
            return [AddressBook(url: WebDAV.collection(answered), displayName: response.text(.displayName).flatMap { $0.isEmpty ? nil : $0 })]
        }
        if let home = response.properties[.addressBookHomeSet]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: answered)?.absoluteURL }) {
            return try await list(home, session: session)
        }
        if let principal = response.properties[.currentUserPrincipal]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: answered)?.absoluteURL }),
            principal.path != answered.path
        {
            guard let (described, from) = try await WebDAV.source({ () async throws(RemoteError) in try await describe(principal, session: session) })
            else { return nil }
            if let home = described.properties[.addressBookHomeSet]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: from)?.absoluteURL }) {
                return try await list(home, session: session)
            }
        }
        return nil
    }

    /// The Depth 0 description of `url` and the URL that answered; `nil` for
    /// answers that only mean "not here" (404, 405, 501 …).
    private func describe(_ url: URL, session: DAVSession) async throws(RemoteError) -> (DAVResponse, URL)? {
        let reply = try await session.send("PROPFIND", url, depth: "0", body: CardDAVRequests.describe)
        switch reply.status {
        case 207:
            let answer = try WebDAV.multistatus(reply, url)
            return answer.responses.first.map { ($0, reply.url) }
        case 401:
            throw .unauthorized(url: DAVSession.display(url))
        case 400, 403, 404, 405, 409, 412, 415, 501:
            return nil
        default:
            throw WebDAV.failure(reply, url)
        }
    }

    /// The address books in the home set `home`.
    private func list(_ home: URL, session: DAVSession) async throws(SourceError) -> [AddressBook] {
        let (reply, answer) = try await WebDAV.source { () async throws(RemoteError) in
            let reply = try await session.send("PROPFIND", home, depth: "1", body: CardDAVRequests.listCollections)
            guard reply.status == 207 else { throw WebDAV.failure(reply, home) }
            return (reply, try WebDAV.multistatus(reply, home))
        }
        var books: [AddressBook] = []
        for response in answer.responses {
            guard response.properties[.resourceType]?.children.contains(.addressBook) == true,
                let url = URL(string: response.href, relativeTo: reply.url)?.absoluteURL
            else { continue }
            books.append(AddressBook(url: WebDAV.collection(url), displayName: response.text(.displayName).flatMap { $0.isEmpty ? nil : $0 }))
        }
        guard !books.isEmpty else { throw .noAddressBooks(url: DAVSession.display(home)) }
        return books.sorted { $0.url < $1.url }
    }
}
