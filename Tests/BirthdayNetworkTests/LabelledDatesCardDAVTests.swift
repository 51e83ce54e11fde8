import BirthdayCore
import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork
@testable import BirthdayStore

/// Labelled dates (issue 34) in a CardDAV address book on a real Radicale
/// server: they follow the card at each sync, like the birthday, and the
/// reminders follow them.
@Suite(.serialized) struct LabelledDatesCardDAVTests {
    static let now = Date(timeIntervalSince1970: 1_795_843_200)  // 2026-11-28T05:20:00Z

    static func card(_ started: String?) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Apple Inc.//iPhone OS 18.0//EN\r\nUID:johnny\r\nFN:Johnny Appleseed\r\n"
            + "item1.X-ABDATE:2015-12-01\r\nitem1.X-ABLabel:Child's birthday\r\n"
            + (started.map { "item2.X-ABDATE:\($0)\r\nitem2.X-ABLabel:Started work\r\n" } ?? "") + "END:VCARD\r\n"
    }

    @Test func aLabelledDateFollowsTheCard() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let database = try AppDatabase.openFile(at: folder.file("birthdays.sqlite"))
        let logs = LogRecorder()
        let syncer = SourceSync(
            database: database,
            readers: SourceReaders { _ in CardDAVReader(password: { _ in "secret" }) },
            now: { Self.now },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: logs.logger
        )
        func sync() async throws -> SourceSyncReport {
            let report = await syncer.sync(try #require(try await database.sources().first))
            #expect(report.error == nil, "\(String(describing: report.error))")
            return report
        }
        func labelled() async throws -> [String] {
            try await database.person(id: "johnny")?.labelledDates.map(\.description) ?? []
        }
        _ = try await database.addSource(
            Source(name: "Friends", kind: .carddav, location: server.bookURL("friends"), username: server.user, passwordCommand: "unused"),
            now: Self.now
        )
        try await server.put("friends", file: "johnny.vcf", card: Self.card("2019-03-03"))
        _ = try await sync()
        #expect(try await labelled() == ["Child's birthday 2015-12-01", "Started work 2019-03-03"])

        // Edited on the phone: the date moves, then the label goes.
        try await server.put("friends", file: "johnny.vcf", card: Self.card("2020-01-06"))
        #expect(try await sync().counts == [0, 1, 0, 0])
        #expect(try await labelled() == ["Child's birthday 2015-12-01", "Started work 2020-01-06"])
        let upcoming = try await database.upcoming(UpcomingEvents(today: LocalDate(year: 2026, month: 11, day: 28)!), withinDays: 60)
        #expect(upcoming.map { $0.labelled?.label } == ["Child's birthday", "Started work"])
        #expect(upcoming.map(\.age) == [11, 7])

        try await server.put("friends", file: "johnny.vcf", card: Self.card(nil))
        #expect(try await sync().counts == [0, 1, 0, 0])
        #expect(try await labelled() == ["Child's birthday 2015-12-01"])
        // Nothing of the card reaches the log.
        let logged = logs.all.joined(separator: "\n")
        #expect(!logged.contains("Johnny") && !logged.contains("Started work") && !logged.contains("Child"))
    }
}
