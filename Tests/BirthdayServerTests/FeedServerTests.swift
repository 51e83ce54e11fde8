import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

@testable import BirthdayServer

/// The real server on an ephemeral loopback port, spoken to over HTTP.
@Suite struct FeedServerTests {
    private static let calendarPath = "/calendar/\(TestFeedSource.firstToken).ics"

    // MARK: - 200 and validators

    @Test func servesTheFeedWithCalendarHeaders() async throws {
        let source = try TestFeedSource()
        let body = await source.body
        try await withServer(source) { client in
            let response = try await client.execute(uri: Self.calendarPath, method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(response.headers[.contentLength] == String(body.utf8.count))
            #expect(response.headers[.lastModified] == "Sat, 21 Nov 2026 05:30:00 GMT")
            #expect(response.headers[.cacheControl] == "private, no-cache")
            let etag = try #require(response.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
            #expect(response.headers[.server] == nil)
            #expect(String(buffer: response.body) == body)
        }
    }

    @Test(arguments: ["{etag}", "W/{etag}", "\"other\", {etag}", "*", "\"x\",{etag} "])
    func ifNoneMatchGivesNotModified(header: String) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            let etag = try #require(first.headers[.eTag])
            let value = header.replacingOccurrences(of: "{etag}", with: etag)
            let response = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: value])
            #expect(response.status == .notModified)
            #expect(response.body.readableBytes == 0)
            #expect(response.headers[.eTag] == etag)
            #expect(response.headers[.lastModified] == first.headers[.lastModified])
        }
    }

    @Test func ifNoneMatchWinsOverIfModifiedSince() async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let response = try await client.execute(
                uri: Self.calendarPath,
                method: .get,
                headers: [.ifNoneMatch: "\"stale\"", .ifModifiedSince: "Fri, 01 Jan 2100 00:00:00 GMT"]
            )
            #expect(response.status == .ok)
            #expect(response.body.readableBytes > 0)
        }
    }

    @Test(arguments: [
        ("Sat, 21 Nov 2026 05:30:00 GMT", HTTPResponse.Status.notModified),
        ("Sunday, 22-Nov-26 00:00:00 GMT", .notModified),
        ("Sat Nov 21 05:30:00 2026", .notModified),
        ("Sat, 21 Nov 2026 05:29:59 GMT", .ok),
        ("yesterday", .ok),
    ])
    func ifModifiedSinceComparesToTheSecond(header: String, status: HTTPResponse.Status) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let response = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifModifiedSince: header])
            #expect(response.status == status)
        }
    }

    // MARK: - Tokens

    @Test(arguments: [
        "/calendar/ffffffffffffffffffffffffffffffff.ics", "/calendar/.ics", "/calendar/", "/calendar",
        "/calendar/\(TestFeedSource.firstToken)", "/calendar/\(TestFeedSource.firstToken).ics.bak",
        "/calendar/\(TestFeedSource.firstToken.dropLast()).ics", "/nothing-here",
    ])
    func wrongOrMissingTokenIsAGenericNotFound(path: String) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let response = try await client.execute(uri: path, method: .get)
            #expect(response.status == .notFound)
            #expect(String(buffer: response.body) == "not found\n")
            #expect(response.headers[.eTag] == nil)
        }
        #expect(await source.feedCalls == 0)
    }

    @Test func rotatingTheTokenLocksOutTheOldURLAtOnce() async throws {
        let source = try TestFeedSource()
        let newToken = FeedToken.generate()
        try await withServer(source) { client in
            let before = try await client.execute(uri: Self.calendarPath, method: .get)
            #expect(before.status == .ok)
            await source.rotate(to: newToken)
            let old = try await client.execute(uri: Self.calendarPath, method: .get)
            #expect(old.status == .notFound)
            let new = try await client.execute(uri: "/calendar/\(newToken).ics", method: .get)
            #expect(new.status == .ok)
        }
    }

    // MARK: - Methods, bodies, slow clients

    @Test func headHasTheHeadersOfGetAndNoBody() async throws {
        let source = try TestFeedSource()
        let length = await source.body.utf8.count
        try await withServer(source) { client in
            let get = try await client.execute(uri: Self.calendarPath, method: .get)
            let head = try await client.execute(uri: Self.calendarPath, method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(length))
            #expect(head.headers[.eTag] == get.headers[.eTag])
            #expect(head.headers[.contentType] == "text/calendar; charset=utf-8")

            // On the wire: the server closes after the head, with not one body byte.
            let port = try #require(client.port)
            let raw = try await RawHTTP.exchange(port: port, "HEAD \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(raw.hasSuffix("\r\n\r\n"))
        }
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .delete, .patch, .options])
    func otherMethodsAreRefused(method: HTTPRequest.Method) async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let response = try await client.execute(uri: Self.calendarPath, method: method)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == "GET, HEAD")
        }
        #expect(await source.feedCalls == 0)
    }

    @Test func aRequestBodyIsRefusedAndTheConnectionClosedWithoutReadingIt() async throws {
        let source = try TestFeedSource()
        try await withServer(source) { client in
            let port = try #require(client.port)
            // Announces a megabyte, sends a few bytes, and never sends the rest:
            // the server answers and closes instead of waiting for it.
            let raw = try await RawHTTP.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\npartial")
            #expect(raw.hasPrefix("HTTP/1.1 413 "))
            let chunked = try await RawHTTP.exchange(
                port: port,
                "POST \(Self.calendarPath) HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
            )
            #expect(chunked.hasPrefix("HTTP/1.1 405 "))
            #expect(chunked.lowercased().contains("\r\nconnection: close\r\n"))
        }
    }

    /// A refused request without a body leaves the connection open for the next one.
    @Test func aRefusedRequestWithoutBodyKeepsTheConnection() async throws {
        try await withServer(try TestFeedSource()) { client in
            let port = try #require(client.port)
            let raw = try await RawHTTP.exchange(
                port: port,
                "DELETE /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            )
            #expect(raw.hasPrefix("HTTP/1.1 405 "))
            #expect(raw.contains("\r\n\r\nmethod not allowed\nHTTP/1.1 200 OK\r\n"))
            #expect(raw.hasSuffix("\r\n\r\nok\n"))
        }
    }

    @Test func aClientThatSendsNothingOrHalfARequestIsDisconnected() async throws {
        let source = try TestFeedSource()
        try await withServer(source, idleTimeout: .milliseconds(200)) { client in
            let port = try #require(client.port)
            #expect(try await RawHTTP.exchange(port: port, "") == "")
            #expect(try await RawHTTP.exchange(port: port, "GET /calendar/") == "")
        }
    }

    @Test func healthz() async throws {
        try await withServer(try TestFeedSource()) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "ok\n")
        }
    }

    @Test func aFailingSourceGivesServiceUnavailable() async throws {
        let source = try TestFeedSource()
        let recorder = LogRecorder()
        try await withServer(source, recorder: recorder) { client in
            await source.fail()
            let response = try await client.execute(uri: Self.calendarPath, method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "60")
        }
        #expect(recorder.all.contains { $0.contains("Feed source failed") && $0.contains("TestFailure") })
    }

    // MARK: - Caching

    @Test func theBodyIsRebuiltOnlyWhenTheRevisionChanges() async throws {
        let source = try TestFeedSource()
        let newBody = try TestFeedSource.export(names: ["Ada Lovelace", "Grace Hopper"])
        try await withServer(source) { client in
            let first = try await client.execute(uri: Self.calendarPath, method: .get)
            for _ in 0..<3 {
                _ = try await client.execute(uri: Self.calendarPath, method: .get)
                _ = try await client.execute(uri: Self.calendarPath, method: .head)
            }
            #expect(await source.feedCalls == 1)

            await source.change(body: newBody, lastModified: Date(timeIntervalSince1970: 1_795_300_000))
            let changed = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: first.headers[.eTag] ?? ""])
            #expect(changed.status == .ok)
            #expect(String(buffer: changed.body) == newBody)
            #expect(changed.headers[.eTag] != first.headers[.eTag])
            _ = try await client.execute(uri: Self.calendarPath, method: .get)
            #expect(await source.feedCalls == 2)
        }
    }

    // MARK: - Logs

    @Test func accessLogsNeverContainTheTokenOrTheFeed() async throws {
        let source = try TestFeedSource()
        let recorder = LogRecorder()
        let wrongToken = "ffffffffffffffffffffffffffffffff"
        try await withServer(source, recorder: recorder) { client in
            let ok = try await client.execute(uri: Self.calendarPath + "?x=1", method: .get)
            _ = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: ok.headers[.eTag] ?? ""])
            _ = try await client.execute(uri: Self.calendarPath, method: .head)
            _ = try await client.execute(uri: "/calendar/\(wrongToken).ics", method: .get)
            _ = try await client.execute(uri: "/\(wrongToken)", method: .get)
            _ = try await client.execute(uri: "/healthz", method: .get)
            // Last: the test client frames a POST as chunked, so the server closes after refusing it.
            _ = try await client.execute(uri: Self.calendarPath, method: .post)
        }
        let lines = recorder.all
        for line in lines {
            #expect(!line.contains(TestFeedSource.firstToken))
            #expect(!line.contains(wrongToken))
            #expect(!line.contains("Ada"))
            #expect(!line.contains("BEGIN:VCALENDAR"))
        }
        let access = lines.filter { $0.hasPrefix("info ") && $0.contains("http.duration_ms=") }
        #expect(access.count == 7)
        #expect(access.contains { $0.contains("GET /calendar/<redacted>.ics 200") && !$0.contains("http.bytes=0 ") })
        #expect(access.contains { $0.contains("GET /calendar/<redacted>.ics 304") && $0.contains("http.bytes=0 ") })
        #expect(access.contains { $0.contains("HEAD /calendar/<redacted>.ics 200") })
        #expect(access.contains { $0.contains("GET /calendar/<redacted>.ics 404") })
        #expect(access.contains { $0.contains("POST /calendar/<redacted>.ics 405") })
        #expect(access.contains { $0.contains("GET <other> 404") })
        #expect(access.contains { $0.contains("GET /healthz 200") })
    }
}
