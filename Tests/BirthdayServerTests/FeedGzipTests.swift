import CZlib
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import BirthdayServer

/// `Accept-Encoding: gzip` gets the feed compressed, with a tag of its own;
/// ETags and 304s stay right for both representations, on the route and on
/// the revalidation fast path.
@Suite struct FeedGzipTests {
    private static let calendarPath = "/calendar/\(TestFeedSource.firstToken).ics"

    /// gunzip, with zlib's own inflate.
    static func gunzip(_ buffer: ByteBuffer) throws -> String {
        var stream = z_stream()
        try #require(czlib_inflate_init_gzip(&stream) == Z_OK)
        defer { inflateEnd(&stream) }
        var input = Array(buffer.readableBytesView)
        var output = [UInt8](repeating: 0, count: 1 << 22)
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        try #require(status == Z_STREAM_END, "not a whole gzip stream (\(status))")
        return String(decoding: output[..<Int(stream.total_out)], as: UTF8.self)
    }

    @Test func gzipIsSentToClientsThatAskAndDecompressesToTheFeed() async throws {
        let source = try TestFeedSource()
        let body = await source.body
        try await withServer(source) { client in
            let plain = try await client.execute(uri: Self.calendarPath, method: .get)
            let gzip = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"])
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            #expect(gzip.status == .ok)
            #expect(gzip.headers[.contentEncoding] == "gzip")
            #expect(gzip.headers[.vary] == "Accept-Encoding")
            #expect(gzip.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(try Self.gunzip(gzip.body) == body)
            #expect(gzip.body.readableBytes < plain.body.readableBytes)
            let plainTag = try #require(plain.headers[.eTag])
            let gzipTag = try #require(gzip.headers[.eTag])
            #expect(gzipTag != plainTag, "two representations, two strong tags")
        }
    }

    @Test(arguments: ["gzip;q=0", "identity", "br", "deflate, gzip;q=0.0"])
    func clientsThatRefuseGzipGetThePlainFeed(_ acceptEncoding: String) async throws {
        let source = try TestFeedSource()
        let body = await source.body
        try await withServer(source) { client in
            let response = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.acceptEncoding: acceptEncoding])
            #expect(response.headers[.contentEncoding] == nil)
            #expect(String(buffer: response.body) == body)
        }
    }

    /// Each representation revalidates against its own tag: the gzip tag
    /// with gzip accepted, the plain tag without; the other tag gets 200.
    @Test(arguments: [true, false])
    func eachRepresentationRevalidatesWithItsOwnTag(offersValidators: Bool) async throws {
        // With validators offered the fast path answers; without, the route does.
        let source = try TestFeedSource(offersValidators: offersValidators)
        try await withServer(source) { client in
            let plainTag = try #require(try await client.execute(uri: Self.calendarPath, method: .get).headers[.eTag])
            let gzipTag = try #require(
                try await client.execute(uri: Self.calendarPath, method: .get, headers: [.acceptEncoding: "gzip"]).headers[.eTag]
            )
            let gzip304 = try await client.execute(
                uri: Self.calendarPath,
                method: .get,
                headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipTag]
            )
            #expect(gzip304.status == .notModified)
            #expect(gzip304.headers[.eTag] == gzipTag)
            #expect(gzip304.headers[.vary] == "Accept-Encoding")
            let plain304 = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: plainTag])
            #expect(plain304.status == .notModified)
            #expect(plain304.headers[.eTag] == plainTag)
            // A tag of the other representation does not match.
            let crossed = try await client.execute(uri: Self.calendarPath, method: .get, headers: [.ifNoneMatch: gzipTag])
            #expect(crossed.status == .ok)
            #expect(crossed.headers[.eTag] == plainTag)
            let crossedGzip = try await client.execute(
                uri: Self.calendarPath,
                method: .get,
                headers: [.acceptEncoding: "gzip", .ifNoneMatch: plainTag]
            )
            #expect(crossedGzip.status == .ok)
            #expect(crossedGzip.headers[.contentEncoding] == "gzip")
        }
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("x-gzip", true), ("*", true), ("deflate, gzip;q=0.5", true),
        ("gzip;q=0", false), ("gzip; q=0.000", false), ("identity", false), ("", false), ("br, deflate", false),
    ])
    func acceptEncodingIsRead(_ value: String, _ accepted: Bool) {
        #expect(Gzip.isAccepted(by: value) == accepted)
    }
}
