import BirthdayCore
import BirthdayStore
import Foundation
import Hummingbird
import Testing

@testable import BirthdayServer

@Suite struct FeedCacheTests {
    /// A source whose `feed()` waits until the test opens the gate.
    actor GatedSource: CalendarSource {
        private(set) var feedCalls = 0
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func revision() -> Int64 { 7 }
        func token() -> String { "t" }

        func feed() async -> FeedSnapshot {
            feedCalls += 1
            if !open { await withCheckedContinuation { waiting.append($0) } }
            return FeedSnapshot(body: "BODY", lastModified: Date(timeIntervalSince1970: 0), revision: 7)
        }

        func openGate() {
            open = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    /// Requests that arrive while the body is being built wait for that
    /// build instead of starting their own: one `feed()` call in all.
    @Test func concurrentRequestsShareOneRebuild() async throws {
        let source = GatedSource()
        let cache = FeedCache.feed(source)
        let tags = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { try await cache.entry().etag }
            }
            // Wait until the first build is under way, then let it finish.
            while await source.feedCalls == 0 { await Task.yield() }
            await source.openGate()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tags.count == 8 && Set(tags).count == 1)
        #expect(await source.feedCalls == 1)
    }

    @Test func entityTagIsQuotedAndDependsOnEveryByte() {
        let a = FeedCache.entityTag(for: ByteBuffer(string: "BEGIN:VCALENDAR"))
        let b = FeedCache.entityTag(for: ByteBuffer(string: "BEGIN:VCALENDAr"))
        #expect(a.hasPrefix("\"") && a.hasSuffix("\""))
        #expect(a != b)
        #expect(a == FeedCache.entityTag(for: ByteBuffer(string: "BEGIN:VCALENDAR")))
    }
}

@Suite struct HTTPDateTests {
    @Test(arguments: [
        (0.0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_239_000.9, "Sat, 21 Nov 2026 05:30:00 GMT"),
    ])
    func formatsIMFFixdate(seconds: Double, text: String) {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: seconds)) == text)
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesAllThreeFormats(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test(arguments: [
        "", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
    ])
    func rejectsInvalidDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

@Suite struct EntityTagsTests {
    @Test(arguments: [
        ("\"a\"", true), ("W/\"a\"", true), ("\"b\", \"a\"", true), ("*", true), ("\"b\"", false), ("a", false), ("\"a", false), ("", false),
        ("\"b\",\"a\"", true), (" \t\"a\"", true), ("\"ab\"", false), ("\"\"", false), ("W/", false), ("\"b\" \"a\"", true), ("\"b\", junk", false),
    ])
    func ifNoneMatchUsesWeakComparison(list: String, matches: Bool) {
        #expect(EntityTags.list(list, matches: "\"a\"") == matches)
    }
}
