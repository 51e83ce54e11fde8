import BirthdayCore
import BirthdayStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BirthdayServer

/// One card imported on 2026-09-21 into a real database file, the user's
/// zone set, the feed token made before the first request (as `serve`
/// does, so reading it writes nothing), and a feed source on a clock the
/// test moves.
private final class FeedBed: Sendable {
    static let imported = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
    let directory: TemporaryDirectory
    let database: AppDatabase
    let clock: MovingNow
    let source: DatabaseFeedSource

    init(card: String, zone: String, at start: Date) async throws {
        directory = try TemporaryDirectory()
        database = try AppDatabase.openFile(at: directory.path + "/feed.sqlite")
        let file = try directory.write("card.vcf", card)
        _ = try await ContactImporter(database: database, now: Self.imported, referenceYear: 2026).importPaths([file])
        try await database.setSetting(.timeZone, to: zone, now: Self.imported)
        _ = try await database.feedToken()
        let clock = MovingNow(start)
        self.clock = clock
        source = DatabaseFeedSource(database: database, now: { clock.date }, systemTimeZone: { TimeZone(secondsFromGMT: 0)! })
    }

    func move(to instant: Date) { clock.set(instant) }
    func move(by seconds: TimeInterval) { clock.set(clock.date.addingTimeInterval(seconds)) }
}

/// The instant the feed source reads as now, moved by the test.
private final class MovingNow: Sendable {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    var date: Date { instant.withLock { $0 } }
    func set(_ date: Date) { instant.withLock { $0 = date } }
}

/// A feed with dates in other calendars expanded moves on each January 1
/// without any change to the data: the source's revision carries the year,
/// so the server exports it again (with `Last-Modified` at the new year).
@Suite struct DatabaseFeedSourceYearTests {
    @Test func theRevisionAndTheFeedMoveOnAtTheNewYearInTheUsersZone() async throws {
        // 2026-12-31T15:30Z is 23:30 in Shanghai; 16:30Z is already 2027 there.
        let bed = try await FeedBed(
            card: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:mei\r\nFN:Mei Chen\r\nX-ALTBDAY;CALSCALE=chinese:007800021101\r\nEND:VCARD\r\n",
            zone: "Asia/Shanghai",
            at: Date(timeIntervalSince1970: 1_798_731_000)
        )
        defer { bed.directory.cleanup() }
        let source = bed.source
        let imported = FeedBed.imported
        let before = try await source.revision()
        let feedBefore = try await source.feed()
        #expect(feedBefore.revision == before)
        #expect(source.cachedValidators()?.revision == before)
        #expect(feedBefore.body.contains("UID:mei-chinese-birthday-4663@birthdays"))

        bed.move(by: 3_600)
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
    static let ada = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1815-12-10\r\nEND:VCARD\r\n"

    @Test func aFeedWithAgesMovesOnJanuaryFirstAndNotBefore() async throws {
        // 2026-12-01T00:00Z, then 2026-12-31T15:30Z (23:30 in Shanghai), then an hour later (2027 there).
        let bed = try await FeedBed(card: Self.ada, zone: "Asia/Shanghai", at: Date(timeIntervalSince1970: 1_796_083_200))
        defer { bed.directory.cleanup() }
        let (database, source, imported) = (bed.database, bed.source, FeedBed.imported)
        let december = try await source.feed()
        #expect(december.body.contains("UID:ada-birthday-y2026@birthdays"))
        #expect(december.body.contains("SUMMARY:🎂 Ada Lovelace (211)"))
        #expect(!december.body.contains("UID:ada-birthday-y2029@birthdays"))
        #expect(december.lastModified == imported)

        bed.move(to: Date(timeIntervalSince1970: 1_798_731_000))
        let lastEvening = try await source.feed()
        #expect(try await source.revision() == december.revision, "not before January 1")
        #expect(lastEvening.body == december.body)
        #expect(lastEvening.lastModified == december.lastModified)

        bed.move(by: 3_600)
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
        // 2026-12-01T14:30Z is 23:30 in Tokyo; an hour later it is 2 December there.
        let bed = try await FeedBed(card: DatabaseFeedSourceAgesTests.ada, zone: "Asia/Tokyo", at: Date(timeIntervalSince1970: 1_796_135_400))
        defer { bed.directory.cleanup() }
        let (database, source) = (bed.database, bed.source)
        let before = try await source.listRevision()
        // The fast path's revision (the day kept while it lasts) is the route's.
        #expect(source.cachedListValidators()?.revision == before)
        let listBefore = try await source.list()
        #expect(listBefore.revision == before)
        #expect(listBefore.body.contains("\"days_until\": 9"))
        #expect(listBefore.lastModified == Date(timeIntervalSince1970: 1_796_137_200 - 86_400), "the start of 1 December in Tokyo")

        bed.move(by: 3_600)
        #expect(source.cachedListValidators()?.revision != before, "a new day in Tokyo is a new revision at once")
        let after = try await source.listRevision()
        #expect(after != before)
        #expect(source.cachedListValidators()?.revision == after)
        let listAfter = try await source.list()
        #expect(listAfter.revision == after)
        #expect(listAfter.body.contains("\"days_until\": 8"))
        #expect(listAfter.lastModified == Date(timeIntervalSince1970: 1_796_137_200), "the start of 2 December in Tokyo")
        // The calendar feed itself does not move with the day.
        #expect(try await source.revision() == DatabaseFeedSource.feedRevision(data: try await database.revision().value, year: 2026))
    }
}
