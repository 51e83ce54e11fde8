import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The onboarding's offer of a channel that reaches the phone or the inbox:
/// added as `channels add` adds it, tested as `channels test` tests it, and
/// said plainly whether the test was sent.
@Suite struct OnboardingChannelTests {
    /// `--email` with the real msmtp into a real SMTP server on loopback:
    /// the channel is added, the test message arrives, and onboarding says it was sent.
    @Test func anEmailChannelIsAddedAndItsTestArrives() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await server.writeMsmtpWrapper(into: folder)
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--email", "me@example.org", "--sendmail", sendmail)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Added email (me@example.org). Sending a test message through it…"), "\(result.stdout)")
        #expect(result.stdout.contains("\nemail: sent. It was accepted for delivery"), "\(result.stdout)")
        // A provisional permission holds back the desktop only: the channel delivers, and onboarding says so.
        #expect(result.stdout.contains("Notifications are on: reminders go through the channels you added"), "\(result.stdout)")
        try await eventually("the test message in the mailbox") { server.messages().count == 1 }
        let message = try await PythonMail.parse(file: try #require(server.messages().first))
        // The Subject is the sample's text, as a reminder's names the person.
        #expect(message.values("Subject") == ["This is how your birthday reminders will look."], "\(message.headers)")
        #expect(message.to?.address == "me@example.org")

        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).first { $0["name"] as? String == "email" }
        #expect(listed?["target"] as? String == "me@example.org")
        #expect(listed?["last_success"] as? String != nil, "the test is recorded as channels test records it: \(String(describing: listed))")
    }

    /// A sendmail that answers 69 (EX_UNAVAILABLE): the test failed, onboarding
    /// says so and how to retry or remove, the channel stays, and onboarding goes on.
    @Test func aFailedTestSaysWhyAndKeepsTheChannel() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await folder.writeProgram(
            "sendmail",
            "#!/bin/sh\ncat > /dev/null\necho 'sendmail: 451 mailbox busy, try later' >&2\nexit 69\n"
        )
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--email", "me@example.org", "--sendmail", sendmail)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\nemail: the test failed: "), "\(result.stdout)")
        #expect(result.stdout.contains("451 mailbox busy"), "the sendmail's words: \(result.stdout)")
        #expect(result.stdout.contains("try again with birthdays channels test email, or remove it with birthdays channels remove email"))
        #expect(!result.stdout.contains("email: sent."))
        #expect(result.stdout.contains("Sending a test notification…"), "onboarding goes on")

        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).first { $0["name"] as? String == "email" }
        #expect(listed != nil, "the channel stays")
        // A failed test is not tried again and leaves the channel's state as it was.
        #expect(listed?["last_error"] is NSNull, "\(String(describing: listed))")
        #expect(listed?["state"] as? String == "ok", "\(String(describing: listed))")
    }

    /// An address that already has a channel (an onboarding stopped during its test, then run
    /// again) is tested through that channel: never a second channel, never every reminder twice.
    @Test func anAddressThatHasAChannelIsNotAddedTwice() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await folder.writeProgram("sendmail", "#!/bin/sh\ncat > /dev/null\nexit 0\n")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        #expect(try await cli.run("channels", "add", "email", "Me@Example.org", "--sendmail", sendmail).status == 0)

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--email", "me@example.org", "--sendmail", sendmail)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("email: sent."), "\(result.stdout)")
        let emails = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).filter { $0["kind"] as? String == "email" }
        #expect(emails.map { $0["name"] as? String } == ["email"])
    }

    /// After the channel step, onboarding mentions greeting a friend once,
    /// as something to turn on later with `birthdays greet add`: nobody is
    /// greeted and no greeting is planned. Declined notifications skip the
    /// channel step, and the mention with it.
    @Test func greetingsAreMentionedOnceAfterTheChannelsStepAndNeverTurnedOn() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await folder.writeProgram("sendmail", "#!/bin/sh\ncat > /dev/null\nexit 0\n")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--email", "me@example.org", "--sendmail", sendmail)
        #expect(result.status == 0, "\(result.stderr)")
        let mention =
            "Later, if you like: birthdays can also send a friend the greeting itself, on their birthday at 09:00 their time, "
            + "through your e-mail. It is off for everyone; turn it on for one person with: birthdays greet add PERSON\n"
        #expect(result.stdout.occurrences(of: mention) == 1, "\(result.stdout)")
        #expect(result.stdout.occurrences(of: "birthdays greet") == 1, "\(result.stdout)")
        let channel = try #require(result.stdout.range(of: "email: sent."), "\(result.stdout)")
        let greeting = try #require(result.stdout.range(of: mention))
        #expect(channel.upperBound <= greeting.lowerBound, "after the channel step: \(result.stdout)")
        #expect(try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout).isEmpty, "nobody greeted")
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        #expect(!pending.isEmpty && !pending.contains { $0["kind"] as? String == "greeting" }, "\(pending)")

        let declined = try CLIProcess()
        defer { declined.cleanUp() }
        let without = try await declined.run("onboard", "--no-contacts", "--no-notifications")
        #expect(without.status == 0, "\(without.stderr)")
        #expect(!without.stdout.contains("birthdays greet"), "\(without.stdout)")
    }

    /// Declined notifications skip the channel step: `--email` is not used, and it says so.
    @Test func anEmailThatTheFlowDidNotUseIsNamed() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("onboard", "--no-contacts", "--no-notifications", "--email", "me@example.org")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--email was not used"), "\(result.stderr)")
        #expect(result.stderr.contains("birthdays channels add email me@example.org"), "\(result.stderr)")
        #expect(try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).allSatisfy { $0["kind"] as? String != "email" })
    }

    /// `--email` is checked as `channels add email` checks it: a usage error, nothing stored.
    @Test func aBadAddressIsAUsageError() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--email", "not an address")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("'not an address' is not an e-mail address"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "nothing stored")
    }
}

/// The channel offer on a terminal.
@Suite(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed; the pseudo-terminal onboarding tests need it"))
struct OnboardingChannelTerminalTests {
    /// Up to the permission; returns the terminal.
    private func allow(_ cli: CLIProcess, _ arguments: [String]) async throws -> TerminalSession {
        let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts"] + arguments)
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        try await terminal.waitFor("[M]aybe later")
        try await terminal.type("e")
        try await terminal.waitFor("[D]on't allow")
        try await terminal.type("a")
        return terminal
    }

    /// E-mail chosen, a wrong address asked again, then the test goes
    /// through a sendmail that keeps the message: "sent".
    @Test func anEmailChannelIsOfferedCheckedAndTested() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let outbox = cli.path("outbox.eml")
        let sendmail = try cli.write("sendmail", "#!/bin/sh\ncat > '\(outbox)'\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sendmail)

        let terminal = try await allow(cli, ["--sendmail", sendmail])
        let offer = try await terminal.waitFor("[E]-mail   [N]tfy   [S]kip")
        #expect(offer.contains("Reminders on Your Phone and in Your Inbox"))
        #expect(offer.shows("Apprise: birthdays channels add apprise URL"))
        try await terminal.type("x")
        try await terminal.waitFor("Please type one of E, N, S.")
        try await terminal.type("e")
        try await terminal.waitFor("Your e-mail address")
        try await terminal.type("ada at example")
        try await terminal.waitForUnwrapped("Could not add it: 'ada at example' is not an e-mail address")
        try await terminal.type("ada@example.org")
        let sent = try await terminal.waitFor("email: sent.")
        #expect(sent.shows("Added email (ada@example.org). Sending a test message through it…"))
        try await terminal.waitFor("[N]ot now")
        try await terminal.type("n")
        try await terminal.waitFor("[exit 0]")

        let message = try String(contentsOfFile: outbox, encoding: .utf8)
        #expect(message.contains("To: ada@example.org"), "\(message)")
        #expect(message.contains("Subject: This is how your birthday reminders will look.\r\n"), "\(message)")
        let names = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).compactMap { $0["name"] as? String }
        #expect(names.contains("email"))
    }

    /// ntfy chosen: the URL goes into its 0600 file, the screen shows it
    /// only where it was typed (masked after), and the test reaches the
    /// server (a loopback one answering as ntfy does: PushChannelTests).
    @Test func anNtfyChannelKeepsItsTopicSecretAndIsTested() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let server = try await PushChannelTests.PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { server.stop() }
        let topic = PushChannelTests.topic

        let terminal = try await allow(cli, [])
        try await terminal.waitFor("[E]-mail   [N]tfy   [S]kip")
        try await terminal.type("n")
        try await terminal.waitFor("The ntfy server and topic")
        try await terminal.type("\(server.server)/\(topic)")
        let sent = try await terminal.waitFor("ntfy: sent.")
        try await terminal.waitFor("[N]ot now")
        try await terminal.type("n")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(sent.shows("Added ntfy (\(server.server)/"))
        #expect(done.occurrences(of: topic) == 1, "only as typed: \(done)")

        let requests = server.requests
        #expect(requests.count == 1)
        let body = try #require((requests.first?["body"] as? String).flatMap { try? CLIProcess.object($0) })
        #expect(body["topic"] as? String == topic)
        let file = cli.secretsFolder + "/ntfy.ntfy"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "\(server.server)/\(topic)\n")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let listed = try await cli.run("channels", "list", "--json")
        #expect(listed.stdout.contains("\"ntfy\""))
        #expect(!listed.stdout.contains(topic))
    }

    /// "Skip" adds nothing and goes on to keeping the daemon running.
    @Test func declinedAddsNothing() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let terminal = try await allow(cli, [])
        try await terminal.waitFor("[E]-mail   [N]tfy   [S]kip")
        try await terminal.type("s")
        try await terminal.waitFor("[N]ot now")
        try await terminal.type("n")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(!done.contains("Added "))
        let names = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).compactMap { $0["name"] as? String }
        #expect(names.sorted() == ["command", "desktop", "log"], "\(names)")
    }

    /// `--no-channels`: from the permission straight to keeping the daemon running.
    @Test func noChannelsAsksNothing() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await Seed.twoPeople(cli)
        let terminal = try await allow(cli, ["--no-channels"])
        let offer = try await terminal.waitFor("[N]ot now")
        #expect(!offer.contains("[E]-mail"))
        #expect(!offer.contains("Reminders on Your Phone"))
        try await terminal.type("n")
        try await terminal.waitFor("[exit 0]")
    }
}

/// Where no systemd user manager runs, onboarding offers to start the
/// daemon now, in the background, and checks that it runs.
@Suite struct OnboardingDetachedDaemonTests {
    /// A `systemctl` that finds no user manager, as on a machine without a login session.
    static func withoutSystemd(_ cli: inout CLIProcess) throws {
        let folder = cli.path("no-manager")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n".write(
            toFile: folder + "/systemctl",
            atomically: true,
            encoding: .utf8
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/systemctl")
        cli.extraEnvironment["PATH"] = folder + ":/usr/bin:/bin"
    }

    /// The daemon's pid as `status --json` reports it, or `nil`.
    /// Kills `pid` if it is still a detached `birthdays run` (a session of its
    /// own running `run`): once the daemon has ended, its pid may already be
    /// another program's, which a plain kill would hit.
    static func killIfStillTheDaemon(_ pid: Int) {
        guard getsid(pid_t(pid)) == pid_t(pid),
            let arguments = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0"),
            arguments.dropFirst().first == "run"
        else { return }
        kill(pid_t(pid), SIGKILL)
    }

    static func runningPID(_ cli: CLIProcess) async throws -> Int? {
        let status = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        let daemon = try #require(status["daemon"] as? [String: Any])
        return daemon["running"] as? Bool == true ? daemon["pid"] as? Int : nil
    }

    /// `--service` without a systemd user manager: started in a session of
    /// its own, standard input from /dev/null, logging next to the database;
    /// it holds the daemon lock after onboarding has exited, and onboarding
    /// says for how long it runs and prints the crontab line in full.
    @Test func theDaemonStartsDetachedAndHoldsTheLock() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Self.withoutSystemd(&cli)
        try await Seed.twoPeople(cli)

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--service")
        #expect(result.status == 0, "\(result.stderr)")
        let pid = try #require(try await Self.runningPID(cli), "status reports the daemon running: \(result.stdout)")
        defer { Self.killIfStillTheDaemon(pid) }
        let log = cli.path("birthdays-run.log")
        #expect(result.stdout.contains("birthdays run is running in the background (pid \(pid), log \(log))"), "\(result.stdout)")
        #expect(result.stdout.contains("It runs until you log out or the machine restarts."))
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
        #expect(result.stdout.contains("\n  @reboot \(binary) run --database \(cli.databasePath) >>\(log) 2>&1\n"), "\(result.stdout)")
        #expect(result.stdout.contains("You're all set."))
        #expect(!result.stdout.contains("Almost there"))

        #expect(getsid(pid_t(pid)) == pid_t(pid), "a session of its own")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0") == "/dev/null")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1") == log)
        #expect(FileManager.default.fileExists(atPath: log))

        kill(pid_t(pid), SIGTERM)
        try await eventually("the daemon to stop") { try await Self.runningPID(cli) == nil }
    }

    /// A user's daemon is started by the user's name (`run --user NAME`, the
    /// users root in its environment), and so is the crontab line: once the
    /// user is removed, it stops instead of making them again.
    @Test func aUsersDaemonIsStartedByName() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Self.withoutSystemd(&cli)
        let root = cli.path("users")
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = root
        #expect(try await cli.run("users", "add", "alice").status == 0)
        cli.extraEnvironment["BIRTHDAYS_USER"] = "alice"
        cli.extraEnvironment["BIRTHDAYS_DATABASE"] = ""

        let result = try await cli.run("onboard", "--no-contacts", "--enable-notifications", "--service")
        #expect(result.status == 0, "\(result.stderr)")
        let pid = try #require(try await Self.runningPID(cli), "status reports the daemon running: \(result.stdout)")
        defer { Self.killIfStillTheDaemon(pid) }
        let binary = URL(fileURLWithPath: try CLIProcess.binary()).resolvingSymlinksInPath().path
        let arguments = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0").map(String.init)
        #expect(arguments == [binary, "run", "--user", "alice"])
        let environment = try String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8).split(separator: "\0")
        #expect(environment.contains("BIRTHDAYS_USERS_DIR=\(root)"))
        let log = root + "/alice/birthdays-run.log"
        #expect(result.stdout.contains("\n  @reboot BIRTHDAYS_USERS_DIR=\(root) \(binary) run --user alice >>\(log) 2>&1\n"), "\(result.stdout)")
        kill(pid_t(pid), SIGTERM)
        try await eventually("the daemon to stop") { try await Self.runningPID(cli) == nil }
    }

    /// On a terminal, "[S]tart it now" starts the daemon, and status sees it hold the lock.
    @Test(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed"))
    func theOfferOnATerminalStartsTheDaemon() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Self.withoutSystemd(&cli)
        try await Seed.twoPeople(cli)
        let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts", "--enable-notifications", "--no-channels"])
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        try await terminal.waitFor("[S]tart it now   [N]ot now")
        try await terminal.type("s")
        let done = try await terminal.waitFor("[exit 0]")
        let pid = try #require(try await Self.runningPID(cli), "status reports the daemon running: \(done)")
        defer { Self.killIfStillTheDaemon(pid) }
        #expect(done.shows("birthdays run is running in the background (pid \(pid),"), "\(done)")
        #expect(done.contains("@reboot "))
        #expect(done.contains("You're all set."))
        // The terminal's session ended with onboarding; the daemon has a session of its own.
        #expect(getsid(pid_t(pid)) == pid_t(pid))
        kill(pid_t(pid), SIGTERM)
        try await eventually("the daemon to stop") { try await Self.runningPID(cli) == nil }
    }

    /// On a terminal, the offer says what it will do; "[N]ot now" starts nothing.
    @Test(.enabled(if: TerminalSession.tmuxAvailable, "tmux is not installed"))
    func theOfferOnATerminalCanBeDeclined() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        try Self.withoutSystemd(&cli)
        try await Seed.twoPeople(cli)
        let terminal = try await TerminalSession(cli, ["onboard", "--no-contacts", "--enable-notifications", "--no-channels"])
        try await terminal.waitFor("Press Enter to continue.")
        try await terminal.type("")
        let offer = try await terminal.waitFor("[S]tart it now   [N]ot now")
        #expect(offer.shows("No systemd user manager runs here, so no service can be installed."))
        #expect(offer.shows("it then runs until you log out or the machine restarts"))
        try await terminal.type("n")
        let done = try await terminal.waitFor("[exit 0]")
        #expect(done.contains("Almost there"))
        #expect(try await Self.runningPID(cli) == nil)
    }
}

extension String {
    /// Whether this terminal screen shows `text`, wherever the terminal
    /// wrapped its lines (a wrap may also drop the space it broke at), so
    /// white space is left out on both sides.
    fileprivate func shows(_ text: String) -> Bool {
        filter { !$0.isWhitespace }.contains(text.filter { !$0.isWhitespace })
    }
}

extension TerminalSession {
    /// Polls the screen until, its wrapped lines joined, it contains `text`.
    fileprivate func waitForUnwrapped(_ text: String, seconds: Int = 90) async throws {
        var last = ""
        do {
            try await eventually("\"\(text)\" on the screen", seconds: seconds) {
                last = try await screen()
                return last.shows(text)
            }
        } catch {
            throw TestSupportError("\(error); the screen was:\n\(last)")
        }
    }
}
