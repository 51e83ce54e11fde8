import BirthdayCore
import BirthdayStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import BirthdayServer

#if canImport(Glibc)
import Glibc
#endif

/// `serve --all-users`'s server (``UserFeeds``) live on loopback, with no
/// follower of the users root: what it answers is decided by the request alone.
@Suite struct UserFeedsTests {
    /// A user's folder with a database, its feed token made, Ada in it.
    /// With `unwatched`, the database is a symbolic link to a file in
    /// another folder, which is never watched (``FileStampWatch``): each stamp is taken.
    static func user(
        _ name: String,
        in directory: TemporaryDirectory,
        unwatched: Bool = false
    ) async throws -> (folder: String, source: DatabaseFeedSource, token: String) {
        let folder = directory.path + "/" + name
        try #require(mkdir(folder, 0o700) == 0)
        if unwatched {
            let elsewhere = directory.path + "/elsewhere-" + name
            try #require(mkdir(elsewhere, 0o700) == 0)
            let file = try AppDatabase.openFile(at: elsewhere + "/birthdays.sqlite")
            _ = try await file.feedToken()
            try #require(symlink(elsewhere + "/birthdays.sqlite", folder + "/birthdays.sqlite") == 0)
            // SQLite keeps the log beside the link's target: the stamp reads it through a link of its own.
            try #require(symlink(elsewhere + "/birthdays.sqlite-wal", folder + "/birthdays.sqlite-wal") == 0)
        }
        let database = try AppDatabase.openFile(at: folder + "/birthdays.sqlite")
        let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
        let file = try directory.write("\(name).vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nEND:VCARD\r\n")
        _ = try await ContactImporter(database: database, now: now, referenceYear: 2026).importPaths([file])
        let source = DatabaseFeedSource(database: database, now: { now }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
        return (folder, source, try await database.feedToken())
    }

    /// `users remove` renames the folder away first: from then on the
    /// user's token answers 404, before anything tells the server the user
    /// is gone; and a folder made again under the name is not the one served.
    @Test func aUserWhoseFolderIsRenamedAwayIsNoOnesAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let alice = try await Self.user("alice", in: directory)
        let feeds = UserFeeds(now: { Date(timeIntervalSince1970: 1_790_000_000) })
        #expect(await feeds.serve(try UserName("alice"), folder: alice.folder, source: alice.source))
        let app = buildAllUsersFeedApplication(feeds: feeds, userHeader: nil, host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let served = try await client.execute(uri: "/calendar/\(alice.token).ics", method: .get)
            #expect(served.status == .ok)
            #expect(String(buffer: served.body).contains("Ada Lovelace"))
            #expect(rename(alice.folder, directory.path + "/.alice.removing-1") == 0)
            #expect(feeds.served == [try UserName("alice")], "still served: no one told the server")
            #expect(try await client.execute(uri: "/calendar/\(alice.token).ics", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/calendar/\(alice.token)", method: .get).status == .notFound)
            #expect(mkdir(alice.folder, 0o700) == 0)
            #expect(try await client.execute(uri: "/calendar/\(alice.token).json", method: .get).status == .notFound)
        }
    }

    /// A token is found by the index of every user's tokens' hashes: an
    /// unknown one asks no user's database, a known one asks its own user's
    /// only; and a share made after the user was served is found (their
    /// database changed, so their hashes are read again) and asked of them only.
    @Test func aTokenAsksItsOwnUsersDatabaseOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feeds = UserFeeds(now: { Date(timeIntervalSince1970: 1_790_000_000) })
        var tokens: [UserName: String] = [:]
        var databases: [UserName: AppDatabase] = [:]
        var sources: [DatabaseFeedSource] = []
        for name in ["alice", "bob", "carol"] {
            let user = try await Self.user(name, in: directory)
            #expect(await feeds.serve(try UserName(name), folder: user.folder, source: user.source))
            tokens[try UserName(name)] = user.token
            databases[try UserName(name)] = user.source.database
            sources.append(user.source)
        }
        #expect(feeds.indexedTokens == 3)
        var asked: [UserName] = []
        func ask(_ token: String) async throws -> UserFeed? {
            try await feeds.feed(token: token) { feed in
                let own = try await feed.source.token()
                asked.append(try #require(tokens.first { $0.value == own }?.key))
                return try await feed.ownsCalendar(token)
            }
        }
        let (reads, taken) = (feeds.hashReads, sources.map(\.stampsTaken))
        #expect(try await ask(String(repeating: "7", count: 32)) == nil)
        #expect(asked.isEmpty, "an unknown token asks no one: \(asked)")
        #expect(feeds.hashReads == reads, "nor reads anyone's hashes again")
        #expect(sources.map(\.stampsTaken) == taken, "nor takes anyone's stamp: each watch is read, no `stat`")
        let bob = try UserName("bob")
        #expect(try await ask(try #require(tokens[bob])) != nil)
        #expect(asked == [bob])
        asked = []
        let bobsDatabase = try #require(databases[bob])
        let share = try #require(
            try await bobsDatabase.addShare(
                name: "Family",
                groups: [],
                showAges: true,
                showYears: true,
                now: Date(timeIntervalSince1970: 1_790_000_000)
            )
        )
        #expect(try await ask(share.token) != nil)
        #expect(asked == [bob])
    }

    /// The header of the trusted proxy (here the loopback address the test client comes from) names whose page `/` is.
    @Test func theHeaderFromTheProxyNamesWhosePageSlashIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let alice = try await Self.user("alice", in: directory)
        let feeds = UserFeeds(now: { Date(timeIntervalSince1970: 1_790_000_000) })
        #expect(await feeds.serve(try UserName("alice"), folder: alice.folder, source: alice.source))
        let proxy = try #require(TrustedProxy("127.0.0.1"))
        let header = try #require(UserHeader(proxy: proxy, name: "Remote-User"))
        let app = buildAllUsersFeedApplication(feeds: feeds, userHeader: header, host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let page = try await client.execute(uri: "/", method: .get, headers: [.init("Remote-User")!: "alice"])
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("href=\"calendar/\(alice.token).ics\""))
            let unknown = try await client.execute(uri: "/", method: .get, headers: [.init("remote-user")!: "bob"])
            #expect(unknown.status == .forbidden)
            #expect(try await client.execute(uri: "/", method: .get).status == .notFound)
        }
    }

    /// A user whose folder has no watch has their stamp (two `stat` calls)
    /// taken for a token not found at most once in
    /// ``UserFeeds/unwatchedInterval``, not for every such request; a share
    /// made meanwhile is found once it has passed.
    @Test func aUserWithoutAWatchIsLookedAtAgainOnlyAfterAWhile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let clock = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
        let feeds = UserFeeds(now: { clock.withLock { $0 } })
        let dave = try await Self.user("dave", in: directory, unwatched: true)
        #expect(await feeds.serve(try UserName("dave"), folder: dave.folder, source: dave.source))
        #expect(!dave.source.isWatched())
        let unknown = String(repeating: "7", count: 32)
        func ask(_ token: String) async throws -> UserFeed? { try await feeds.feed(token: token) { try await $0.ownsCalendar(token) } }
        let taken = dave.source.stampsTaken
        #expect(try await ask(unknown) == nil)
        #expect(dave.source.stampsTaken == taken + 1)
        #expect(try await ask(unknown) == nil)
        #expect(try await ask(unknown) == nil)
        #expect(dave.source.stampsTaken == taken + 1, "not again within the interval")
        let share = try #require(
            try await dave.source.database.addShare(name: "Family", groups: [], showAges: true, showYears: true, now: clock.withLock { $0 })
        )
        #expect(try await ask(share.token) == nil, "not looked at yet")
        clock.withLock { $0 += UserFeeds.unwatchedInterval }
        #expect(try await ask(share.token) != nil)
    }
}
