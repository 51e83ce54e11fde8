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

/// The daemon's database watch (`DatabaseWatcher` and `dataVersion`) on a
/// database file: every write another connection makes is heard, one after
/// another with a pause and in quick succession, by a writer that keeps its
/// connection open (no close of the log after the commit to be told of).
@Suite(.timeLimit(.minutes(10)))
struct DaemonWatchTests {
    static func card(_ uid: String) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:Person \(uid)\r\nBDAY:1985-03-10\r\nEND:VCARD\r\n"
    }

    @Test func everyWriteOfAnotherConnectionIsHeard() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("birthdays.sqlite")
        let database = try AppDatabase.openFile(at: path, mapped: false)
        let epoch = Date(timeIntervalSince1970: 0)
        let ada = try directory.write("ada.vcf", Self.card("ada"))
        _ = try await ContactImporter(database: database, now: epoch, referenceYear: 2026).importPaths([ada])
        try await database.setSetting(.dayBefore, to: "off", now: epoch)
        try await database.setSetting(.channels, to: "log", now: epoch)
        try await database.setAuthorizationStatus(.authorized)
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 07:00: the reminders are due at 09:00, the daemon sleeps meanwhile.
        let start = try #require(ReferenceTime.parse("2026-03-10T07:00:00", timeZone: zone))
        let recorder = LogRecorder()
        let daemon = try await buildDaemon(
            DaemonConfiguration(
                database: database,
                environment: ["PATH": "/usr/bin:/bin"],
                now: { start },
                systemTimeZone: { zone },
                clock: ContinuousClock(),
                watchesWake: false,
                shutdownSignals: [],
                logLine: { _ in },
                logger: recorder.logger,
                feedLogger: recorder.logger
            )
        )
        let rounds = Int(ProcessInfo.processInfo.environment["WATCH_ROUNDS"] ?? "") ?? 6
        let missed = Mutex<[String]>([])
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await daemon.run() }
                try await eventually("the first pass") { await daemon.engine.passes >= 1 }
                let other = try AppDatabase.openFile(at: path, mapped: false)
                func planned(_ uids: [String]) async throws -> Bool {
                    let ids = Set(try await database.pendingRequests().map(\.id))
                    return uids.allSatisfy { ids.contains("\($0)-birthday-dayof") }
                }
                func importing(_ uids: [String]) async throws {
                    for uid in uids {
                        let card = try directory.write("\(uid).vcf", Self.card(uid))
                        let report = try await ContactImporter(database: other, now: epoch, referenceYear: 2026).importPaths([card])
                        try #require(report.added == 1)
                    }
                }
                func heard(_ uids: [String], _ label: String) async throws {
                    do {
                        try await eventually(label, seconds: 60) { try await planned(uids) }
                    } catch {
                        missed.withLock { $0.append(label) }
                        // The next write is heard and plans what was missed too.
                    }
                }
                for round in 0..<rounds {
                    // One write, then a pause until it is heard.
                    try await importing(["p\(round)"])
                    try await heard(["p\(round)"], "single \(round)")
                    // Three writes back to back.
                    let burst = (0..<3).map { "b\(round)x\($0)" }
                    try await importing(burst)
                    try await heard(burst, "burst \(round)")
                }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        let misses = missed.withLock { $0 }
        #expect(misses.isEmpty, "writes not heard within 60 s: \(misses)")
    }
}
