import BirthdayCore
import BirthdayStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// The running daemon hears each of several imports by other processes,
/// one after another with a pause and back to back (the real binary: each
/// import's process closes the database's files when it exits).
@Suite struct DaemonWatchCLITests {
    @Test func everyImportOfAnotherProcessIsHeard() async throws {
        let cli = try await DaemonHearsWritesTests.quietDatabase()
        defer { cli.cleanUp() }
        let daemon = try await DaemonHearsWritesTests.sleepingDaemon(cli, now: "2026-03-10T07:00:00+01:00")
        let reader = try AppDatabase.openFile(at: cli.databasePath, create: false)
        func planned(_ uids: [String]) async throws -> Bool {
            let ids = Set(try await reader.pendingRequests().map(\.id))
            return uids.allSatisfy { ids.contains("\($0)-birthday-dayof") }
        }
        var missed: [String] = []
        let rounds = Int(ProcessInfo.processInfo.environment["WATCH_ROUNDS"] ?? "") ?? 4
        for round in 0..<rounds {
            let single = "p\(round)"
            try await cli.seed([(single, "Person \(round)", "1985-03-10")])
            do { try await eventually("single \(round)", seconds: 60) { try await planned([single]) } } catch { missed.append("single \(round)") }
            let burst = (0..<3).map { "b\(round)x\($0)" }
            for uid in burst { try await cli.seed([(uid, "Person \(uid)", "1985-03-10")]) }
            do { try await eventually("burst \(round)", seconds: 60) { try await planned(burst) } } catch { missed.append("burst \(round)") }
        }
        #expect(missed.isEmpty, "imports not heard within 60 s: \(missed)")
        try await DaemonHearsWritesTests.stop(daemon)
    }
}
