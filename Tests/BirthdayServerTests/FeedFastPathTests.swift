import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import BirthdayServer

/// The revalidation fast path (`FeedRevalidationHandler`) against the real
/// server: it must answer exactly as the route does, and only when certain.
@Suite struct FeedFastPathTests {
    private static let calendarPath = "/calendar/\(TestFeedSource.firstToken).ics"

    /// The 304 of `method` with a matching tag, after one GET has filled the cache.
    private func revalidation(_ source: TestFeedSource, method: HTTPRequest.Method) async throws -> (TestResponse, first: TestResponse) {
        let result = Mutex<(TestResponse, TestResponse)?>(nil)
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let calls = await source.routeCalls
            let response = try await client.execute(uri: Self.calendarPath, method: method, headers: [.ifNoneMatch: etag])
            await source.noteRouteCallsSince(calls)
            result.withLock { $0 = (response, first) }
        }
        return try #require(result.withLock { $0 })
    }

    @Test(arguments: [HTTPRequest.Method.get, .head])
    func theFastPathAnswersAsTheRouteDoes(method: HTTPRequest.Method) async throws {
        // Given a source that offers cached validators (fast) and one that does not (route)
        let fastSource = try TestFeedSource()
        let slowSource = try TestFeedSource(offersValidators: false)

        // When both are revalidated with a matching tag
        let (fast, fastFirst) = try await revalidation(fastSource, method: method)
        let (slow, slowFirst) = try await revalidation(slowSource, method: method)

        // Then both answer 304 with the same validators, and only the route asked the source
        #expect(fast.status == .notModified)
        #expect(slow.status == .notModified)
        #expect(fast.body.readableBytes == 0)
        for field in [HTTPField.Name.eTag, .lastModified, .cacheControl, .contentLength, .contentType, .server, .connection] {
            #expect(fast.headers[field] == slow.headers[field], "\(field)")
        }
        #expect(fast.headers[.eTag] == fastFirst.headers[.eTag])
        #expect(slow.headers[.eTag] == slowFirst.headers[.eTag])
        #expect(fast.headers[.cacheControl] == "private, no-cache")
        let date = try #require(fast.headers[.date])
        #expect(HTTPDate.parse(date) != nil)
        #expect(await fastSource.routeCallsOfLastRevalidation == 0)
        #expect(await slowSource.routeCallsOfLastRevalidation > 0)
        #expect(await fastSource.feedCalls == 1)
    }

    @Test func aWrongTokenWithAMatchingTagIsTheGenericNotFound() async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let wrong = try await client.execute(
                uri: "/calendar/ffffffffffffffffffffffffffffffff.ics",
                method: .get,
                headers: [.ifNoneMatch: etag]
            )
            #expect(wrong.status == .notFound)
            #expect(String(buffer: wrong.body) == "not found\n")
        }
    }

    @Test func aNewRevisionIsServedInsteadOfA304() async throws {
        let source = try TestFeedSource()
        let newBody = try TestFeedSource.export(names: ["Ada Lovelace", "Grace Hopper"])
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            #expect(try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)

            await source.change(body: newBody, lastModified: Date(timeIntervalSince1970: 1_795_300_000))
            let changed = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(String(buffer: changed.body) == newBody)
            #expect(changed.headers[.eTag] != etag)
            #expect(await source.feedCalls == 2)

            // The new tag is then answered by the fast path again, without a rebuild.
            let calls = await source.routeCalls
            let again = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: changed.headers[.eTag] ?? ""])
            #expect(again.status == .notModified)
            #expect(await source.routeCalls == calls)
            #expect(await source.feedCalls == 2)
        }
    }

    @Test func aRotatedTokenLocksOutTheOldURLAtOnce() async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            #expect(try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)

            await source.rotate(to: "0123456789abcdef0123456789abcdef")
            let old = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: etag])
            #expect(old.status == .notFound)
            let new = try await client.execute(uri: "/calendar/0123456789abcdef0123456789abcdef.ics", method: .get, headers: [.ifNoneMatch: etag])
            #expect(new.status == .notModified)
        }
    }

    /// Several 304s on one connection, then a 200, in order; pipelined and
    /// mixed with passed-on requests, which the fast path must not overtake.
    @Test func keepAliveAndPipeliningKeepTheOrder() async throws {
        let source = try TestFeedSource()
        let body = await source.body
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let port = try #require(client.port)
            let revalidate = "GET \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \(etag)\r\n\r\n"
            let head = "HEAD \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \(etag)\r\n\r\n"
            let plain = "GET \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\n\r\n"
            let health = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
            let last = "GET \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            let raw = try await RawHTTP.exchange(port: port, revalidate + head + revalidate + plain + revalidate + health + revalidate + last)
            let statuses = raw.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
            #expect(statuses == ["304", "304", "304", "200", "304", "200", "304", "200"])
            #expect(raw.components(separatedBy: "BEGIN:VCALENDAR").count == 3)
            #expect(raw.contains("\r\n\r\nok\nHTTP/1.1 304 "))
            #expect(raw.hasSuffix(body))
            #expect(await source.feedCalls == 1)
        }
    }

    /// `Connection: close` and HTTP/1.0 take the route, which answers and closes as before.
    @Test(arguments: ["HTTP/1.1\r\nConnection: close", "HTTP/1.0"])
    func closingRequestsTakeTheRoute(version: String) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let port = try #require(client.port)
            let calls = await source.routeCalls
            let request = "GET \(Self.calendarPath) \(version)\r\nHost: localhost\r\nIf-None-Match: \(etag)\r\n\r\n"
            let raw: String
            if version == "HTTP/1.0" {
                // As before the fast path: the route answers; Hummingbird keeps the connection,
                // so a second request with `Connection: close` ends it.
                raw = try await RawHTTP.exchange(port: port, request + "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            } else {
                raw = try await RawHTTP.exchange(port: port, request)
            }
            #expect(raw.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
            #expect(raw.contains("ETag: \(etag)\r\n"))
            #expect(await source.routeCalls > calls)
        }
    }

    /// The forms of `If-None-Match` a client may send: the fast path answers
    /// every matching one itself (the source's route count does not move),
    /// and a list without the tag gets the full feed.
    @Test(arguments: [
        (["TAG"], "304"), (["W/TAG"], "304"), (["\"other\", TAG"], "304"), (["\"other\"", "TAG"], "304"),
        (["*"], "304"), (["\"other\""], "200"), (["\"other\"", "\"more\""], "200"),
    ])
    func everyFormOfIfNoneMatch(fields: [String], status: String) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let port = try #require(client.port)
            let calls = await source.routeCalls
            let lines = fields.map { "If-None-Match: \($0.replacingOccurrences(of: "TAG", with: etag))\r\n" }.joined()
            let raw = try await RawHTTP.exchange(
                port: port,
                "GET \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\n\(lines)\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            )
            #expect(raw.hasPrefix("HTTP/1.1 \(status) "), "\(fields)")
            if status == "304" {
                #expect(await source.routeCalls == calls, "answered without the route: \(fields)")
            }
        }
    }

    // MARK: - From the request's bytes (FeedRevalidationBytes)

    /// With access lines off, a revalidation alone in its read is answered
    /// from its bytes: the same 304 as the route's but for the date, and the
    /// route never asked. (The connection stays open; the exchange ends with
    /// the answer's head, so no idle timeout has to close it: a 1-second one
    /// also closed the test client's own connection on a loaded machine.)
    @Test func aRevalidationIsAnsweredFromItsBytesAsTheRouteAnswersIt() async throws {
        func answer(_ source: TestFeedSource) async throws -> (raw: String, routeCalls: Int) {
            let result = Mutex<(String, Int)?>(nil)
            try await withServer(source, logLevel: .warning) { client in
                let first = try await client.execute(uri: Self.calendarPath, method: .get)
                let etag = try #require(first.headers[.eTag])
                let port = try #require(client.port)
                let calls = await source.routeCalls
                let raw = try await RawHTTP.exchange(
                    port: port,
                    "GET \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \(etag)\r\n\r\n",
                    headOnly: true
                )
                let made = await source.routeCalls - calls
                result.withLock { $0 = (raw, made) }
            }
            return try #require(result.withLock { $0 })
        }
        let fast = try await answer(try TestFeedSource())
        let route = try await answer(try TestFeedSource(offersValidators: false))
        let withoutDate = { (raw: String) in raw.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") } }
        #expect(fast.raw.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
        #expect(withoutDate(fast.raw) == withoutDate(route.raw))
        #expect(fast.routeCalls == 0)
        #expect(route.routeCalls > 0)
    }

    /// What the byte path takes: one whole revalidation of the calendar in
    /// HTTP/1.1, and nothing it is not certain of.
    @Test(arguments: [
        ("GET PATH HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"t\"\r\n\r\n", true),
        ("HEAD PATH HTTP/1.1\r\nhost: h\r\nif-none-match:\"t\"\r\nConnection: Keep-Alive\r\n\r\n", true),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nAccept-Encoding: gzip\r\n\r\n", true),
        ("GET PATH HTTP/1.1\r\nHost: h\r\n\r\n", false),
        ("GET PATH HTTP/1.0\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nConnection: close\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nContent-Length: 0\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nTransfer-Encoding: chunked\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nExpect: 100-continue\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\nIf-None-Match: \"u\"\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\n \"folded\"\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\nGET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\n", false),
        ("GET PATH?x=1 HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET /calendar/%30.ics HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET /healthz HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("POST PATH HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET PATH HTTP/1.1\r\nHost: h\r\nHost: i\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET PATH.bak HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET /calendar/.json HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
        ("GET /calendar/ HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", false),
    ])
    func theBytePathTakesOnlyWhatItIsCertainOf(request: String, taken: Bool) {
        let bytes = ByteBuffer(string: request.replacingOccurrences(of: "PATH", with: Self.calendarPath))
        let revalidation = FeedRevalidationBytes.revalidation(bytes.readableBytesView)
        #expect((revalidation != nil) == taken, "\(request)")
        if let revalidation {
            #expect(String(decoding: revalidation.token, as: UTF8.self) == TestFeedSource.firstToken)
            #expect(String(decoding: revalidation.ifNoneMatch, as: UTF8.self) == "\"t\"")
            #expect(revalidation.acceptsGzip == request.contains("gzip"))
        }
    }

    @Test func ifModifiedSinceAloneTakesTheRoute() async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let calls = await source.routeCalls
            let response = try await client.execute(
                uri: Self.calendarPath,
                method: .get,
                headers: [.ifModifiedSince: first.headers[.lastModified] ?? ""]
            )
            #expect(response.status == .notModified)
            #expect(await source.routeCalls > calls)
        }
    }

    @Test func theAccessLineIsWrittenWithoutTheToken() async throws {
        let source = try TestFeedSource()
        let recorder = LogRecorder()
        try await withServer(source, recorder: recorder) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let calls = await source.routeCalls
            _ = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: etag])
            _ = try await client.execute(uri: Self.calendarPath, method: .head, headers: [.ifNoneMatch: etag])
            #expect(await source.routeCalls == calls)  // both revalidations took the fast path
        }
        let lines = recorder.all
        #expect(!lines.contains { $0.contains(TestFeedSource.firstToken) })
        let access = lines.filter { $0.hasPrefix("info ") && $0.contains("http.duration_ms=") }
        #expect(access.count == 3)
        #expect(access.contains { $0.contains("GET /calendar/<redacted>.ics 304") && $0.contains("http.bytes=0 ") && $0.contains("hb.request.id=") })
        #expect(access.contains { $0.contains("HEAD /calendar/<redacted>.ics 304") && $0.contains("http.bytes=0 ") })
    }

    // MARK: - The page and the JSON twin

    private static let pagePath = "/calendar/\(TestFeedSource.firstToken)"
    private static let listPath = "/calendar/\(TestFeedSource.firstToken).json"

    /// What the byte path sees of the page and its twin: the token, which of
    /// the three, and the page's host.
    @Test(arguments: [
        ("GET /calendar/TOKEN HTTP/1.1\r\nHost: example.org:8080\r\nIf-None-Match: \"t\"\r\n\r\n", RevalidationTarget.page(host: "example.org:8080")),
        ("GET /calendar/TOKEN HTTP/1.1\r\nIf-None-Match: \"t\"\r\n\r\n", .page(host: nil)),
        ("HEAD /calendar/TOKEN.json HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"t\"\r\n\r\n", .list),
        ("GET /calendar/TOKEN.ics HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"t\"\r\n\r\n", .feed),
    ])
    func theBytePathTellsThePageTheListAndTheFeedApart(request: String, target: RevalidationTarget) throws {
        let bytes = ByteBuffer(string: request.replacingOccurrences(of: "TOKEN", with: TestFeedSource.firstToken))
        let revalidation = try #require(FeedRevalidationBytes.revalidation(bytes.readableBytesView))
        #expect(revalidation.target == target)
        #expect(String(decoding: revalidation.token, as: UTF8.self) == TestFeedSource.firstToken)
    }

    /// The raw answer to one revalidation of `path` (with `headers`) after a
    /// GET with the same headers filled the cache, and how often the route asked the source.
    private func rawRevalidation(
        _ source: TestFeedSource,
        path: String,
        headers: String,
        logLevel: Logger.Level = .warning,
        recorder: LogRecorder = LogRecorder()
    ) async throws -> (raw: String, routeCalls: Int) {
        let result = Mutex<(String, Int)?>(nil)
        try await withServer(source, recorder: recorder, logLevel: logLevel) { client in
            let port = try #require(client.port)
            let first = try await RawHTTP.exchange(port: port, "GET \(path) HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n")
            let etag = try #require(first.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag: ") }).dropFirst(6)
            let calls = await source.routeCalls
            let raw = try await RawHTTP.exchange(port: port, "GET \(path) HTTP/1.1\r\n\(headers)If-None-Match: \(etag)\r\n\r\n", headOnly: true)
            let made = await source.routeCalls - calls
            result.withLock { $0 = (raw, made) }
        }
        return try #require(result.withLock { $0 })
    }

    /// The page's and the JSON twin's 304s, plain and gzip, from the bytes
    /// (access lines off) and from the parts (on): byte for byte the route's
    /// but for the date, the page's security headers included, and the route never asked.
    @Test(arguments: [
        (pagePath, "Host: localhost:8080\r\n"), (pagePath, "Host: localhost:8080\r\nAccept-Encoding: gzip\r\n"), (pagePath, ""),
        (listPath, "Host: localhost\r\n"), (listPath, "Host: localhost\r\nAccept-Encoding: gzip, br\r\n"),
    ])
    func thePageAndTheJSONTwinRevalidateAsTheRouteAnswers(path: String, headers: String) async throws {
        let withoutDate = { (raw: String) in raw.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") } }
        let route = try await rawRevalidation(try TestFeedSource(offersValidators: false, servesPages: true), path: path, headers: headers)
        #expect(route.raw.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
        #expect(route.routeCalls > 0)
        if path == Self.pagePath {
            #expect(route.raw.contains("\r\nContent-Security-Policy: default-src 'none';"))
            #expect(route.raw.contains("\r\nReferrer-Policy: no-referrer\r\n"))
        }
        for level in [Logger.Level.warning, .info] {
            let fast = try await rawRevalidation(try TestFeedSource(servesPages: true), path: path, headers: headers, logLevel: level)
            #expect(withoutDate(fast.raw) == withoutDate(route.raw), "\(level)")
            #expect(fast.routeCalls == 0, "\(level)")
        }
    }

    /// The page of another host is another page: its revalidation with this
    /// host's tag is not answered with a 304 (the route makes that host's page).
    @Test func anotherHostsPageIsNotAnsweredWithThisHostsTag() async throws {
        let source = try TestFeedSource(servesPages: true)
        try await withServer(source, logLevel: .warning) { client in
            let port = try #require(client.port)
            let first = try await RawHTTP.exchange(port: port, "GET \(Self.pagePath) HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n")
            let etag = try #require(first.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag: ") }).dropFirst(6)
            let other = try await RawHTTP.exchange(
                port: port,
                "GET \(Self.pagePath) HTTP/1.1\r\nHost: b.example\r\nIf-None-Match: \(etag)\r\nConnection: close\r\n\r\n"
            )
            #expect(other.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(other.contains("<title>b.example</title>"))
            #expect(await source.feedCalls == 2)
        }
    }

    /// A token that is not the owner's (a share's, a guess) is never answered
    /// with the owner's validators: it takes the route, here the generic 404.
    @Test(arguments: ["", ".json", ".ics"])
    func anotherTokenWithTheOwnersTagTakesTheRoute(suffix: String) async throws {
        let source = try TestFeedSource(servesPages: true)
        try await withServer(source, logLevel: .warning) { client in
            let port = try #require(client.port)
            let first = try await RawHTTP.exchange(port: port, "GET \(Self.pagePath)\(suffix) HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            let etag = try #require(first.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag: ") }).dropFirst(6)
            let calls = await source.routeCalls
            let other = try await RawHTTP.exchange(
                port: port,
                "GET /calendar/ffeeddccbbaa99887766554433221100\(suffix) HTTP/1.1\r\nHost: h\r\nIf-None-Match: \(etag)\r\n"
                    + "Connection: close\r\n\r\n"
            )
            #expect(other.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
            #expect(await source.routeCalls > calls)
        }
    }

    /// The fast path's access lines name the page and the twin as the route's do, without the token.
    @Test func thePagesAndTheTwinsAccessLinesAreWrittenWithoutTheToken() async throws {
        let source = try TestFeedSource(servesPages: true)
        let recorder = LogRecorder()
        try await withServer(source, recorder: recorder) { client in
            for path in [Self.pagePath, Self.listPath] {
                let first = try await client.execute(uri: path, method: .get)
                let etag = try #require(first.headers[.eTag])
                let calls = await source.routeCalls
                let again = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified)
                #expect(await source.routeCalls == calls, "\(path) took the fast path")
            }
        }
        let lines = recorder.all
        #expect(!lines.contains { $0.contains(TestFeedSource.firstToken) })
        #expect(lines.contains { $0.contains("GET /calendar/<redacted> 304") && $0.contains("hb.request.id=") })
        #expect(lines.contains { $0.contains("GET /calendar/<redacted>.json 304") && $0.contains("hb.request.id=") })
    }
}
