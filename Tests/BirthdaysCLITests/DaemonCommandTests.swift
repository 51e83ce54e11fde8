import Foundation
import TestSupport
import Testing

/// `birthdays run`, `deliver --once`, `status`, `snooze`, `dismiss` and
/// `show` with the real binary, the log channel and a flowing BIRTHDAYS_NOW.
@Suite struct DaemonCommandTests {
    let cli: CLIProcess

    init() async throws {
        cli = try await .withAda(settings: [("channels", "log")], enableNotifications: true)
    }

    // MARK: - The daemon

    @Test func theDaemonDeliversExactlyOnceAtTheDeliveryTime() async throws {
        defer { cli.cleanUp() }
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        try await daemon.waitUntil("the delivery") { $0.stdout.contains("reminder delivered") }
        // The pass that delivered ends with "next pass"; then a SIGHUP makes another pass.
        try await daemon.waitUntil("the pass after the delivery") { $0.stderr.contains("delivered=1") && $0.stderr.occurrences(of: "next pass") >= 2 }
        let passes = daemon.stderr.occurrences(of: "delivery pass")
        daemon.signal(SIGHUP)
        try await daemon.waitUntil("the pass after SIGHUP") { $0.stderr.occurrences(of: "delivery pass") > passes }

        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 1)
        let id = try await cli.publicID("ada-birthday-dayof")
        #expect(daemon.stdout.contains("id=\(id) kind=birthday when=day-of fire_at=2026-03-10T09:00:00+01:00 late=0"))
        #expect(!daemon.stderr.contains("Ada"))
        #expect(!(daemon.stdout + daemon.stderr).contains("ada-birthday"), "logs show public ids only")
        #expect(try await cli.ledgerStates() == ["delivered"])

        let status = try await cli.run(at: "2026-03-10T09:01:00+01:00", "status", "--json")
        let object = try CLIProcess.object(status.stdout)
        let running = try #require(object["daemon"] as? [String: Any])
        #expect(running["running"] as? Bool == true)
        #expect(running["pid"] as? Int == Int(daemon.pid))
        #expect(!status.stdout.contains("Ada"))

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("birthdays run stopped"))
    }

    /// The zone moves west while the daemon runs (the time-zone setting, and
    /// SIGHUP): Ada's 09:00 reminder in Berlin becomes 09:00 in New York,
    /// six hours later, and is not sent at 09:00 Berlin time.
    @Test func aZoneChangeWhileRunningMovesTheReminderToItsNewLocalMoment() async throws {
        defer { cli.cleanUp() }
        // Half an hour before the reminder: room enough for a loaded machine.
        let daemon = try cli.daemon(now: "2026-03-10T08:30:00+01:00")
        try await daemon.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        #expect(daemon.stderr.contains("2026-03-10T09:00:00+01:00"), "first due at 09:00 Berlin")
        try await cli.set("time-zone", "America/New_York")
        let passes = daemon.stderr.occurrences(of: "next pass")
        daemon.signal(SIGHUP)
        try await daemon.waitUntil("the pass after the change") { $0.stderr.occurrences(of: "next pass") > passes }
        // 09:00 in New York (EDT since 8 March) is 14:00 in Berlin.
        let lastPass = try #require(daemon.stderr.split(separator: "\n").last { $0.contains("next pass") })
        #expect(lastPass.contains("2026-03-10T14:00:00+01:00"), "\(lastPass)")
        let pending = try await CLIProcess.array(try cli.run(at: "2026-03-10T08:31:00+01:00", "pending", "--json").stdout)
        #expect(pending.map { $0["fire_at"] as? String } == ["2026-03-10T09:00:00-04:00"])
        #expect(!daemon.stdout.contains("reminder delivered"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        // Its next wakeup being 14:00 Berlin, nothing can have been sent at 09:00 there.
        #expect(!daemon.stdout.contains("reminder delivered"))
    }

    @Test func killedAfterDeliveringTheRestartedDaemonDoesNotDeliverAgain() async throws {
        defer { cli.cleanUp() }
        let first = try cli.daemon(now: "2026-03-10T08:59:57+01:00", name: "first")
        try await first.waitUntil("the delivery to be recorded") { _ in (try? await cli.ledgerStates()) == ["delivered"] }
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() == 128 + SIGKILL)
        #expect(first.stdout.occurrences(of: "reminder delivered") == 1)

        // Restarted before 09:00 again: the 09:00 request is in the ledger, so nothing is pending for today.
        let second = try cli.daemon(now: "2026-03-10T08:59:57+01:00", name: "second")
        try await second.waitUntil("the first pass") { $0.stderr.contains("next pass") }
        #expect(second.stderr.contains("scheduled=0"))
        #expect(second.stdout.isEmpty)
        #expect(try await cli.ledgerStates() == ["delivered"])
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
    }

    @Test func aSecondDaemonOnTheSameDatabaseExitsWithAClearMessage() async throws {
        defer { cli.cleanUp() }
        let first = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        try await first.waitUntil("the start") { $0.stderr.contains("birthdays run started") }

        let second = try await cli.run(at: "2026-03-10T08:00:00+01:00", "run")
        #expect(second.status == 1)
        #expect(second.stderr.contains("birthdays run is already running for \(cli.databasePath) (pid \(first.pid))"))

        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        let status = try await cli.run(at: "2026-03-10T08:00:00+01:00", "status")
        #expect(status.stdout.contains("Daemon: not running"))
    }

    /// A daemon that holds the lock but does not deliver (stopped, or stuck):
    /// `status` says the next fire time has passed, only once it is more
    /// than 30 s past, and never when no daemon runs.
    @Test func statusSaysWhenARunningDaemonIsPastItsNextFireTime() async throws {
        defer { cli.cleanUp() }
        guard let python = SystemTools.path("python3") else {
            Issue.record("python3 is missing: install python3 (make test does)")
            return
        }
        let idle = try await cli.run(at: "2026-03-10T09:05:00+01:00", "status", "--json")
        #expect(try #require(try CLIProcess.object(idle.stdout)["daemon"] as? [String: Any])["overdue_since"] is NSNull)

        let holder = try await cli.holdDaemonLock(python: python)
        defer { holder.stop(signal: SIGKILL) }

        let onTime = try await cli.run(at: "2026-03-10T09:00:10+01:00", "status", "--json")
        let running = try #require(try CLIProcess.object(onTime.stdout)["daemon"] as? [String: Any])
        #expect(running["running"] as? Bool == true)
        #expect(running["overdue_since"] is NSNull, "10 s past is not late yet")

        let late = try await cli.run(at: "2026-03-10T09:05:00+01:00", "status", "--json")
        let stuck = try #require(try CLIProcess.object(late.stdout)["daemon"] as? [String: Any])
        #expect(stuck["overdue_since"] as? String == "2026-03-10T09:00:00+01:00")
        let text = try await cli.run(at: "2026-03-10T09:05:00+01:00", "status")
        #expect(text.stdout.contains("Warning: the next reminder was due at 2026-03-10 09:00 (5 min ago)"), "\(text.stdout)")
        #expect(text.stdout.contains("late or stuck"))
    }

    /// Onboarding says "You're all set" only when reminders will be sent: a
    /// daemon runs (here, a process holding its lock), or the service was
    /// started; otherwise it says what to start.
    @Test func onboardingIsAllSetOnlyWhileADaemonRuns() async throws {
        defer { cli.cleanUp() }
        guard let python = SystemTools.path("python3") else {
            Issue.record("python3 is missing: install python3 (make test does)")
            return
        }
        let alone = try await cli.run("onboard", "--no-contacts", "--enable-notifications")
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("Almost there: no reminder is sent until birthdays run runs."), "\(alone.stdout)")
        #expect(!alone.stdout.contains("You're all set."))

        let again = try CLIProcess()
        defer { again.cleanUp() }
        try await again.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let holder = try await again.holdDaemonLock(python: python)
        defer { holder.stop(signal: SIGKILL) }
        let running = try await again.run("onboard", "--no-contacts", "--enable-notifications")
        #expect(running.status == 0, "\(running.stderr)")
        #expect(running.stdout.contains("You're all set."), "\(running.stdout)")
    }

    // MARK: - One pass and the actions

    @Test func deliverOnceDeliversLateThenNotAgain() async throws {
        defer { cli.cleanUp() }
        let first = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("reminder delivered id=\(try await cli.publicID("ada-birthday-dayof")) "))
        #expect(first.stdout.contains("late=1"))
        let second = try await cli.run(at: "2026-03-10T09:06:00+01:00", "deliver", "--once")
        #expect(!second.stdout.contains("reminder delivered"))
        #expect(try await cli.ledgerStates() == ["delivered"])
    }

    @Test func aReminderDueYesterdayIsRecordedAsMissed() async throws {
        defer { cli.cleanUp() }
        let pass = try await cli.run(at: "2026-03-11T07:00:00+01:00", "deliver", "--once", "--json")
        let object = try CLIProcess.object(pass.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("{") }.last ?? "")
        #expect(object["missed"] as? Int == 1)
        let status = try await cli.run(at: "2026-03-11T07:00:00+01:00", "status", "--json")
        let problems = try #require(try CLIProcess.object(status.stdout)["problems"] as? [[String: Any]])
        #expect(problems.map { $0["state"] as? String } == ["missed"])
    }

    @Test func snoozeShowsTheReminderAgainOnceAndDismissStopsIt() async throws {
        defer { cli.cleanUp() }
        _ = try await cli.run(at: "2026-03-10T09:00:10+01:00", "deliver", "--once")
        let snooze = try await cli.run(at: "2026-03-10T09:01:00+01:00", "snooze", "ada-birthday-dayof", "--for", "15m")
        #expect(snooze.status == 0, "\(snooze.stderr)")
        #expect(snooze.stdout == "Snoozed ada-birthday-dayof until 2026-03-10T09:16:00+01:00.\n")
        await #expect(!(try cli.run(at: "2026-03-10T09:10:00+01:00", "deliver", "--once")).stdout.contains("reminder delivered"))
        let again = try await cli.run(at: "2026-03-10T09:16:00+01:00", "deliver", "--once")
        #expect(again.stdout.contains("reminder delivered id=\(try await cli.publicID("ada-birthday-dayof-snooze")) "))

        let dismiss = try await cli.run(at: "2026-03-10T09:20:00+01:00", "dismiss", "ada-birthday-dayof")
        #expect(dismiss.status == 0, "\(dismiss.stderr)")
        _ = try await cli.run(at: "2026-03-10T09:21:00+01:00", "snooze", "ada-birthday-dayof", "--for", "1m")
        let unknown = try await cli.run(at: "2026-03-10T09:21:00+01:00", "dismiss", "nobody-birthday-dayof")
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no reminder with the id 'nobody-birthday-dayof'"))
        let bad = try await cli.run(at: "2026-03-10T09:21:00+01:00", "snooze", "ada-birthday-dayof", "--for", "soon")
        #expect(bad.stderr.contains("'soon' is not a duration"))
    }

    @Test func showPrintsDatesNextOccurrenceAndAge() async throws {
        defer { cli.cleanUp() }
        let byName = try await cli.run(at: "2026-03-10T08:00:00+01:00", "show", "Ada Lovelace")
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(byName.stdout == "Ada Lovelace\nId: ada\nBirthday: 1990-03-10; next 2026-03-10 (today), turns 36\n")
        await #expect(try cli.run(at: "2026-03-10T08:00:00+01:00", "show", "ada").stdout == byName.stdout)
        let missing = try await cli.run(at: "2026-03-10T08:00:00+01:00", "show", "Nobody")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no person's id or name contains 'Nobody'"))
    }
}
