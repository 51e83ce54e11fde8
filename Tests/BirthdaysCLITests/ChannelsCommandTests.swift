import Foundation
import TestSupport
import Testing

/// `birthdays channels` with the real binary and the real `apprise` (Debian's)
/// posting to a loopback HTTP server of the test's own (`json://`): adding,
/// listing with the secret masked, testing, removing, bad arguments, and a
/// reminder that reaches the added channel, retried alone when only it failed.
@Suite(.timeLimit(.minutes(10)))
struct ChannelsCommandTests {
    /// A loopback HTTP server that records each POST body as a line and answers
    /// with the status in its control file (200 when there is none).
    final class Receiver: Sendable {
        let process: TestProcess
        let port: Int
        let log: String
        let control: String

        init(in cli: CLIProcess) async throws {
            log = cli.path("received.log")
            control = cli.path("status.txt")
            let script = """
                import http.server, os, sys
                log, control = sys.argv[1], sys.argv[2]
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_POST(self):
                        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
                        code = int(open(control).read().strip()) if os.path.exists(control) else 200
                        with open(log, 'ab') as f:
                            f.write(body.replace(b'\\n', b' ') + b'\\n')
                        self.send_response(code)
                        self.send_header('Content-Length', '0')
                        self.end_headers()
                    def log_message(self, *args):
                        pass
                server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
                print(server.server_port, flush=True)
                server.serve_forever()
                """
            let started = try TestProcess(["/usr/bin/python3", "-c", script, log, control], environment: ["PATH": "/usr/bin:/bin"], name: "receiver")
            process = started
            port = try #require(Int(try await started.firstLine()))
        }

        var url: String { "json://127.0.0.1:\(port)/" }

        func answer(_ status: Int) throws { try Data("\(status)\n".utf8).write(to: URL(fileURLWithPath: control)) }

        /// The bodies received so far.
        var received: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func stop() { process.stop(signal: SIGKILL) }
    }

    static var appriseInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/apprise") }

    @Test func anAppriseChannelIsAddedListedWithItsSecretMaskedTestedAndRemoved() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("grace", "Grace Hopper", "1906-12-09")])
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }

        let added = try await cli.run("channels", "add", "apprise", receiver.url, "--name", "phone")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!added.stdout.contains(String(receiver.port)), "the URL is not echoed: \(added.stdout)")
        let secret = cli.secretsFolder + "/phone.apprise"
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == receiver.url + "\n")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: secret)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let database =
            try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))) ?? Data())
        #expect(database.range(of: Data("127.0.0.1:\(receiver.port)".utf8)) == nil, "the URL never reaches the database")

        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        let phone = try #require(listed.first { $0["name"] as? String == "phone" })
        #expect(phone["kind"] as? String == "apprise")
        #expect(phone["target"] as? String == "json://…")
        #expect(phone["state"] as? String == "ok")
        #expect(phone["last_success"] is NSNull)
        #expect(listed.map { $0["name"] as? String } == ["desktop", "command", "log", "phone"])
        let text = try await cli.run("channels")
        #expect(text.stdout.contains("phone") && text.stdout.contains("json://…") && !text.stdout.contains(String(receiver.port)))

        let tested = try await cli.run("channels", "test", "phone")
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("phone: OK"), "\(tested.stdout)")
        #expect(receiver.received.count == 1)
        let after = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        #expect(after.first { $0["name"] as? String == "phone" }?["last_success"] is String)

        let removed = try await cli.run("channels", "remove", "phone")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: secret))
        let gone = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        #expect(!gone.contains { $0["name"] as? String == "phone" })
    }

    @Test(arguments: [
        ["channels", "add", "fax", "+44 20 7946 0000"],
        ["channels", "add", "email", "not-an-address"],
        ["channels", "add", "email", "ada@example.org", "--name", "desktop"],
        ["channels", "add", "email", "ada@example.org", "--name", "Work Mail"],
        ["channels", "add", "email", "ada@example.org", "--from", "nobody"],
        ["channels", "add", "email", "ada@example.org", "--sendmail", "msmtp"],
        ["channels", "add", "apprise", "not a url"],
        ["channels", "remove", "desktop"],
        ["notifications", "test", "--channel", "Not A Channel"],
    ])
    func aBadArgumentIsAUsageErrorAndStoresNothing(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("grace", "Grace Hopper", "1906-12-09")])
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        #expect(listed.count == 3, "only the built-in channels")
    }

    /// Neither is a bad argument (exit 64): each depends on what is there
    /// already, the installed apprise or the stored channels (exit 1).
    @Test func aURLAppriseDoesNotUnderstandOrATakenNameFailsAndLeavesNothing() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("grace", "Grace Hopper", "1906-12-09")])
        let bogus = try await cli.run("channels", "add", "apprise", "bogus://x")
        #expect(bogus.status == 1)
        #expect(bogus.stderr.contains("apprise does not understand this URL"), "\(bogus.stderr)")
        let folder = cli.secretsFolder
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] == [], "no secret file is left")

        #expect(try await cli.run("channels", "add", "email", "ada@example.org").status == 0)
        let taken = try await cli.run("channels", "add", "email", "grace@example.org")
        #expect(taken.status == 1)
        #expect(taken.stderr.contains("a channel named 'email' exists"))
        #expect(try await cli.run("channels", "add", "email", "grace@example.org", "--name", "work").status == 0)
        let missing = try await cli.run("channels", "remove", "nosuch")
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: there is no channel named 'nosuch'; see 'birthdays channels list'\n")
    }

    /// Ada's reminder goes to the log and to the added channel; the channel's
    /// server fails, so only it is retried, and the log line is never written twice.
    @Test func aFailedAddedChannelIsRetriedAloneUntilItDelivers() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "phone").status == 0)
        try receiver.answer(500)

        let first = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(first.stdout.contains("reminder delivered"), "the log took it: \(first.stdout)")
        #expect(try await cli.ledgerStates() == ["retrying"])
        #expect(receiver.received.count == 1)
        let failing = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).first { $0["name"] as? String == "phone" }
        #expect(failing?["state"] as? String == "retrying")
        #expect((failing?["last_error"] as? String)?.contains("apprise exited with status 1") == true, "\(String(describing: failing))")

        try receiver.answer(200)
        let second = try await cli.run(at: "2026-03-10T09:01:00+01:00", "deliver", "--once")
        #expect(!second.stdout.contains("reminder delivered"), "the log is not sent twice")
        #expect(try await cli.ledgerStates() == ["delivered"])
        #expect(receiver.received.count == 2)
        #expect(receiver.received.last?.contains("Ada Lovelace") == true, "\(receiver.received)")
        let third = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(third.status == 0)
        #expect(receiver.received.count == 2, "delivered once")
    }

    /// A channel whose URL apprise no longer understands refuses for good: the
    /// reminder is not retried through it, and `status` says so and how to check it.
    @Test func aRefusingChannelIsNotRetriedAndStatusSaysSo() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "phone").status == 0)
        // Edited by hand into something apprise cannot use.
        let secret = URL(fileURLWithPath: cli.secretsFolder + "/phone.apprise")
        try Data("bogus://nowhere\n".utf8).write(to: secret)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.stdout.contains("reminder delivered"), "the log took it")
        #expect(try await cli.ledgerStates() == ["delivered"], "the log took it; the refusal is not retried")
        #expect(receiver.received.isEmpty)
        let status = try await cli.run(at: "2026-03-10T09:01:00+01:00", "status")
        #expect(status.stdout.contains("Channel phone refused its last reminder"), "\(status.stdout)")
        #expect(status.stdout.contains("birthdays channels test phone"))
        #expect(!status.stdout.contains("nowhere"), "no part of the URL")
        let json = try CLIProcess.object(try await cli.run(at: "2026-03-10T09:01:00+01:00", "status", "--json").stdout)
        let problems = try #require(json["channel_problems"] as? [[String: Any]])
        #expect(problems.map { $0["name"] as? String } == ["phone"])
        #expect(problems.first?["state"] as? String == "refused")
    }

    /// Ada's reminder by e-mail through the real msmtp into a real SMTP server
    /// (aiosmtpd, STARTTLS): once, with her name in the Subject; a sendmail
    /// that answers 65 (EX_DATAERR) is a refusal, never retried.
    @Test func aReminderArrivesByEmailOnceAndARefusalIsNotRetried() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await server.writeMsmtpWrapper(into: folder)
        let added = try await cli.run(
            "channels",
            "add",
            "email",
            "me@example.org",
            "--from",
            "Birthdays <birthdays@example.org>",
            "--sendmail",
            sendmail
        )
        #expect(added.status == 0, "\(added.stderr)")

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try await cli.ledgerStates() == ["delivered"])
        try await eventually("the message in the mailbox") { server.messages().count == 1 }
        let message = try await PythonMail.parse(file: try #require(server.messages().first))
        #expect(message.defects.isEmpty)
        #expect(message.values("Subject") == ["Ada Lovelace turns 36 today!"], "\(message.headers)")
        #expect(message.to?.address == "me@example.org")
        #expect(message.from?.address == "birthdays@example.org")
        #expect(!pass.stderr.contains("Ada"), "no name in the log")
        _ = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(server.messages().count == 1, "sent once")

        // A sendmail that refuses the message for good, as the only channel: the reminder failed.
        let refusing = try await folder.writeProgram("refusing-sendmail", "#!/bin/sh\necho 'sendmail: 554 message refused' >&2\nexit 65\n")
        let tomorrow = try await CLIProcess.withAda(settings: [("channels", "none")], enableNotifications: true)
        defer { tomorrow.cleanUp() }
        #expect(try await tomorrow.run("channels", "add", "email", "me@example.org", "--sendmail", refusing).status == 0)
        _ = try await tomorrow.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(try await tomorrow.ledgerStates() == ["failed"])
        let listed = try CLIProcess.array(try await tomorrow.run("channels", "list", "--json").stdout).first { $0["name"] as? String == "email" }
        #expect(listed?["state"] as? String == "refused")
        #expect((listed?["last_error"] as? String)?.contains("554 message refused") == true, "\(String(describing: listed))")
    }
}
