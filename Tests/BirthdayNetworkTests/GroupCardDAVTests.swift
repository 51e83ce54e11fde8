import BirthdayCore
import BirthdayStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork

/// Groups in a CardDAV address book on a real Radicale server (issue 26):
/// Apple's group card arrives in its own resource, possibly in another sync
/// than its members, and a member that leaves it changes their reminders at
/// the next sync.
@Suite(.serialized) struct GroupCardDAVTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z

    static func groupCard(members: [String]) -> String {
        var card = "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Apple Inc.//iOS 17.0//EN\r\nN:Work\r\nFN:Work\r\nX-ADDRESSBOOKSERVER-KIND:group\r\n"
        for member in members { card += "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:\(member)\r\n" }
        return card + "UID:work-group\r\nEND:VCARD\r\n"
    }

    @Test func anAppleGroupCardOnTheServerDecidesItsMembersReminders() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        let database = try AppDatabase.inMemory()
        try await database.setAuthorizationStatus(.authorized)
        let source = try await database.addSource(
            Source(name: "Friends", kind: .carddav, location: server.bookURL("friends"), username: server.user, passwordCommand: "unused"),
            now: Self.now
        )
        let logs = LogRecorder()
        let syncer = SourceSync(
            database: database,
            readers: SourceReaders { _ in CardDAVReader(password: { _ in "secret" }) },
            now: { Self.now },
            systemTimeZone: { TimeZone(identifier: "Europe/Berlin")! },
            logger: logs.logger
        )
        func sync() async throws {
            let current = try #require(try await database.sources().first { $0.id == source.id })
            let report = await syncer.sync(current)
            #expect(report.error == nil, "\(String(describing: report.error))")
        }
        func pending() async throws -> [String] { try await database.pendingRequests().map(\.id).sorted() }

        // The group card comes first, its members in a later sync.
        try await server.put("friends", file: "work.vcf", card: Self.groupCard(members: ["ann"]))
        try await sync()
        #expect(try await database.groups().isEmpty, "a member not in the book is ignored")
        try await server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-03-20")
        try await server.put("friends", uid: "bob", name: "Bob Example", birthday: "1985-03-25")
        try await sync()
        #expect(try await database.groups().map { "\($0.name) \($0.people)" } == ["Work 1"])
        let scheduler = NotificationScheduler(
            database: database,
            now: { Self.now },
            systemTimeZone: { TimeZone(identifier: "Europe/Berlin")! },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        _ = try await database.setSharedRule(.group("Work"), exclusion: .set(.exclude), days: .keep, now: Self.now, rescheduling: scheduler)
        #expect(try await pending() == ["bob-birthday-daybefore", "bob-birthday-dayof"])

        // On the phone, Ann leaves Work and Bob joins it.
        try await server.put("friends", file: "work.vcf", card: Self.groupCard(members: ["bob"]))
        try await sync()
        #expect(try await pending() == ["ann-birthday-daybefore", "ann-birthday-dayof"])
        #expect(try await database.person(id: "bob")?.groups == ["Work"])
        #expect(!logs.all.joined().contains("Work"))
    }
}
