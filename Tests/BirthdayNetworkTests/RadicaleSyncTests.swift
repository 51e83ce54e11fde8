import BirthdayCore
import BirthdayStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork

/// A CardDAV address book on a real Radicale server, synced into a real
/// database: what changes on the server arrives, what goes wrong changes
/// nothing, and an unchanged book costs one request.
@Suite(.serialized) struct RadicaleSyncTests {
    /// A Radicale server with the book `friends`, a database with it as a source.
    struct Fixture {
        let server: RadicaleServer
        let database: AppDatabase
        let source: Source
        let logs = LogRecorder()
        var password = "secret"

        static let now = Date(timeIntervalSince1970: 1_773_133_200)  // 2026-03-10T09:00:00Z

        init(book: String = "friends", displayName: String? = "Friends") async throws {
            server = try await RadicaleServer()
            try await server.makeBook(book, displayName: displayName)
            database = try AppDatabase.inMemory()
            source = try await database.addSource(
                Source(name: displayName ?? book, kind: .carddav, location: server.bookURL(book), username: server.user, passwordCommand: "unused"),
                now: Self.now
            )
        }

        func syncer(password: String? = nil, readTimeout: Duration = .seconds(120)) -> SourceSync {
            let secret = password ?? self.password
            return SourceSync(
                database: database,
                readers: SourceReaders { kind in
                    kind == .carddav ? CardDAVReader(password: { _ in secret }, readTimeout: readTimeout) as any SourceReader : LocalSourceReader()
                },
                now: { Self.now },
                systemTimeZone: { TimeZone(identifier: "UTC")! },
                logger: logs.logger
            )
        }

        func sync(allowMassRemoval: Bool = false, password: String? = nil) async throws -> SourceSyncReport {
            let current = try #require(try await database.sources().first { $0.id == source.id })
            return await syncer(password: password).sync(current, allowMassRemoval: allowMassRemoval)
        }

        /// Everyone in the store as "id name birthday".
        func people() async throws -> [String] {
            try await database.people().map { "\($0.id) \($0.name) \($0.birthday?.description ?? "-")" }.sorted()
        }

        var ourRequests: Int { server.requests(userAgent: "birthdays") }
    }

    @Test func firstSyncEditsDeletionsAndAdditions() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-04-12")
        try await fixture.server.put("friends", uid: "bob", name: "Bob Example", birthday: "1985-07-01")
        try await fixture.server.put("friends", uid: "cy", name: "No Date", birthday: nil)

        let first = try await fixture.sync()
        #expect(first.error == nil, "\(String(describing: first.error))")
        // Cy, without a date, is kept (undated): a date added on the phone later finds them.
        #expect(first.counts == [3, 0, 0, 0])
        #expect(first.peopleChanged)
        #expect(try await fixture.people() == ["ann Ann Example 1990-04-12", "bob Bob Example 1985-07-01", "cy No Date -"])
        #expect(try await fixture.database.person(id: "cy")?.isUndated == true)

        // Edit Ann, delete Bob, add Dee, give Cy a birthday.
        try await fixture.server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-04-13")
        try await fixture.server.delete("friends", file: "bob.vcf")
        try await fixture.server.put("friends", uid: "dee", name: "Dee Example", birthday: "--0229")
        try await fixture.server.put("friends", uid: "cy", name: "No Date", birthday: "2000-01-01")
        let before = fixture.ourRequests
        let second = try await fixture.sync()
        #expect(second.error == nil, "\(String(describing: second.error))")
        // Cy's new birthday updates the person kept without one: nobody is added twice.
        #expect(second.counts == [1, 2, 1, 0])
        #expect(
            try await fixture.people() == [
                "ann Ann Example 1990-04-13", "cy No Date 2000-01-01", "dee Dee Example --02-29",
            ]
        )
        // One sync-collection with the stored token, the cards in its answer.
        #expect(fixture.ourRequests - before == 1)
        #expect(second.requests == 1)
        // Logs carry counts, never a name.
        #expect(!fixture.logs.all.joined().contains("Example"))
    }

    @Test func anUnchangedBookCostsOneRequestAndChangesNothing() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-12")
        _ = try await fixture.sync()
        let revision = try await fixture.database.revision().value
        let before = fixture.ourRequests

        let again = try await fixture.sync()
        #expect(again.error == nil)
        #expect(again.counts == [0, 0, 0, 1])
        #expect(!again.peopleChanged)
        #expect(fixture.ourRequests - before == 1)
        #expect(try await fixture.database.revision().value == revision)
    }

    @Test func aWrongPasswordADeadServerAndAnEmptiedBookChangeNothing() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        for index in 0..<3 { try await fixture.server.put("friends", uid: "p\(index)", name: "P \(index)", birthday: "1990-01-0\(index + 1)") }
        _ = try await fixture.sync()
        let people = try await fixture.people()
        #expect(people.count == 3)

        // Wrong password: 401, reported without the password.
        let denied = try await fixture.sync(password: "wrong-password")
        #expect(denied.error == .remote(.unauthorized(url: fixture.server.bookURL("friends"))))
        #expect(!"\(denied.error!)".contains("wrong-password"))
        #expect(try await fixture.people() == people)
        let status = try #require(try await fixture.database.sources().first?.status)
        #expect(status.failures == 1)
        #expect(status.error?.contains("HTTP 401") == true)

        // Emptied book: the sync is refused and nobody leaves.
        for index in 0..<3 { try await fixture.server.delete("friends", file: "p\(index).vcf") }
        let emptied = try await fixture.sync()
        #expect(emptied.error == .massRemoval(source: "Friends", removing: 3, of: 3))
        #expect(try await fixture.people() == people)
        // Refused again on the next sync: the token was not moved past the deletions.
        #expect(try await fixture.sync().error == .massRemoval(source: "Friends", removing: 3, of: 3))
        let confirmed = try await fixture.sync(allowMassRemoval: true)
        #expect(confirmed.error == nil)
        #expect(confirmed.removed == 3)
        #expect(try await fixture.people().isEmpty)
        #expect(try await fixture.database.sources().first?.status.failures == 0)

        // Dead server: a network error, nothing changes.
        try await fixture.server.put("friends", uid: "new", name: "New", birthday: "1999-09-09")
        fixture.server.stop()
        let dead = try await fixture.sync()
        guard case .remote(.network(let url, _)) = dead.error else {
            Issue.record("expected a network error, got \(String(describing: dead.error))")
            return
        }
        #expect(url == fixture.server.bookURL("friends"))
        #expect(try await fixture.people().isEmpty)
    }

    @Test func anExpiredSyncTokenStartsOverWithAFullListing() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try await fixture.server.put("friends", uid: "bob", name: "Bob", birthday: "1991-04-12")
        _ = try await fixture.sync()
        try await fixture.server.delete("friends", file: "bob.vcf")
        // Radicale forgets the tokens it handed out.
        let tokens = fixture.server.bookFolder("friends") + "/.Radicale.cache/sync-token"
        for file in try FileManager.default.contentsOfDirectory(atPath: tokens) {
            try FileManager.default.removeItem(atPath: tokens + "/" + file)
        }
        let before = fixture.ourRequests
        let report = try await fixture.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(report.counts == [0, 0, 1, 1])
        #expect(try await fixture.people() == ["ann Ann 1990-04-12"])
        // The refused token, then a listing from scratch.
        #expect(fixture.ourRequests - before == 2)
        #expect(fixture.server.log.contains("invalid sync token") || fixture.server.log.contains("Token not found"))
    }

    @Test func theClassicWayWithoutSyncCollection() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try await fixture.server.put("friends", uid: "bob", name: "Bob", birthday: "1991-04-12")
        let book = try #require(URL(string: fixture.server.bookURL("friends")))
        let session = DAVSessionProbe.session()
        let first = try await CardDAVReader.byETags(book, session: session, snapshot: SourceSnapshot())
        await session.shutdown()
        guard case .complete(let present) = first.listing else { throw TestSupportError("not a complete listing") }
        #expect(present == ["/alice/friends/ann.vcf", "/alice/friends/bob.vcf"])
        #expect(first.items.count == 2)
        let ctag = try #require(first.ctag)
        let known = SourceSnapshot(ctag: ctag, items: Dictionary(uniqueKeysWithValues: first.items.map { ($0.href, $0.etag) }))

        // Unchanged: the ctag alone answers.
        let probe = DAVSessionProbe.session()
        let unchanged = try await CardDAVReader.byETags(book, session: probe, snapshot: known)
        #expect(unchanged.items.isEmpty)
        #expect(unchanged.listing == .delta(removed: []))
        #expect(probe.requests == 1)

        // One edit: the listing, then a multiget of that card only.
        try await fixture.server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-13")
        let edited = DAVSessionProbe.session()
        let changes = try await CardDAVReader.byETags(book, session: edited, snapshot: known)
        #expect(changes.items.map(\.href) == ["/alice/friends/ann.vcf"])
        #expect(String(decoding: changes.items[0].content, as: UTF8.self).contains("BDAY:1990-04-13"))
        #expect(edited.requests == 3)
        await probe.shutdown()
        await edited.shutdown()
    }

    @Test func discoveryFromTheServerRootFindsEveryBook() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let fixture = try await Fixture()
        defer { fixture.server.cleanUp() }
        try await fixture.server.makeBook("work", displayName: nil)
        let discovery = CardDAVDiscovery()
        let books = try await discovery.addressBooks(from: fixture.server.baseURL, username: "alice", password: "secret")
        // Radicale names a book without a display name after its path.
        #expect(
            books == [
                AddressBook(url: fixture.server.bookURL("friends"), displayName: "Friends"),
                AddressBook(url: fixture.server.bookURL("work"), displayName: "alice/work"),
            ]
        )
        #expect(AddressBook(url: fixture.server.bookURL("work"), displayName: nil).suggestedName == "work")
        // From the principal, and from a book itself.
        #expect(try await discovery.addressBooks(from: fixture.server.baseURL + "/alice/", username: "alice", password: "secret").count == 2)
        #expect(
            try await discovery.addressBooks(from: fixture.server.bookURL("work"), username: "alice", password: "secret").map(\.url) == [
                fixture.server.bookURL("work")
            ]
        )
        await #expect(throws: SourceError.remote(.unauthorized(url: fixture.server.baseURL))) {
            try await discovery.addressBooks(from: fixture.server.baseURL, username: "alice", password: "nope")
        }
    }

    @Test func aTenThousandCardBook() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try server.seed("big", displayName: "Big", count: 10_000)
        let database = try AppDatabase.inMemory()
        let source = try await database.addSource(
            Source(name: "Big", kind: .carddav, location: server.bookURL("big"), username: "alice"),
            now: Fixture.now
        )
        let sync = SourceSync(
            database: database,
            readers: SourceReaders { _ in CardDAVReader(password: { _ in "secret" }, readTimeout: .seconds(600), deadline: .seconds(600)) },
            now: { Fixture.now },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let first = await sync.sync(source)
        #expect(first.error == nil, "\(String(describing: first.error))")
        #expect(first.added == 10_000)
        #expect(first.requests == 1)
        #expect(try await database.peopleCount() == 10_000)

        // One card changed among 10,000: one request, one update.
        try Data(RadicaleServer.seedCard(4242, name: "Renamed").utf8).write(to: URL(fileURLWithPath: server.bookFolder("big") + "/c04242.vcf"))
        let current = try #require(try await database.sources().first)
        let second = await sync.sync(current)
        #expect(second.error == nil)
        #expect(second.counts == [0, 1, 0, 9_999])
        #expect(second.requests == 1)
        #expect(try await database.person(id: "uid-04242")?.name == "Renamed")
    }
}

/// A bare session against the fixture's server, for the algorithm's own steps.
enum DAVSessionProbe {
    static func session() -> DAVSession {
        DAVSession(username: "alice", password: "secret", userAgent: "birthdays", limits: .sync(knownCards: 0))
    }
}

extension SourceSyncReport {
    /// added, updated, removed, unchanged.
    var counts: [Int] { [added, updated, removed, unchanged] }
}
