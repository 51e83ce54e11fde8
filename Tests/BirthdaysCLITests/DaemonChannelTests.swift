import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays run` with the command channel, the provisional permission and
/// the feed server, with the real binary and a flowing BIRTHDAYS_NOW.
@Suite struct DaemonChannelTests {
    let cli: CLIProcess

    init() async throws {
        cli = try await .withAda(enableNotifications: false)
    }

    /// `KEY=VALUE` lines of a file, in order.
    static func variables(_ text: String) -> [(String, String)] {
        text.split(separator: "\n").compactMap { (line: Substring) -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Waits for the pass after the one that ended with `counts`, then for one more pass after a SIGHUP.
    func waitForTwoMorePasses(_ daemon: TestProcess, after counts: String) async throws {
        try await daemon.waitUntil("the pass after \(counts)") { $0.stderr.contains(counts) && $0.stderr.occurrences(of: "next pass") >= 2 }
        let passes = daemon.stderr.occurrences(of: "delivery pass")
        daemon.signal(SIGHUP)
        try await daemon.waitUntil("the pass after SIGHUP") { $0.stderr.occurrences(of: "delivery pass") > passes && $0.stderr.hasSuffix("\n") }
    }

    // MARK: - The command channel

    @Test func theCommandChannelGetsTheReminderInItsEnvironmentOnce() async throws {
        defer { cli.cleanUp() }
        let outfile = cli.path("command.env")
        try await cli.set("channels", "command")
        try await cli.set("command", "env | grep ^BIRTHDAYS_ >> '\(outfile)'")
        try await cli.enableNotifications()

        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        try await daemon.waitUntil("the command's output") { _ in Self.read(outfile).contains("BIRTHDAYS_LATE=") }
        try await waitForTwoMorePasses(daemon, after: "delivered=1")

        let text = Self.read(outfile)
        let variables = Self.variables(text)
        let values = Dictionary(variables, uniquingKeysWith: { first, _ in first })
        #expect(variables.filter { $0.0 == "BIRTHDAYS_ID" }.count == 1, "one delivery: \(text)")
        #expect(values["BIRTHDAYS_ID"] == "ada-birthday-dayof")
        #expect(values["BIRTHDAYS_ID"]?.hasSuffix("-birthday-dayof") == true)
        #expect(values["BIRTHDAYS_TITLE"] == "Ada Lovelace's Birthday!")
        #expect(values["BIRTHDAYS_BODY"] == "Ada Lovelace turns 36 today!")
        #expect(values["BIRTHDAYS_PERSON_ID"] == "ada")
        #expect(values["BIRTHDAYS_FIRE_AT"] == "2026-03-10T09:00:00+01:00")
        #expect(values["BIRTHDAYS_KIND"] == "birthday")
        #expect(values["BIRTHDAYS_WHEN"] == "day-of")
        #expect(values["BIRTHDAYS_LATE"] == "0")
        #expect(try await cli.ledgerStates() == ["delivered"])

        #expect(!daemon.stdout.contains("Ada"))
        #expect(!daemon.stderr.contains("Ada"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(!daemon.stdout.contains("Ada"))
        #expect(!daemon.stderr.contains("Ada"))
    }

    @Test func aFailingCommandIsRetryingNotDelivered() async throws {
        defer { cli.cleanUp() }
        try await cli.set("channels", "command")
        try await cli.set("command", "exit 3")
        try await cli.enableNotifications()

        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        try await daemon.waitUntil("the failed attempt to be recorded") { _ in (try? await cli.ledgerStates()) == ["retrying"] }
        try await daemon.waitUntil("the pass to end") { $0.stderr.contains("retrying=1") && $0.stderr.occurrences(of: "next pass") >= 2 }
        #expect(!daemon.stderr.contains("delivered=1"))
        #expect(!daemon.stdout.contains("reminder delivered"))

        let status = try await cli.run(at: "2026-03-10T09:00:10+01:00", "status", "--json")
        #expect(status.status == 0, "\(status.stderr)")
        let object = try CLIProcess.object(status.stdout)
        let recent = try #require(object["recent"] as? [String: Any])
        #expect(recent["retrying"] as? Int == 1)
        #expect(recent["delivered"] as? Int == 0)
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.map { $0["state"] as? String } == ["retrying"])
        #expect(!status.stdout.contains("Ada"))

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(try await cli.ledgerStates() == ["retrying"])
        #expect(!daemon.stderr.contains("Ada"))
    }

    /// A stop signal while reminders are being handed over: the two due
    /// together go out side by side, both hand-overs are finished and
    /// recorded, and the daemon exits 0. Started again the same day, it
    /// sends neither a second time.
    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalLetsTheRemindersBeingSentFinish(signal: Int32) async throws {
        defer { cli.cleanUp() }
        // A second person with the same birthday: two reminders due in one pass.
        try await cli.seed([("grace", "Grace Brewster", "1985-03-10")])
        let started = cli.path("started")
        let release = cli.path("release")
        let finished = cli.path("finished")
        try await cli.set("channels", "command")
        // The command holds each reminder until the test creates `release`.
        try await cli.set(
            "command",
            """
            echo "$BIRTHDAYS_ID" >> '\(started)'; while [ ! -e '\(release)' ]; do sleep 0.05; done; echo "$BIRTHDAYS_ID" >> '\(finished)'
            """
        )
        try await cli.enableNotifications()

        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00", extraEnvironment: ["BIRTHDAYS_LOG_LEVEL": "debug"])
        try await daemon.waitUntil("both commands to start") { _ in Self.read(started).split(separator: "\n").count == 2 }
        #expect(Self.read(started).split(separator: "\n").sorted() == ["ada-birthday-dayof", "grace-birthday-dayof"], "side by side")
        #expect(try await cli.ledgerStates() == ["sending", "sending"])
        daemon.signal(signal)
        try await daemon.waitUntil("the signal to reach the service group") { $0.stderr.contains("Signal caught") }
        #expect(Self.read(finished).isEmpty, "the commands are still held")
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        #expect(try await daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(Self.read(finished).split(separator: "\n").sorted() == ["ada-birthday-dayof", "grace-birthday-dayof"], "both ran to their end")
        #expect(try await cli.ledgerStates() == ["delivered", "delivered"])
        #expect(daemon.stderr.contains("birthdays run stopped"))

        let again = try cli.daemon(now: "2026-03-10T09:00:30+01:00", name: "again")
        try await again.waitUntil("its first pass") { $0.stderr.contains("next pass") }
        #expect(again.stderr.contains("delivered=0"))
        again.signal(signal)
        #expect(try await again.waitForExit() == 0)
        let sent = Self.read(started).split(separator: "\n").sorted()
        #expect(sent == ["ada-birthday-dayof", "grace-birthday-dayof"], "each sent once")
        #expect(try await cli.ledgerStates() == ["delivered", "delivered"])
        for name in ["Ada", "Grace"] { #expect(!daemon.stderr.contains(name) && !again.stderr.contains(name)) }
    }

    /// The daemon runs Swift concurrency on NIO's event loops: no thread of
    /// libdispatch's default-QoS pool exists once it has made its first pass
    /// and a settings reload. Such a worker arms libdispatch's pool monitor,
    /// which would wake the idle daemon every second for the rest of its life.
    /// And it keeps its memory small: libical is loaded only to export.
    @Test func theDaemonNeverStartsLibdispatchsWorkerPoolNorLoadsLibical() async throws {
        defer { cli.cleanUp() }
        try await cli.set("channels", "log")
        try await cli.enableNotifications()
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        try await waitForTwoMorePasses(daemon, after: "delivered=1")

        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")
        let names = tasks.map { Self.read("/proc/\(daemon.pid)/task/\($0)/comm").trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(names.contains { $0.hasPrefix("NIO-SGLTN") }, "\(names)")
        // Thread names are cut to 15 bytes: com.apple.root.default-qos shows as "oot.default-qos".
        #expect(!names.contains { $0.hasSuffix("default-qos") }, "\(names)")
        // Without the feed server, libical and the ICU libraries behind it are never loaded.
        let maps = Self.read("/proc/\(daemon.pid)/maps")
        #expect(maps.contains("birthdays"))
        #expect(!maps.contains("libical"))
        #expect(!maps.contains("libicu"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    // MARK: - The provisional permission

    /// Provisional (no desktop notification server answered at onboarding)
    /// holds back the desktop only: the command the user set delivers.
    @Test func provisionalPermissionHoldsBackTheDesktopOnly() async throws {
        defer { cli.cleanUp() }
        let outfile = cli.path("command.ran")
        try await cli.set("channels", "desktop,command")
        try await cli.set("command", "printf '%s' \"$BIRTHDAYS_ID\" >'\(outfile)'")
        // There is no CLI path to provisional (onboarding gives it only when no channel is reachable).
        try await AppDatabase.openFile(at: cli.databasePath, create: false).setAuthorizationStatus(.provisional)
        let permission = try await cli.run("notifications", "status", "--json")
        #expect(try CLIProcess.object(permission.stdout)["status"] as? String == "provisional")

        // A bus where no notification server answers: provisional stays.
        let daemon = try cli.daemon(
            now: "2026-03-10T08:59:57+01:00",
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(cli.path("no-bus"))"]
        )
        try await daemon.waitUntil("the delivery") { _ in (try? await cli.ledgerStates()) == ["delivered"] }
        #expect(daemon.stderr.contains("channels=command"), "\(daemon.stderr)")
        #expect(try String(contentsOfFile: outfile, encoding: .utf8) == "ada-birthday-dayof", "the command channel delivered")
        #expect(!daemon.stdout.contains("reminder delivered"), "the log is not one of the channels")
        let status = try await cli.run(at: "2026-03-10T09:01:00+01:00", "status", "--json")
        #expect(try CLIProcess.object(status.stdout)["channels"] as? [String] == ["command"])

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    /// With only the desktop chosen, provisional falls back to the log, so a reminder always lands somewhere.
    @Test func provisionalWithOnlyTheDesktopDeliversToTheLog() async throws {
        defer { cli.cleanUp() }
        try await cli.set("channels", "desktop")
        try await AppDatabase.openFile(at: cli.databasePath, create: false).setAuthorizationStatus(.provisional)
        let daemon = try cli.daemon(
            now: "2026-03-10T08:59:57+01:00",
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(cli.path("no-bus"))"]
        )
        try await daemon.waitUntil("the delivery") { _ in (try? await cli.ledgerStates()) == ["delivered"] }
        #expect(daemon.stderr.contains("channels=log"), "\(daemon.stderr)")
        #expect(daemon.stdout.contains("reminder delivered"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }

    // MARK: - The feed server

    static func curl(_ arguments: String...) async throws -> CLIProcess.Output {
        try await TestProcess.run(["/usr/bin/env", "curl", "-s", "--max-time", "10"] + arguments)
    }

    @Test func theDaemonServesTheFeedAndStopsServingOnSIGTERM() async throws {
        defer { cli.cleanUp() }
        let port = try Loopback.freePort()
        try await cli.set("channels", "log")
        try await cli.set("serve", "127.0.0.1:\(port)")
        try await cli.enableNotifications()

        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        try await daemon.waitUntil("the feed server") { _ in
            await (try? Self.curl("http://127.0.0.1:\(port)/healthz"))?.stdout.hasPrefix("ok") == true
        }

        let url = try await cli.run("feed", "url", "--host", "127.0.0.1", "--port", "\(port)")
        #expect(url.status == 0, "\(url.stderr)")
        let http = try #require(url.stdout.split(separator: "\n").first.map(String.init))
        #expect(http.hasPrefix("http://127.0.0.1:\(port)/calendar/"))
        let response = try await Self.curl("-o", "/dev/null", "-w", "%{http_code} %{content_type}", http)
        #expect(response.stdout.hasPrefix("200 text/calendar"), "\(response.stdout) \(response.stderr)")
        let body = try await Self.curl(http)
        #expect(body.stdout.hasPrefix("BEGIN:VCALENDAR"))

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("birthdays run stopped"))
        let after = try await Self.curl("-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz")
        #expect(after.status != 0, "the port still answers after the daemon exited: \(after.stdout)")
        #expect(after.stdout == "000")
    }
}
