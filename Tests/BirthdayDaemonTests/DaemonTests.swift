import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import TestSupport
import Testing

/// `buildDaemon` in-process, as `birthdays run` builds it, on an in-memory
/// store: no signals, no wake monitor, the log channel into memory.
@Suite(.timeLimit(.minutes(10)))
struct DaemonTests {
    /// What the log channel wrote.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// The first instants the daemon's clock gave, for a failure's message.
    final class Reads: Sendable {
        let values = Mutex<[Date]>([])
        func withLock<T>(_ body: (inout [Date]) -> T) -> T { values.withLock { body(&$0) } }
    }

    /// A store with Ada, born 1990-03-10, notifications on, day-before off,
    /// delivering through `channels`.
    func store(channels: String, command: String = "") async throws -> AppDatabase {
        let database = try AppDatabase.inMemory()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let card = try directory.write(
            "ada.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-10\r\nEMAIL:ada@example.org\r\nTEL:+44 20 7946 0000\r\nEND:VCARD\r\n"
        )
        let epoch = Date(timeIntervalSince1970: 0)
        let report = try await ContactImporter(database: database, now: epoch, referenceYear: 2026).importPaths([card])
        try #require(report.added == 1, "the import: \(report)")
        try await database.setSetting(.dayBefore, to: "off", now: epoch)
        try await database.setSetting(.channels, to: channels, now: epoch)
        if !command.isEmpty { try await database.setSetting(.command, to: command, now: epoch) }
        try await database.setAuthorizationStatus(.authorized)
        return database
    }

    /// The daemon over `database`, its clock standing at `start` in Berlin
    /// until its first pass is done ("next pass" logged), and flowing from
    /// there: however slowly a loaded machine starts the daemon, its first
    /// pass plans the reminder one second later instead of finding its time
    /// passed.
    func daemon(_ database: AppDatabase, start: String, lines: Lines, recorder: LogRecorder, reads: Reads = Reads()) async throws -> Daemon {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let base = try #require(ReferenceTime.parse(start, timeZone: zone))
        let origin = Mutex<ContinuousClock.Instant?>(nil)
        let now: @Sendable () -> Date = {
            let start = origin.withLock { origin -> ContinuousClock.Instant? in
                if origin == nil, recorder.all.contains(where: { $0.contains("next pass") }) { origin = ContinuousClock.now }
                return origin
            }
            let value = start.map { base.addingTimeInterval((ContinuousClock.now - $0).timeInterval) } ?? base
            reads.withLock { if $0.count < 5 { $0.append(value) } }
            return value
        }
        return try await buildDaemon(
            DaemonConfiguration(
                database: database,
                environment: ["PATH": "/usr/bin:/bin"],
                now: now,
                systemTimeZone: { zone },
                clock: ContinuousClock(),
                watchesWake: false,
                shutdownSignals: [],
                logLine: { lines.append($0) },
                logger: recorder.logger,
                feedLogger: recorder.logger
            )
        )
    }

    @Test func deliversTheDueReminderOnceAndStopsOnGracefulShutdown() async throws {
        let database = try await store(channels: "log")
        // With her contact links shared, still nothing of them reaches a log.
        try await database.setSetting(.contactLinks, to: "on", now: Date(timeIntervalSince1970: 0))
        let lines = Lines()
        let recorder = LogRecorder()
        let reads = Reads()
        let daemon = try await daemon(database, start: "2026-03-10T08:59:59", lines: lines, recorder: recorder, reads: reads)
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                do {
                    try await eventually("the delivery") { lines.all.count == 1 }
                } catch {
                    let people = try await database.people().count
                    let settings = try await database.settings()
                    throw TestSupportError(
                        "\(error); people \(people), reminders \(settings.reminders), clock read \(reads.withLock { $0 }); the daemon logged:\n"
                            + recorder.all.joined(separator: "\n")
                    )
                }
                try await eventually("the pass after it") { await daemon.engine.passes >= 2 }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(lines.all.count == 1)
        let id = try await database.publicIDs().reminder("ada-birthday-dayof")
        #expect(lines.all.first?.hasPrefix("reminder delivered id=\(id) kind=birthday when=day-of") == true)
        #expect(try await database.deliveries(updatedSince: .distantPast).map(\.state) == [.delivered])
        #expect(!recorder.all.contains { $0.contains("Ada") }, "the log never names anyone")
        for detail in ["ada@example.org", "7946", "mailto", "tel:"] {
            #expect(!(recorder.all + lines.all).contains { $0.contains(detail) }, "no contact detail in a log: \(detail)")
        }
    }

    /// A graceful shutdown while a reminder is handed to a slow command: the
    /// hand-over finishes and is recorded before the daemon returns.
    @Test func gracefulShutdownLetsTheHandOverFinish() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let started = directory.file("started")
        let release = directory.file("release")
        let database = try await store(
            channels: "command",
            command: "touch '\(started)'; while [ ! -e '\(release)' ]; do sleep 0.02; done"
        )
        let daemon = try await daemon(database, start: "2026-03-10T08:59:59", lines: Lines(), recorder: LogRecorder())
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                try await eventually("the command to start") { FileManager.default.fileExists(atPath: started) }
                trigger.triggerGracefulShutdown()
                // The shutdown waits for the command: it is still being handed over.
                #expect(try await database.deliveries(updatedSince: .distantPast).map(\.state) == [.sending])
                _ = FileManager.default.createFile(atPath: release, contents: nil)
                try await group.waitForAll()
            }
        }
        #expect(try await database.deliveries(updatedSince: .distantPast).map(\.state) == [.delivered])
    }
}
