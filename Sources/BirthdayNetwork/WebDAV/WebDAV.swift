import BirthdayCore
import Foundation

/// What a CardDAV address book and a CalDAV calendar are read with alike:
/// a `207 Multi-Status` answer parsed, any other answer turned into the
/// error it means, a response's `href` resolved against its collection.
/// The address book client (`CardDAV/`) and the publisher (`CalDAV/`)
/// both use these; neither reaches into the other.
enum WebDAV {
    /// The parsed `207 Multi-Status` answer of a request to `url`; XML that
    /// does not parse is ``RemoteError/badResponse(url:reason:)``.
    static func multistatus(_ reply: DAVSession.Reply, _ url: URL) throws(RemoteError) -> Multistatus {
        do {
            return try WebDAVXML.multistatus(reply.body)
        } catch {
            throw .badResponse(url: DAVSession.display(url), reason: error.description)
        }
    }

    /// What `body` returns; its ``RemoteError`` as ``SourceError/remote(_:)``,
    /// for the address book side, whose errors are a source's.
    static func source<T>(_ body: () async throws(RemoteError) -> T) async throws(SourceError) -> T {
        do throws(RemoteError) {
            return try await body()
        } catch {
            throw .remote(error)
        }
    }

    /// The error for an answer that is not the one asked for.
    static func failure(_ reply: DAVSession.Reply, _ url: URL) -> RemoteError {
        let shown = DAVSession.display(url)
        switch reply.status {
        case 401: return .unauthorized(url: shown)
        case 207: return .badResponse(url: shown, reason: "unexpected multistatus")
        default: return .http(url: shown, status: reply.status, reason: HTTPStatusText.phrase(reply.status))
        }
    }

    /// The member key of a response's href: its path, when it is inside the
    /// collection (an address book, a calendar) and not the collection itself; `nil` otherwise.
    static func member(_ href: String, of book: URL) -> String? {
        guard !href.isEmpty, let url = URL(string: href, relativeTo: book) else { return nil }
        let path = url.absoluteURL.path(percentEncoded: true)
        let bookPath = book.path(percentEncoded: true)
        let base = bookPath.hasSuffix("/") ? bookPath : bookPath + "/"
        guard path.hasPrefix(base), path.count > base.count, !path.hasSuffix("/") else { return nil }
        return path
    }

    /// Where a member is, for problems and the person's source: its whole URL.
    static func location(_ href: String, _ book: URL) -> String {
        guard let url = URL(string: href, relativeTo: book) else { return href }
        return DAVSession.display(url.absoluteURL)
    }

    /// `url` as a collection URL: without credentials, ending with `/`.
    static func collection(_ url: URL) -> String {
        let text = DAVSession.display(url.absoluteURL)
        return text.hasSuffix("/") ? text : text + "/"
    }
}

/// Reason phrases for the statuses a WebDAV server (CardDAV or CalDAV) answers with.
enum HTTPStatusText {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 507: "Insufficient Storage"
        default: ""
        }
    }
}
