import BirthdayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Fixed responses with no detail in them.
enum FeedResponses {
    static func text(_ status: HTTPResponse.Status, _ body: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The one 404 for unknown paths, wrong tokens and missing tokens alike.
    static func notFound() -> Response {
        text(.notFound, "not found\n")
    }

    /// The headers of every page (the year's, an invitation's): what a browser may load and send.
    static var pageSecurityHeaders: HTTPFields {
        var fields: HTTPFields = [
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
        ]
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { fields[referrerPolicy] = "no-referrer" }
        return fields
    }

    /// The answer of a calendar route (the feed, the JSON twin, the page)
    /// with the entry `entry` finds (`nil`: an unknown token, 404): 200 or
    /// 304 with its tags, in gzip when the request accepts it, `extraHeaders`
    /// (the page's) on both; 404 for ``FeedSourceNoList``, 503 when the source
    /// fails (its error's type logged, never its text).
    static func serve(
        _ request: Request,
        context: FeedRequestContext,
        contentType: String,
        extraHeaders: HTTPFields = [:],
        entry find: () async throws -> FeedEntry?
    ) async -> Response {
        let entry: FeedEntry
        do {
            guard let found = try await find() else { return notFound() }
            entry = found
        } catch is FeedSourceNoList {
            return notFound()
        } catch {
            context.logger.error("Feed source failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            var response = text(.serviceUnavailable, "feed unavailable\n")
            response.headers[.retryAfter] = "60"
            return response
        }
        let gzip = request.headers[.acceptEncoding].map(Gzip.isAccepted) ?? false
        let (body, etag) = entry.representation(gzip: gzip)
        var headers: HTTPFields = [
            .eTag: etag,
            .lastModified: entry.lastModifiedText,
            .cacheControl: "private, no-cache",
            .vary: "Accept-Encoding",
        ]
        headers.append(contentsOf: extraHeaders)
        if isNotModified(request.headers, etag: etag, lastModified: entry.lastModified) {
            return Response(status: .notModified, headers: headers, body: ResponseBody())
        }
        headers[.contentType] = contentType
        if gzip { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// RFC 9110 §13.2.2 for GET and HEAD: `If-None-Match` decides when
    /// present (weak comparison, `*` matches); otherwise `If-Modified-Since`.
    /// `etag` is the tag of the representation the request gets (plain or gzip).
    static func isNotModified(_ headers: HTTPFields, etag: String, lastModified: Date) -> Bool {
        let noneMatch = headers[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            return EntityTags.list(noneMatch.joined(separator: ","), matches: etag)
        }
        guard let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) else { return false }
        return lastModified <= since
    }
}

/// `If-None-Match` lists ([RFC 9110 §8.8.3](https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3)).
enum EntityTags {
    /// Whether `list` is `*` or holds a tag that weakly matches `tag` (the
    /// opaque parts are equal, `W/` ignored). Reading stops at the first entry
    /// that is not a quoted tag; tags before it still count, so `"a", junk`
    /// matches `"a"` and `junk` alone matches nothing (a 200, never a wrong 304).
    static func list(_ list: String, matches tag: String) -> Bool {
        let tag = tag.utf8
        let bytes = list.utf8
        var index = bytes.startIndex
        while true {
            while index < bytes.endIndex, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ",")].contains(bytes[index]) {
                index = bytes.index(after: index)
            }
            guard index < bytes.endIndex else { return false }
            if bytes[index] == UInt8(ascii: "*") { return true }
            if bytes[index...].starts(with: "W/".utf8) { index = bytes.index(index, offsetBy: 2) }
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\""),
                let close = bytes[bytes.index(after: index)...].firstIndex(of: UInt8(ascii: "\""))
            else { return false }
            let end = bytes.index(after: close)
            if bytes[index..<end].elementsEqual(tag) { return true }
            index = end
        }
    }
}
