import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BirthdayServer

/// One controller per feature over a real database file (one card, the
/// owner's token and one share), and the one path parser (``CalendarPath``)
/// that the routes and the revalidation byte path share.
@Suite struct CalendarRoutesTests {
    /// A database with one card, the feed token made, and a share of one group.
    private final class Bed: Sendable {
        let directory: TemporaryDirectory
        let database: AppDatabase
        let source: DatabaseFeedSource
        let ownerToken: String
        let shareToken: String

        init() async throws {
            directory = try TemporaryDirectory()
            database = try AppDatabase.openFile(at: directory.path + "/feed.sqlite")
            let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
            let file = try directory.write("card.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nEND:VCARD\r\n")
            _ = try await ContactImporter(database: database, now: now, referenceYear: 2026).importPaths([file])
            ownerToken = try await database.feedToken()
            let share = try #require(try await database.addShare(name: "family", groups: ["family"], showAges: false, showYears: false, now: now))
            shareToken = share.token
            source = DatabaseFeedSource(database: database, now: { now }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
        }

        deinit { directory.cleanup() }
    }

    /// A path of the table, with `OWNER` or `SHARE` for a token; what it asks
    /// for (`nil`: nothing, the generic 404); and the route's status.
    static let table: [(path: String, kind: CalendarPath.Kind?, status: Int)] = [
        ("/calendar/OWNER.ics", .feed, 200),
        ("/calendar/OWNER.json", .list, 200),
        ("/calendar/OWNER", .page, 200),
        ("/calendar/SHARE.ics", .feed, 200),
        ("/calendar/SHARE.json", .list, 200),
        ("/calendar/SHARE", .page, 200),
        ("/calendar/00112233445566778899aabbccddeeff.ics", .feed, 404),
        ("/calendar/00112233445566778899aabbccddeeff", .page, 404),
        ("/calendar/OWNER.txt", nil, 404),
        ("/calendar/OWNER.ics.bak", nil, 404),
        ("/calendar/OWNER.JSON", nil, 404),
        ("/calendar/SHARE.html", nil, 404),
        ("/calendar/.ics", nil, 404),
        ("/calendar/.json", nil, 404),
        ("/calendar/OWNER%2Eics", nil, 404),
        ("/calendar/OWNER/x.ics", nil, 404),
    ]

    private static func filled(_ path: String, _ bed: Bed) -> String {
        path.replacingOccurrences(of: "OWNER", with: bed.ownerToken).replacingOccurrences(of: "SHARE", with: bed.shareToken)
    }

    /// The parser, the byte path and the route read every path of the table
    /// alike: the same kind (or none), and the route answers it as that kind
    /// (the owner's token and a share's alike; an unknown extension is 404).
    @Test func theRouteAndTheBytePathReadEveryPathAsTheParserDoes() async throws {
        let bed = try await Bed()
        let contentTypes: [CalendarPath.Kind: String] = [
            .feed: "text/calendar; charset=utf-8", .list: "application/json; charset=utf-8", .page: "text/html; charset=utf-8",
        ]
        try await withServer(bed) { client in
            for row in Self.table {
                let path = Self.filled(row.path, bed)
                let parsed = CalendarPath.parse(path.utf8)
                #expect(parsed?.kind == row.kind, "\(row.path)")
                if let parsed {
                    #expect(
                        String(decoding: parsed.token, as: UTF8.self) == path.split(separator: "/").last?.split(separator: ".").first.map(String.init)
                    )
                }
                let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \"t\"\r\n\r\n"
                let bytes = ByteBuffer(string: request)
                let revalidation = FeedRevalidationBytes.revalidation(bytes.readableBytesView)
                #expect(revalidation.map { Self.kind(of: $0.target) } == row.kind, "the byte path: \(row.path)")
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status.code == row.status, "the route: \(row.path)")
                if row.status == 200, let kind = row.kind {
                    #expect(response.headers[.contentType] == contentTypes[kind], "\(row.path)")
                }
            }
        }
    }

    /// A share's page and feed hold its own people (none of the family
    /// group here), never the owner's.
    @Test func aSharesTokenGetsTheSharesCalendarNotTheOwners() async throws {
        let bed = try await Bed()
        try await withServer(bed) { client in
            let owner = try await client.execute(uri: "/calendar/\(bed.ownerToken).ics", method: .get)
            #expect(String(buffer: owner.body).contains("Ada Lovelace"))
            let share = try await client.execute(uri: "/calendar/\(bed.shareToken).ics", method: .get)
            #expect(share.status == .ok)
            #expect(!String(buffer: share.body).contains("Ada Lovelace"))
        }
    }

    /// One controller per feature, each on its group; the invitations'
    /// only when the server has an invitation source: a share serves the
    /// calendar and the page, and no invitation route at all.
    @Test func eachFeatureHasItsControllerAndAShareNoInvitationRoute() async throws {
        let bed = try await Bed()
        let share = try #require(try await bed.source.share(token: bed.shareToken))
        let calendarAndPage: Set = [
            "GET /calendar/{token}.ics", "GET /calendar/{token}.json", "GET /calendar/{token}", "GET /page.css", "GET /favicon.svg",
            "GET /healthz",
        ]
        let invitations: Set = ["GET /invite/{token}", "POST /invite/{token}"]

        let owner = buildFeedRouter(source: bed.source, invitations: bed.source).router
        try owner.validate()
        #expect(Self.routes(owner) == calendarAndPage.union(invitations))

        let shared = buildFeedRouter(source: share, invitations: nil).router
        try shared.validate()
        #expect(Self.routes(shared) == calendarAndPage)

        // Served: the share's own calendar under its token; no form.
        var logger = LogRecorder().logger
        logger.logLevel = .warning
        let app = buildFeedApplication(source: share, invitations: nil, host: "127.0.0.1", port: 0, logger: logger)
        try await app.test(.live) { client in
            let feed = try await client.execute(uri: "/calendar/\(bed.shareToken).ics", method: .get)
            let page = try await client.execute(uri: "/calendar/\(bed.shareToken)", method: .get)
            let form = try await client.execute(uri: "/invite/\(bed.shareToken)", method: .get)
            let answer = try await client.execute(uri: "/invite/\(bed.shareToken)", method: .post, body: ByteBuffer(string: "name=x"))
            #expect([feed.status, page.status, form.status, answer.status] == [.ok, .ok, .notFound, .notFound])
        }
    }

    private static func routes(_ router: Router<FeedRequestContext>) -> Set<String> {
        Set(router.routes.map(\.description).filter { !$0.hasPrefix("HEAD ") })
    }

    private static func kind(of target: RevalidationTarget) -> CalendarPath.Kind {
        switch target {
        case .feed: .feed
        case .list: .list
        case .page: .page
        }
    }

    private func withServer(_ bed: Bed, _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = LogRecorder().logger
        logger.logLevel = .warning
        let app = buildFeedApplication(source: bed.source, invitations: bed.source, host: "127.0.0.1", port: 0, logger: logger)
        try await app.test(.live) { client in try await test(client) }
    }
}
