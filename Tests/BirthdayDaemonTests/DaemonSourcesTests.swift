import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import TestSupport
import Testing

/// The daemon following its sources: a vdir changed on disk is synced
/// within seconds (inotify), a CardDAV book on its `sync-interval` timer.
@Suite(.timeLimit(.minutes(10)))
struct DaemonSourcesTests {
    /// 2026-03-10T09:00:00Z, where the daemons of these tests start.
    static let base = Date(timeIntervalSince1970: 1_773_133_200)

    /// The daemon on `clock` (its timers and its `now`), or on real time from ``base`` when none is given.
    func daemon(_ database: AppDatabase, recorder: LogRecorder, clock manual: ManualClock? = nil) async throws -> Daemon {
        let zone = try #require(TimeZone(identifier: "UTC"))
        let base = Self.base
        let origin = ContinuousClock.now
        let now: @Sendable () -> Date =
            if let manual { { manual.date } } else { { base.addingTimeInterval((ContinuousClock.now - origin).timeInterval) } }
        return try await buildDaemon(
            DaemonConfiguration(
                database: database,
                environment: ["PATH": "/usr/bin:/bin"],
                now: now,
                systemTimeZone: { zone },
                clock: manual ?? ContinuousClock(),
                watchesWake: false,
                shutdownSignals: [],
                logLine: { _ in },
                logger: recorder.logger,
                feedLogger: recorder.logger
            )
        )
    }

    static func card(_ uid: String, _ name: String, _ birthday: String) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
    }

    @Test func aVdirChangedOnDiskIsSyncedAndRescheduled() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let vdir = directory.file("book")
        try FileManager.default.createDirectory(atPath: vdir, withIntermediateDirectories: true)
        try Data(Self.card("ann", "Ann", "1990-03-20").utf8).write(to: URL(fileURLWithPath: vdir + "/ann.vcf"))
        let database = try AppDatabase.inMemory()
        try await database.setAuthorizationStatus(.authorized)
        _ = try await database.addSource(Source(name: "book", kind: .vdir, location: vdir), now: .distantPast)
        let recorder = LogRecorder()
        let daemon = try await daemon(database, recorder: recorder)

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                // Synced at start.
                try await eventually("the first sync") { try await database.peopleCount() == 1 }
                // Bob arrives as vdirsyncer writes him: a temporary file linked under the card's name.
                try Data(Self.card("bob", "Bob", "1985-03-11").utf8).write(to: URL(fileURLWithPath: vdir + "/tmpvdc0pj9m"))
                #expect(link(vdir + "/tmpvdc0pj9m", vdir + "/bob.vcf") == 0)
                try FileManager.default.removeItem(atPath: vdir + "/tmpvdc0pj9m")
                try await eventually("Bob's reminders") {
                    try await database.pendingRequests().contains { $0.id == "bob-birthday-dayof" }
                }
                // Ann is deleted on disk: she leaves with her reminders (Bob stays, so no mass removal).
                try FileManager.default.removeItem(atPath: vdir + "/ann.vcf")
                try await eventually("Ann to leave") {
                    try await database.people().map(\.id) == ["bob"]
                }
                #expect(try await !database.pendingRequests().contains { $0.personID == "ann" })
                // A healthy local source waits for the next change: no timer.
                #expect(try await database.sources().first?.status.nextSync == nil)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(!recorder.all.contains { $0.contains("Ann") || $0.contains("Bob") })
    }

    @Test func aCardDAVBookIsSyncedEverySyncInterval() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        try await server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-12")
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // A file: the network helper (birthdays-network, next to the test bundle) syncs into it.
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"))
        _ = try await database.setSetting(.syncInterval, to: "10s", now: .distantPast)
        _ = try await database.addSource(
            Source(name: "Friends", kind: .carddav, location: server.bookURL("friends"), username: "alice", passwordCommand: "echo secret"),
            now: .distantPast
        )
        let recorder = LogRecorder()
        // The timers run on a clock the test moves: no real 10 s wait.
        let clock = ManualClock(origin: Self.base)
        let daemon = try await daemon(database, recorder: recorder, clock: clock)

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                try await eventually("the first sync and its next one") {
                    let people = try await database.peopleCount()
                    let next = try await database.sources().first?.status.nextSync
                    return people == 1 && next != nil
                }
                let first = try #require(try await database.sources().first?.status)
                let next = try #require(first.nextSync)
                let last = try #require(first.lastSync)
                #expect(next.timeIntervalSince(last) == 10)
                #expect(server.requests(userAgent: "birthdays") == 1)
                // Bob is added on the server; the timer brings him without any other wake, once its 10 s have passed.
                try await server.put("friends", uid: "bob", name: "Bob", birthday: "1985-07-01")
                clock.advance(by: .seconds(10))
                try await eventually("the timer's sync") { try await database.peopleCount() == 2 }
                #expect(server.requests(userAgent: "birthdays") == 2)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        // Stopped: nothing is due any more.
        #expect(try await database.sources().first?.status.nextSync == nil)
        #expect(await daemon.sourceSyncs == 2)
    }
    @Test func aFailingCardDAVBookIsRetriedShownAndRecovers() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        try await server.put("friends", uid: "ann", name: "Ann", birthday: "1990-04-12")
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let secret = directory.file("password")
        try Data("wrong\n".utf8).write(to: URL(fileURLWithPath: secret))
        let database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"))
        // The retry delay is capped by the interval: 10 s here.
        _ = try await database.setSetting(.syncInterval, to: "10s", now: .distantPast)
        _ = try await database.addSource(
            Source(name: "Friends", kind: .carddav, location: server.bookURL("friends"), username: "alice", passwordCommand: "cat '\(secret)'"),
            now: .distantPast
        )
        let recorder = LogRecorder()
        // The timers run on a clock the test moves: no real 10 s wait.
        let clock = ManualClock(origin: Self.base)
        let daemon = try await daemon(database, recorder: recorder, clock: clock)

        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                // The helper failed and said so in the source's status; the daemon plans a retry.
                try await eventually("the failure and its retry") {
                    let status = try await database.sources().first?.status
                    return status?.error != nil && status?.nextSync != nil
                }
                let failed = try #require(try await database.sources().first?.status)
                #expect(failed.error?.contains("HTTP 401") == true, "\(String(describing: failed.error))")
                #expect(failed.failures == 1)
                #expect(failed.lastSync == nil)
                let attempt = try #require(failed.lastAttempt)
                #expect(try #require(failed.nextSync).timeIntervalSince(attempt) == 10)
                #expect(try await database.peopleCount() == 0)
                // The password is right again: the retry brings Ann and clears the error.
                try Data("secret\n".utf8).write(to: URL(fileURLWithPath: secret))
                clock.advance(by: .seconds(10))
                try await eventually("the retry") { try await database.peopleCount() == 1 }
                try await eventually("the error cleared") { try await database.sources().first?.status.error == nil }
                #expect(try await database.sources().first?.status.failures == 0)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(await daemon.sourceSyncs == 2)
    }
}
