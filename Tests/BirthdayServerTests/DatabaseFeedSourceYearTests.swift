import BirthdayCore
import BirthdayStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BirthdayServer

/// A feed with dates in other calendars expanded moves on each January 1
/// without any change to the data: the source's revision carries the year,
/// so the server exports it again (with `Last-Modified` at the new year).
@Suite struct DatabaseFeedSourceYearTests {
    @Test func theRevisionAndTheFeedMoveOnAtTheNewYearInTheUsersZone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.path + "/feed.sqlite")
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:mei\r\nFN:Mei Chen\r\nX-ALTBDAY;CALSCALE=chinese:007800021101\r\nEND:VCARD\r\n"
        let file = try directory.write("apple.vcf", card)
        let imported = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
        _ = try await ContactImporter(database: database, now: imported, referenceYear: 2026).importPaths([file])
        try await database.setSetting(.timeZone, to: "Asia/Shanghai", now: imported)
        // As `serve` does: the token exists before the first request, so reading it writes nothing.
        _ = try await database.feedToken()

        // 2026-12-31T15:30Z is 23:30 in Shanghai; 16:30Z is already 2027 there.
        let clock = Mutex(Date(timeIntervalSince1970: 1_798_731_000))
        let source = DatabaseFeedSource(database: database, now: { clock.withLock { $0 } }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
        let before = try await source.revision()
        let feedBefore = try await source.feed()
        #expect(feedBefore.revision == before)
        #expect(source.cachedValidators()?.revision == before)
        #expect(feedBefore.body.contains("UID:mei-chinese-birthday-4663@birthdays"))

        clock.withLock { $0 = $0.addingTimeInterval(3_600) }
        let after = try await source.revision()
        #expect(after != before)
        #expect(source.cachedValidators()?.revision == after)
        let feedAfter = try await source.feed()
        #expect(feedAfter.revision == after)
        // The 2026 event is gone, 2036's has come; Last-Modified is the new year (UTC), after the data's last change.
        #expect(!feedAfter.body.contains("UID:mei-chinese-birthday-4663@birthdays"))
        #expect(feedAfter.body.contains("UID:mei-chinese-birthday-4673@birthdays"))
        #expect(feedAfter.lastModified == Date(timeIntervalSince1970: 1_798_761_600))
        #expect(feedBefore.lastModified == imported)

        // Without dates in other calendars the year does not matter to the body.
        let plain = DatabaseFeedSource.feedRevision(data: 7, year: 2026)
        #expect(plain != DatabaseFeedSource.feedRevision(data: 7, year: 2027))
        #expect(plain != DatabaseFeedSource.feedRevision(data: 8, year: 2026))
    }
}

/// A feed with ages (`calendar-ages`, the default) moves on January 1 in the
/// user's zone and not before: this year's event leaves, the third year's
/// comes, and `Last-Modified` is the new year.
@Suite struct DatabaseFeedSourceAgesTests {
    @Test func aFeedWithAgesMovesOnJanuaryFirstAndNotBefore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.path + "/feed.sqlite")
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nEND:VCARD\r\n"
        let file = try directory.write("ada.vcf", card)
        let imported = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
        _ = try await ContactImporter(database: database, now: imported, referenceYear: 2026).importPaths([file])
        try await database.setSetting(.timeZone, to: "Asia/Shanghai", now: imported)
        _ = try await database.feedToken()

        // 2026-12-01T00:00Z, then 2026-12-31T15:30Z (23:30 in Shanghai), then an hour later (2027 there).
        let clock = Mutex(Date(timeIntervalSince1970: 1_796_083_200))
        let source = DatabaseFeedSource(database: database, now: { clock.withLock { $0 } }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
        let december = try await source.feed()
        #expect(december.body.contains("UID:ada-birthday-y2026@birthdays"))
        #expect(december.body.contains("SUMMARY:🎂 Ada Lovelace (211)"))
        #expect(!december.body.contains("UID:ada-birthday-y2029@birthdays"))
        #expect(december.lastModified == imported)

        clock.withLock { $0 = Date(timeIntervalSince1970: 1_798_731_000) }
        let lastEvening = try await source.feed()
        #expect(try await source.revision() == december.revision, "not before January 1")
        #expect(lastEvening.body == december.body)
        #expect(lastEvening.lastModified == december.lastModified)

        clock.withLock { $0 = $0.addingTimeInterval(3_600) }
        let newYear = try await source.revision()
        #expect(newYear != december.revision)
        let january = try await source.feed()
        #expect(january.revision == newYear)
        #expect(!january.body.contains("UID:ada-birthday-y2026@birthdays"))
        #expect(january.body.contains("UID:ada-birthday-y2029@birthdays"))
        #expect(january.body.contains("SUMMARY:🎂 Ada Lovelace (214)"))
        #expect(january.body.contains("DTSTART;VALUE=DATE:20301210"))
        #expect(january.lastModified == Date(timeIntervalSince1970: 1_798_761_600))

        // Off: the same data's feed does not move at the new year.
        try await database.setSetting(.calendarAges, to: "off", now: imported)
        let off = try await source.feed()
        #expect(!off.body.contains("-y20"))
        #expect(off.lastModified == imported)
    }
}

/// The JSON twin moves at midnight in the user's zone, without any change to
/// the data: `days_until` counts from today.
@Suite struct DatabaseFeedSourceListTests {
    @Test func theListsRevisionAndBodyMoveAtLocalMidnight() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try AppDatabase.openFile(at: directory.path + "/feed.sqlite")
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nEND:VCARD\r\n"
        let file = try directory.write("ada.vcf", card)
        let imported = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
        _ = try await ContactImporter(database: database, now: imported, referenceYear: 2026).importPaths([file])
        try await database.setSetting(.timeZone, to: "Asia/Tokyo", now: imported)
        _ = try await database.feedToken()

        // 2026-12-01T14:30Z is 23:30 in Tokyo; an hour later it is 2 December there.
        let clock = Mutex(Date(timeIntervalSince1970: 1_796_135_400))
        let source = DatabaseFeedSource(database: database, now: { clock.withLock { $0 } }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
        let before = try await source.listRevision()
        let listBefore = try await source.list()
        #expect(listBefore.revision == before)
        #expect(listBefore.body.contains("\"days_until\": 9"))
        #expect(listBefore.lastModified == Date(timeIntervalSince1970: 1_796_137_200 - 86_400), "the start of 1 December in Tokyo")

        clock.withLock { $0 = $0.addingTimeInterval(3_600) }
        let after = try await source.listRevision()
        #expect(after != before)
        let listAfter = try await source.list()
        #expect(listAfter.revision == after)
        #expect(listAfter.body.contains("\"days_until\": 8"))
        #expect(listAfter.lastModified == Date(timeIntervalSince1970: 1_796_137_200), "the start of 2 December in Tokyo")
        // The calendar feed itself does not move with the day.
        #expect(try await source.revision() == DatabaseFeedSource.feedRevision(data: try await database.revision().value, year: 2026))
    }
}
