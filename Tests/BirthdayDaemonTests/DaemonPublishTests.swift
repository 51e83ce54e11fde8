import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import TestSupport
import Testing

/// The daemon publishing to a CalDAV calendar (Radicale on loopback, with a
/// password) through the `birthdays-network` helper next to the test bundle:
/// a change another command writes to the store reaches the server within
/// seconds, the helper's own writes never publish again, and a server that
/// is down is retried with back-off until the calendar converges.
@Suite(.timeLimit(.minutes(10)))
struct DaemonPublishTests {
    /// The calendar `birthdays` publishes into, made the way `publish add` makes it.
    static func makeCalendar(_ server: RadicaleServer) async throws -> String {
        let calendar = server.baseURL + "/alice/birthdays/"
        let made = try await server.curl(
            "MKCALENDAR",
            calendar,
            body:
                #"<?xml version="1.0"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>Birthdays</d:displayname></d:prop></d:set></c:mkcalendar>"#
        )
        try #require(made.status == 201, "\(made)")
        return calendar
    }

    /// The hrefs of the calendar's members.
    static func members(_ server: RadicaleServer, _ calendar: String) async throws -> [String] {
        let (status, body) = try await server.curl(
            "PROPFIND",
            calendar,
            headers: ["Depth: 1", "Content-Type: application/xml"],
            body: #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#
        )
        guard status == 207 else { return [] }
        let path = URL(string: calendar)?.path ?? calendar
        return body.components(separatedBy: "href>").compactMap { part in
            guard let end = part.firstIndex(of: "<") else { return nil }
            let href = String(part[..<end])
            return href.hasPrefix("/") && href.hasSuffix(".ics") && href.hasPrefix(path) ? href : nil
        }
    }

    /// A database file with Ada and Bob, and a target for `calendar` whose password command prints the server's password.
    static func store(_ directory: TemporaryDirectory, _ server: RadicaleServer, _ calendar: String) async throws -> AppDatabase {
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"))
        try database.insertPeople(
            [try Fixture.person("ada", "Ada Lovelace", birthday: "1990-03-20"), try Fixture.person("bob", "Bob Example", birthday: "1985-07-01")],
            now: DaemonSourcesTests.base
        )
        // One event per person, as the feed was before ages (the ages' own publish test counts those).
        _ = try await database.setSetting(.calendarAges, to: "off", now: DaemonSourcesTests.base)
        _ = try await database.addPublishTarget(
            PublishTarget(
                name: "radicale",
                url: server.baseURL,
                calendarURL: calendar,
                username: "alice",
                passwordCommand: "echo \(server.password)"
            ),
            now: DaemonSourcesTests.base
        )
        return database
    }

    @Test func aChangeByAnotherCommandIsPublishedWithinSecondsAndTheHelpersOwnWritesPublishNothing() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer(password: "Pa55-\(UUID().uuidString.prefix(8))")
        defer { server.cleanUp() }
        let calendar = try await Self.makeCalendar(server)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try await Self.store(directory, server, calendar)
        let recorder = LogRecorder()
        let clock = ManualClock(origin: DaemonSourcesTests.base)
        let daemon = try await DaemonSourcesTests().daemon(database, recorder: recorder, clock: clock)
        let adaHref = calendar + PublishPlan.resourceName(uid: "ada-birthday@birthdays")

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                // Published at start.
                try await eventually("the first publish") {
                    try await database.publishTarget(id: 1)?.lastPublish != nil
                }
                #expect(try await Self.members(server, calendar).count == 2)
                let before = try await server.curl("GET", adaHref).body
                let alarmsBefore = before.components(separatedBy: "BEGIN:VALARM").count - 1
                let requestsBefore = server.requests(userAgent: "birthdays")

                // Another command (its own connection, as `birthdays remind ada --days 14,7,0` has) gives Ada three alarms.
                let other = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"), create: false)
                let days: ReminderDays = try #require(ReminderDays("14,7,0"))
                _ = try await other.setReminderDays(days, personID: "ada", now: DaemonSourcesTests.base)
                try await eventually("Ada's new alarms on the server", seconds: 60) {
                    try await server.curl("GET", adaHref).body.components(separatedBy: "BEGIN:VALARM").count - 1 == 3
                }
                #expect(alarmsBefore != 3)
                try await eventually("the publish recorded") { await daemon.publishes == 2 }
                // One listing (what changed since the last publish's sync-token), one PUT, and the
                // sync-collection that takes the token past it; Bob untouched.
                try await eventually("the requests logged") { server.requests(userAgent: "birthdays") >= requestsBefore + 3 }
                #expect(server.requests(userAgent: "birthdays") == requestsBefore + 3)

                // A write that changes no event: the helper compares the events' hash and asks the server nothing.
                _ = try await other.setSetting(.syncInterval, to: "10m", now: DaemonSourcesTests.base)
                try await eventually("the check after the setting") { await daemon.publishes == 3 }
                #expect(server.requests(userAgent: "birthdays") == requestsBefore + 3)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        // The helper's writes (the resources it recorded, the outcome) woke the database watch
        // each time, and published nothing: three runs in all.
        #expect(await daemon.publishes == 3)
        #expect(try await Self.members(server, calendar).count == 2)
        #expect(!recorder.all.contains { $0.contains("Ada") || $0.contains("Lovelace") || $0.contains(server.password) })
    }

    @Test func aServerDownAtFirstIsRetriedWithBackOffAndTheCalendarConverges() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let calendar = try await Self.makeCalendar(server)
        server.stop()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try await Self.store(directory, server, calendar)
        let recorder = LogRecorder()
        let clock = ManualClock(origin: DaemonSourcesTests.base)
        let daemon = try await DaemonSourcesTests().daemon(database, recorder: recorder, clock: clock)

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                try await eventually("the failure and its retry") {
                    let target = try await database.publishTarget(id: 1)
                    return target?.lastError != nil && target?.nextAttempt != nil
                }
                let failed = try #require(try await database.publishTarget(id: 1))
                #expect(failed.failures == 1)
                #expect(failed.lastPublish == nil)
                let attempt = try #require(failed.lastAttempt)
                #expect(try #require(failed.nextAttempt).timeIntervalSince(attempt) == 30)

                // Still down at the first retry: the next one waits twice as long.
                clock.advance(by: .seconds(30))
                try await eventually("the second failure") { try await database.publishTarget(id: 1)?.failures == 2 }
                try await eventually("the second retry planned") {
                    let target = try await database.publishTarget(id: 1)
                    guard let next = target?.nextAttempt, let last = target?.lastAttempt else { return false }
                    return next.timeIntervalSince(last) == 60
                }
                #expect(await daemon.publishes == 2)

                // Back up: the retry publishes everything and clears the failure.
                try await server.start()
                clock.advance(by: .seconds(60))
                try await eventually("the calendar to converge", seconds: 60) {
                    try await database.publishTarget(id: 1)?.lastError == nil
                }
                let healed = try #require(try await database.publishTarget(id: 1))
                #expect(healed.failures == 0)
                #expect(healed.nextAttempt == nil)
                #expect(healed.events == 2)
                #expect(try await Self.members(server, calendar).count == 2)
                #expect(await daemon.publishes == 3)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(try await database.publishTarget(id: 1)?.nextAttempt == nil)
    }
}
