import BirthdayCore
import BirthdayStore
import Foundation
import Testing

/// The store of `birthdays publish` (migration `v11-publish`): targets with
/// unique names, what each published, recorded one resource at a time, and
/// forgotten with its target.
@Suite struct PublishStoreTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func target(_ name: String) -> PublishTarget {
        PublishTarget(
            name: name,
            url: "https://dav.example.org/",
            calendarURL: "https://dav.example.org/ada/birthdays/",
            username: "ada",
            passwordCommand: "pass show dav",
            createdCalendar: true
        )
    }

    @Test func targetsHaveUniqueNamesAndKeepWhatTheyPublishedUntilRemoved() async throws {
        let database = try AppDatabase.inMemory()
        let added = try await database.addPublishTarget(Self.target("home"), now: Self.now)
        #expect(added.id > 0 && added.createdCalendar && added.passwordCommand == "pass show dav")
        await #expect(throws: PublishError.duplicateTarget(name: "home")) {
            try await database.addPublishTarget(Self.target("home"), now: Self.now)
        }
        let other = try await database.addPublishTarget(Self.target("work"), now: Self.now)

        let event = PublishedEvent(uid: "ada-birthday@birthdays", href: "/ada/birthdays/ada-birthday@birthdays.ics", etag: "\"1\"", hash: "h1")
        try await database.recordPublished(targetId: added.id, event)
        var changed = event
        changed.etag = "\"2\""
        changed.hash = "h2"
        try await database.recordPublished(targetId: added.id, changed)
        try await database.recordPublished(targetId: added.id, PublishedEvent(uid: "bob-birthday@birthdays", href: "/b.ics", etag: nil, hash: "h"))
        try await database.recordPublished(targetId: other.id, event)
        #expect(
            try await database.publishedEvents(targetId: added.id) == [
                "ada-birthday@birthdays": changed,
                "bob-birthday@birthdays": PublishedEvent(uid: "bob-birthday@birthdays", href: "/b.ics", etag: nil, hash: "h"),
            ]
        )

        try await database.forgetPublished(targetId: added.id, uid: "bob-birthday@birthdays")
        try await database.recordPublishOutcome(targetId: added.id, now: Self.now, error: nil)
        var stored = try #require(try await database.publishTarget(named: "home"))
        #expect(stored.events == 1 && stored.lastPublish == Self.now && stored.lastError == nil)
        try await database.recordPublishOutcome(targetId: added.id, now: Self.now.addingTimeInterval(60), error: "the server is down")
        stored = try #require(try await database.publishTarget(id: added.id))
        #expect(stored.lastPublish == Self.now && stored.lastAttempt == Self.now.addingTimeInterval(60) && stored.lastError == "the server is down")

        try await database.removePublishTarget(named: "home")
        #expect(try await database.publishTargets().map(\.name) == ["work"])
        #expect(try await database.publishedEvents(targetId: added.id).isEmpty)
        #expect(try await database.publishedEvents(targetId: other.id).count == 1)
        await #expect(throws: PublishError.unknownTarget(name: "home")) { try await database.removePublishTarget(named: "home") }
    }

    /// Migration `v12-publish-state`: the events' hash of the last success, failures in a row, and
    /// the daemon's next attempt, which a success and the daemon's stop clear.
    @Test func aFailureCountsAndPlansARetryThatASuccessClears() async throws {
        let database = try AppDatabase.inMemory()
        let target = try await database.addPublishTarget(Self.target("home"), now: Self.now)
        #expect(target.eventsHash == nil && target.failures == 0 && target.nextAttempt == nil)
        for minute in 1...2 {
            try await database.recordPublishOutcome(targetId: target.id, now: Self.now.addingTimeInterval(Double(60 * minute)), error: "down")
        }
        let retry = Self.now.addingTimeInterval(300)
        try await database.setNextPublish([target.id: retry])
        var stored = try #require(try await database.publishTarget(id: target.id))
        #expect(stored.failures == 2 && stored.nextAttempt == retry && stored.eventsHash == nil)
        try await database.clearNextPublish()
        #expect(try await database.publishTarget(id: target.id)?.nextAttempt == nil)

        try await database.setNextPublish([target.id: retry])
        try await database.recordPublishOutcome(targetId: target.id, now: retry, error: nil, eventsHash: "0123456789abcdef")
        stored = try #require(try await database.publishTarget(id: target.id))
        #expect(stored.failures == 0 && stored.nextAttempt == nil && stored.lastError == nil)
        #expect(stored.eventsHash == "0123456789abcdef" && stored.lastPublish == retry)
        // A later failure keeps the hash of the last success.
        try await database.recordPublishOutcome(targetId: target.id, now: retry.addingTimeInterval(60), error: "down")
        #expect(try await database.publishTarget(id: target.id)?.eventsHash == "0123456789abcdef")
    }

    /// Migration `v17-publish-left-alone`: how many events the last publish that got through them
    /// left alone; a publish that never reached the events (`nil`) keeps the count.
    @Test func theEventsLeftAloneAreKeptUntilAPublishCountsThemAgain() async throws {
        let database = try AppDatabase.inMemory()
        let target = try await database.addPublishTarget(Self.target("home"), now: Self.now)
        #expect(target.leftAlone == 0)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: nil, eventsHash: "h", leftAlone: 3)
        #expect(try await database.publishTarget(id: target.id)?.leftAlone == 3)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: "down")
        #expect(try await database.publishTarget(id: target.id)?.leftAlone == 3)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: "one skipped", leftAlone: 1)
        #expect(try await database.publishTarget(id: target.id)?.leftAlone == 1)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: nil, eventsHash: "h", leftAlone: 0)
        #expect(try await database.publishTarget(named: "home")?.leftAlone == 0)
    }

    /// Migration `v18-publish-sync-token`: the calendar's sync-token a publish ends with, kept for
    /// the next one (even after a later failure that says nothing of the listing), cleared when it
    /// ends without one, and a server that refuses `sync-collection` remembered without a token.
    @Test func theSyncTokenAndARefusalOfSyncCollectionAreKept() async throws {
        let database = try AppDatabase.inMemory()
        let target = try await database.addPublishTarget(Self.target("home"), now: Self.now)
        #expect(target.syncToken == nil && !target.syncRefused)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: nil, syncToken: "t1", syncCollection: true)
        #expect(try await database.publishTarget(id: target.id)?.syncToken == "t1")
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: "down")
        #expect(try await database.publishTarget(id: target.id)?.syncToken == "t1")
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: "stopped mid-way", syncToken: nil, syncCollection: true)
        #expect(try await database.publishTarget(id: target.id)?.syncToken == nil)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: nil, syncToken: "t2", syncCollection: true)
        try await database.recordPublishOutcome(targetId: target.id, now: Self.now, error: nil, syncToken: nil, syncCollection: false)
        let refused = try #require(try await database.publishTarget(named: "home"))
        #expect(refused.syncRefused && refused.syncToken == nil)
    }
}
