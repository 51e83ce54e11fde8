import BirthdayCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The greeting sent by the delivery engine (issue 44), through the real
/// binary at a pretend time (`deliver --once`, as a systemd timer runs it)
/// and the real msmtp into a real SMTP server (aiosmtpd): Ana in
/// Asia/Tokyo greeted at her 09:00 and nobody else, late the same day of
/// hers, missed after it, a skip, the day-before line, exactly once.
@Suite(.timeLimit(.minutes(10)))
struct GreetDeliveryTests {
    /// ``GreetCommandTests/friends()`` with an e-mail channel through msmtp
    /// into `server`, notifications on, Ana greeted by her own choice and
    /// the group Family (Bob without an address, Dan excluded, Fay deceased) by e-mail.
    static func greeted(server: SMTPServer, folder: TemporaryDirectory) async throws -> CLIProcess {
        let cli = try await GreetCommandTests.friends()
        let sendmail = try await server.writeMsmtpWrapper(into: folder)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--from", "Me <me@example.org>", "--sendmail", sendmail)
        try #require(channel.status == 0, "\(channel.stderr)")
        try await cli.enableNotifications()
        let ana = try await cli.run("greet", "add", "ana")
        try #require(ana.status == 0, "\(ana.stderr)")
        let family = try await cli.run("greet", "add", "--group", "family")
        try #require(family.status == 0, "\(family.stderr)")
        return cli
    }

    /// The messages the server holds that went to `address`.
    static func messages(to address: String, in server: SMTPServer) async throws -> [PythonMail.Message] {
        var found: [PythonMail.Message] = []
        for file in server.messages() {
            let message = try await PythonMail.parse(file: file)
            if message.to?.address == address { found.append(message) }
        }
        return found
    }

    /// The greeting rows of the delivery ledger.
    static func greetingRows(_ cli: CLIProcess) async throws -> [DeliveryEntry] {
        try await cli.deliveries().filter { $0.notificationID.hasPrefix("greet:") }
    }

    static func deliver(_ cli: CLIProcess, at now: String) async throws -> CLIProcess.Output {
        try await cli.run(at: now, "deliver", "--once")
    }

    // MARK: - On time, once, nobody else

    /// Ana (Asia/Tokyo) is greeted at 09:00 her time (00:00 UTC, 01:00 in
    /// Berlin) by e-mail To her address, From the owner; nothing before; a
    /// second pass sends nothing twice. Only her greeting is ever planned:
    /// not Dan (excluded, in the greeted group), not Fay (deceased), not Bob
    /// (no address), not Tom (not opted in).
    @Test func anaIsGreetedAtHerNineInTokyoOnceAndNobodyElse() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await Self.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }

        let pending = try #require(try await cli.json(["pending"]) as? [[String: Any]])
        let greetings = pending.filter { $0["kind"] as? String == "greeting" }
        #expect(greetings.map { $0["person_id"] as? String } == ["ana"], "\(greetings)")
        #expect(greetings.first?["fire_at"] as? String == "2026-03-10T01:00:00+01:00")

        let before = try await Self.deliver(cli, at: "2026-03-10T00:59:00+01:00")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(try await Self.greetingRows(cli).isEmpty, "not before her 09:00")

        let onTime = try await Self.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        #expect(onTime.status == 0, "\(onTime.stderr)")
        try await eventually("the greeting in the mailbox") { !(try await Self.messages(to: "ana@example.org", in: server)).isEmpty }
        let sent = try await Self.messages(to: "ana@example.org", in: server)
        #expect(sent.count == 1)
        let message = try #require(sent.first)
        #expect(message.from?.address == "me@example.org")
        #expect(message.values("Subject") == ["Happy birthday!"])
        #expect(message.body == "Happy birthday, Ana, and have a wonderful day!\n", "\(message.body)")
        for absent in ["orchids", "36", "1990", "http"] { #expect(!message.body.contains(absent), "no \(absent)") }
        let rows = try await Self.greetingRows(cli)
        #expect(rows.map(\.notificationID) == ["greet:ana"])
        #expect(rows.first?.state == .delivered)
        #expect(rows.first?.late == false)
        #expect(rows.first?.occurrenceDate.description == "2026-03-10")

        // A second pass, later the same day: nothing sent twice, nothing planned again for this year.
        let again = try await Self.deliver(cli, at: "2026-03-10T01:05:00+01:00")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await Self.messages(to: "ana@example.org", in: server).count == 1)
        #expect(try await Self.greetingRows(cli).count == 1)
        let after = try #require(try await cli.json(["pending"]) as? [[String: Any]])
        let next = after.filter { $0["kind"] as? String == "greeting" }
        #expect(next.map { $0["fire_at"] as? String } == ["2027-03-10T01:00:00+01:00"], "next year's: \(next)")
        for absent in ["dan@example.org", "fay@example.org"] {
            #expect(try await Self.messages(to: absent, in: server).isEmpty, "\(absent) never greeted")
        }
    }

    /// Two passes at once on one database (two timers, or a timer beside
    /// a daemon): the greeting is claimed in the ledger by one of them and
    /// goes out once.
    @Test func twoPassesAtOnceGreetOnce() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await Self.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }
        async let first = Self.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        async let second = Self.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        let (one, two) = try await (first, second)
        #expect(one.status == 0 && two.status == 0, "\(one.stderr)\(two.stderr)")
        try await eventually("the greeting in the mailbox") { !(try await Self.messages(to: "ana@example.org", in: server)).isEmpty }
        #expect(try await Self.messages(to: "ana@example.org", in: server).count == 1)
        #expect(try await Self.greetingRows(cli).map(\.state) == [.delivered])
    }

    /// A mail program that fails (exit 75) is retried within her day: the
    /// row waits as retrying, the next pass after the delay sends it once,
    /// and no e-mail reaches the owner instead.
    @Test func aFailedGreetingIsRetriedWithinTheirDay() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await GreetCommandTests.friends()
        defer { cli.cleanUp() }
        let wrapper = try await server.writeMsmtpWrapper(into: folder)
        let flag = cli.path("mail-works")
        let flaky = try cli.write("flaky-sendmail", "#!/bin/sh\nif [ -f '\(flag)' ]; then exec '\(wrapper)' \"$@\"; fi\ncat >/dev/null\nexit 75\n")
        #expect(chmod(flaky, 0o755) == 0)
        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", flaky).status == 0)
        #expect(try await cli.run("greet", "add", "ana").status == 0)

        let failing = try await Self.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        #expect(failing.status == 1, "a greeting waiting for a retry: \(failing.stdout)")
        let waiting = try #require(try await Self.greetingRows(cli).first)
        #expect(waiting.state == .retrying)
        #expect(waiting.nextAttemptAt != nil)

        #expect(FileManager.default.createFile(atPath: flag, contents: Data()))
        let retried = try await Self.deliver(cli, at: "2026-03-10T01:02:00+01:00")
        #expect(retried.status == 0, "\(retried.stderr)")
        try await eventually("the greeting in the mailbox") { !(try await Self.messages(to: "ana@example.org", in: server)).isEmpty }
        let sent = try #require(try await Self.greetingRows(cli).first)
        #expect(sent.state == .delivered)
        #expect(sent.attempts == 2)
        #expect(try await Self.deliver(cli, at: "2026-03-10T01:30:00+01:00").status == 0)
        #expect(try await Self.messages(to: "ana@example.org", in: server).count == 1)
        #expect(try await Self.messages(to: "me@example.org", in: server).isEmpty, "never to the owner's channel's address")
    }

    // MARK: - Once, under a crash and beside a second engine

    /// `birthdays run` is killed (`kill -9`) while the mail program holds
    /// Ana's greeting (it has read the message and waits): meanwhile a
    /// second `run` refuses to start and a `deliver --once` beside it finds
    /// the greeting claimed, and sends nothing. The held mail program then
    /// hands it over, so it did go out; restarted, the daemon marks the row
    /// interrupted and never sends it again. `greet list` and `status` say so.
    @Test func aDaemonKilledWhileSendingNeverSendsTheGreetingAgain() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await GreetCommandTests.friends()
        defer { cli.cleanUp() }
        let wrapper = try await server.writeMsmtpWrapper(into: folder)
        let (message, started, release) = (cli.path("held.eml"), cli.path("started"), cli.path("release"))
        // Reads the whole message, says so, waits for `release`, then hands it to msmtp (its pipes to the daemon may be gone by then).
        let held = try cli.write(
            "held-sendmail",
            """
            #!/bin/sh
            cat > '\(message)'
            echo $$ > '\(started)'
            while [ ! -e '\(release)' ]; do sleep 0.05; done
            exec '\(wrapper)' "$@" < '\(message)' > /dev/null 2>&1

            """
        )
        #expect(chmod(held, 0o755) == 0)
        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", held).status == 0)
        try await cli.enableNotifications()
        #expect(try await cli.run("greet", "add", "ana").status == 0)

        // Her 09:00 in Tokyo is 01:00 in Berlin.
        let daemon = try cli.daemon(now: "2026-03-10T00:59:57+01:00")
        try await daemon.waitUntil("the mail program to hold the greeting") { _ in FileManager.default.fileExists(atPath: started) }
        #expect(try await Self.greetingRows(cli).map(\.state) == [.sending])

        let second = try await cli.run(at: "2026-03-10T01:00:05+01:00", "run")
        #expect(second.status == 1)
        #expect(second.stderr.contains("birthdays run is already running"), "\(second.stderr)")
        let beside = try await Self.deliver(cli, at: "2026-03-10T01:00:05+01:00")
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(try await Self.greetingRows(cli).map(\.state) == [.sending], "claimed by the daemon, left alone")

        daemon.signal(SIGKILL)
        #expect(try await daemon.waitForExit() == 128 + SIGKILL)
        // The mail program outlived the daemon (its own process group) and now hands the greeting over.
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        try await eventually("the greeting in the mailbox") { !(try await Self.messages(to: "ana@example.org", in: server)).isEmpty }

        let again = try cli.daemon(now: "2026-03-10T01:02:00+01:00", name: "again")
        try await again.waitUntil("its first pass") { $0.stderr.contains("next pass") }
        #expect(again.stderr.contains("interrupted by an earlier stop were not resent"), "\(again.stderr)")
        again.signal(SIGTERM)
        #expect(try await again.waitForExit() == 0)
        let rows = try await Self.greetingRows(cli)
        #expect(rows.map(\.state) == [.interrupted])
        #expect(try await Self.deliver(cli, at: "2026-03-10T01:30:00+01:00").status == 0)
        #expect(try await Self.messages(to: "ana@example.org", in: server).count == 1, "sent once, never again")
        for secret in ["Ana", "Lima", "ana@example.org"] {
            #expect(!daemon.stderr.contains(secret) && !again.stderr.contains(secret), "\(secret) in a log")
        }

        let listed = try await cli.run(at: "2026-03-10T02:00:00+01:00", "greet", "list")
        #expect(listed.stdout.contains("interrupted Tue 10 Mar 2026"), "\(listed.stdout)")
        let json = try CLIProcess.array(try await cli.run(at: "2026-03-10T02:00:00+01:00", "greet", "list", "--json").stdout)
        let ana = json.first { $0["person"] as? String == "ana" }.flatMap { ($0["people"] as? [[String: Any]])?.first }
        #expect(ana?["last"] as? String == "interrupted", "\(json)")
        #expect(ana?["next_day"] as? String == "2027-03-10", "not planned again this year: \(json)")
        let status = try await cli.run(at: "2026-03-10T02:00:00+01:00", "status")
        #expect(
            status.stdout.contains("Greetings to friends, last 7 days: 0 sent, 0 missed, 1 interrupted (perhaps sent; never sent again)"),
            "\(status.stdout)"
        )
        let counts =
            try CLIProcess.object(try await cli.run(at: "2026-03-10T02:00:00+01:00", "status", "--json").stdout)["greetings"] as? [String: Any]
        #expect(counts?["interrupted"] as? Int == 1, "\(String(describing: counts))")
    }

    // MARK: - Late, missed, skipped

    /// The machine was off at her 09:00: at 20:00 in Tokyo (12:00 in
    /// Berlin) it is still her day, so the greeting goes, late. Tom's
    /// (Pacific/Kiritimati, UTC+14, greeted --to) whose day ended at 10:00
    /// UTC is missed, never sent; `status` counts one sent and one missed.
    @Test func lateWhileItIsTheirDayMissedAfter() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await Self.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }
        #expect(try await cli.run("greet", "add", "tom", "--to", "tom@example.org").status == 0)

        let late = try await Self.deliver(cli, at: "2026-03-10T12:00:00+01:00")
        #expect(late.status == 0, "\(late.stderr)")
        try await eventually("the late greeting") { !(try await Self.messages(to: "ana@example.org", in: server)).isEmpty }
        let ana = try #require(try await Self.greetingRows(cli).first { $0.notificationID == "greet:ana" })
        #expect(ana.state == .delivered)
        #expect(ana.late)

        let missed = try await Self.deliver(cli, at: "2026-03-20T12:00:00+01:00")
        #expect(missed.status == 0, "\(missed.stderr)")
        let tom = try #require(try await Self.greetingRows(cli).first { $0.notificationID == "greet:tom" })
        #expect(tom.state == .missed)
        #expect(try await Self.messages(to: "tom@example.org", in: server).isEmpty, "a missed greeting is never sent")

        let status = try CLIProcess.object(try await cli.run(at: "2026-03-20T12:00:00+01:00", "status", "--json", "--days", "30").stdout)
        let counts = try #require(status["greetings"] as? [String: Any], "\(status)")
        #expect(counts["sent"] as? Int == 1)
        #expect(counts["missed"] as? Int == 1)
        let listed = try await cli.run(at: "2026-03-20T12:00:00+01:00", "greet", "list")
        #expect(listed.stdout.contains("missed Fri 20 Mar 2026"), "\(listed.stdout)")
        let json = try CLIProcess.array(try await cli.run(at: "2026-03-20T12:00:00+01:00", "greet", "list", "--json").stdout)
        let last = Dictionary(
            uniqueKeysWithValues: json.filter { $0["person"] is String }.compactMap { ($0["people"] as? [[String: Any]])?.first }.compactMap {
                member in
                (member["id"] as? String).map { ($0, member["last"] as? String) }
            }
        )
        #expect(last["ana"] == "sent" && last["tom"] == "missed", "\(json)")
    }

    // MARK: - Through Apprise

    /// Tom (Pacific/Kiritimati, UTC+14) greeted through Apprise's `json://`
    /// into a loopback server: at 09:00 his time (19:00 UTC the day
    /// before), with the age only because his text writes it, once.
    @Test func tomIsGreetedThroughAppriseAtHisNineInKiritimati() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await GreetCommandTests.friends()
        defer { cli.cleanUp() }
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }
        let added = try await cli.run("greet", "add", "tom", "--url", "-", "--message", "Happy {age}th, {first}!", stdin: receiver.url + "\n")
        #expect(added.status == 0, "\(added.stderr)")

        #expect(try await Self.deliver(cli, at: "2026-03-19T19:59:00+01:00").status == 0)
        #expect(receiver.received.isEmpty, "not before his 09:00")
        let onTime = try await Self.deliver(cli, at: "2026-03-19T20:00:20+01:00")
        #expect(onTime.status == 0, "\(onTime.stderr)")
        try await eventually("the greeting at the receiver") { receiver.received.count == 1 }
        let body = try #require(receiver.received.first)
        #expect(body.contains("Happy 41th, Tom!"), "\(body)")
        #expect(!body.contains("orchids"), "\(body)")
        #expect(try await Self.deliver(cli, at: "2026-03-19T20:10:00+01:00").status == 0)
        #expect(receiver.received.count == 1, "once")
        #expect(try await Self.greetingRows(cli).map(\.state) == [.delivered])
    }

    /// `greet skip ana` before her day: nothing is sent on it, and her next
    /// greeting planned is next year's.
    @Test func aSkippedGreetingIsNotSent() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await Self.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }
        #expect(try await cli.run("greet", "skip", "ana").status == 0)
        let pending = try #require(try await cli.json(["pending"]) as? [[String: Any]])
        #expect(pending.filter { $0["kind"] as? String == "greeting" }.map { $0["fire_at"] as? String } == ["2027-03-10T01:00:00+01:00"])

        let pass = try await Self.deliver(cli, at: "2026-03-10T01:00:20+01:00")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try await Self.greetingRows(cli).isEmpty)
        #expect(try await Self.messages(to: "ana@example.org", in: server).isEmpty)
    }

    // MARK: - The day before

    /// Ana's day-before reminder (to the owner) ends with the line that says
    /// when her greeting goes and how to skip it; Dan's (excluded) has none.
    @Test func theDayBeforeReminderSaysAGreetingGoesTomorrow() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let cli = try await Self.greeted(server: server, folder: folder)
        defer { cli.cleanUp() }
        let pending = try #require(try await cli.json(["pending"]) as? [[String: Any]])
        let dayBefore = try #require(
            pending.first { $0["person_id"] as? String == "ana" && $0["when"] as? String == "day-before" && $0["kind"] as? String == "birthday" }
        )
        let body = try #require(dayBefore["body"] as? String)
        #expect(body.hasSuffix("A greeting goes to Ana Lima tomorrow at 09:00 their time (skip: birthdays greet skip 'Ana Lima')."), "\(body)")
        let dayOf = try #require(
            pending.first { $0["person_id"] as? String == "ana" && $0["when"] as? String == "day-of" && $0["kind"] as? String == "birthday" }
        )
        #expect(!(dayOf["body"] as? String ?? "").contains("greeting"))

        // Skipped: the line goes with it.
        #expect(try await cli.run("greet", "skip", "ana").status == 0)
        let skipped = try #require(try await cli.json(["pending"]) as? [[String: Any]])
        let plain = try #require(
            skipped.first { $0["person_id"] as? String == "ana" && $0["when"] as? String == "day-before" && $0["kind"] as? String == "birthday" }
        )
        #expect(!(plain["body"] as? String ?? "").contains("greeting"), "\(plain)")
    }
}
