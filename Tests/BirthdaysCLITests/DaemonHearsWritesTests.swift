import Foundation
import TestSupport
import Testing

/// The running daemon hears every write another command makes, with no
/// signal sent: an import, a settings change, an include and a source added
/// and synced by another process while the daemon sleeps are each acted on
/// within seconds. Each test fails on a daemon that only rereads on SIGHUP:
/// it would sleep until midnight (or until the old delivery time) and the
/// reminder below would not be delivered on time.
@Suite struct DaemonHearsWritesTests {
    /// A database with Grace (no birthday today), notifications on, the log channel.
    static func quietDatabase() async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("grace", "Grace Hopper", "1906-12-09")])
        try await cli.set("day-before", "off")
        try await cli.set("channels", "log")
        try await cli.enableNotifications()
        return cli
    }

    /// Starts the daemon at `now` and waits for its first pass.
    static func sleepingDaemon(_ cli: CLIProcess, now: String) async throws -> TestProcess {
        let daemon = try cli.daemon(now: now)
        try await daemon.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        return daemon
    }

    static func stop(_ daemon: TestProcess) async throws {
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test func anImportByAnotherCommandIsDeliveredOnTime() async throws {
        let cli = try await Self.quietDatabase()
        defer { cli.cleanUp() }
        // Half a minute before 09:00: the daemon has nothing to do before midnight.
        let daemon = try await Self.sleepingDaemon(cli, now: "2026-03-10T08:59:30+01:00")
        #expect(daemon.stderr.contains("2026-03-11T00:00:00+01:00"), "asleep until midnight: \(daemon.stderr)")

        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let id = try await cli.publicID("ada-birthday-dayof")
        try await daemon.waitUntil("Ada's reminder") { $0.stdout.contains("reminder delivered id=\(id) ") }
        #expect(daemon.stderr.contains("the database was written by another command"))
        #expect(daemon.stdout.contains("fire_at=2026-03-10T09:00:00+01:00 late=0"))
        #expect(!daemon.stderr.contains("Ada"), "names never reach the log")
        try await Self.stop(daemon)
    }

    @Test func aNewDeliveryTimeIsHonouredWithoutARestart() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log"), ("delivery-time", "10:00")], enableNotifications: true)
        defer { cli.cleanUp() }
        let daemon = try await Self.sleepingDaemon(cli, now: "2026-03-10T09:00:30+01:00")
        #expect(daemon.stderr.contains("2026-03-10T10:00:00+01:00"), "asleep until 10:00: \(daemon.stderr)")

        try await cli.set("delivery-time", "09:01")
        try await daemon.waitUntil("the reminder at the new time") { $0.stdout.contains("reminder delivered") }
        #expect(daemon.stdout.contains("fire_at=2026-03-10T09:01:00+01:00 late=0"), "\(daemon.stdout)")
        try await Self.stop(daemon)
    }

    @Test func anIncludeByAnotherCommandIsDeliveredOnTime() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let excluded = try await cli.run("exclude", "ada")
        try #require(excluded.status == 0, "\(excluded.stderr)")
        let daemon = try await Self.sleepingDaemon(cli, now: "2026-03-10T08:59:30+01:00")
        #expect(daemon.stderr.contains("scheduled=0"))

        let included = try await cli.run("include", "ada")
        try #require(included.status == 0, "\(included.stderr)")
        try await daemon.waitUntil("Ada's reminder") { $0.stdout.contains("reminder delivered") }
        #expect(daemon.stdout.contains("fire_at=2026-03-10T09:00:00+01:00 late=0"))
        try await Self.stop(daemon)
    }

    @Test func aSourceAddedAndSyncedByAnotherCommandIsDeliveredOnTime() async throws {
        let cli = try await Self.quietDatabase()
        defer { cli.cleanUp() }
        let book = try cli.write("phone.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n")
        let daemon = try await Self.sleepingDaemon(cli, now: "2026-03-10T08:59:30+01:00")

        let added = try await cli.run("sources", "add", book, "--name", "phone")
        try #require(added.status == 0, "\(added.stderr)")
        try await daemon.waitUntil("Ada's reminder") { $0.stdout.contains("reminder delivered") }
        #expect(daemon.stdout.contains("fire_at=2026-03-10T09:00:00+01:00 late=0"))
        try await Self.stop(daemon)
    }

    /// `settings set serve` while the daemon runs: the address `feed url`
    /// prints answers at once, and the old one stops answering.
    @Test func aNewServeAddressIsServedWithoutARestart() async throws {
        guard let curl = SystemTools.path("curl") else {
            Issue.record("curl is missing: install curl (make test does)")
            return
        }
        let cli = try await Self.quietDatabase()
        defer { cli.cleanUp() }
        let first = try Loopback.freePort()
        try await cli.set("serve", "127.0.0.1:\(first)")
        let daemon = try await Self.sleepingDaemon(cli, now: "2026-03-10T08:00:00+01:00")
        /// The status the address `feed url` prints answers with, when it is on `port`.
        func answer(_ port: Int) async throws -> String? {
            let printed = try await cli.run("feed", "url", "--json")
            let urls = try CLIProcess.object(printed.stdout)
            guard let url = urls["http"] as? String, url.contains(":\(port)/") else { return nil }
            return try await TestProcess.run([curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url]).stdout
        }
        try await eventually("the feed on the first port", seconds: 60) { (try? await answer(first)) == "200" }

        let second = try Loopback.freePort()
        try await cli.set("serve", "127.0.0.1:\(second)")
        try await eventually("the feed on the new port", seconds: 60) { (try? await answer(second)) == "200" }
        let old = try await TestProcess.run([curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "http://127.0.0.1:\(first)/"])
        #expect(old.stdout == "000", "the old address no longer answers")
        #expect(daemon.stderr.contains("the serve setting changed"))
        try await Self.stop(daemon)
    }
}
