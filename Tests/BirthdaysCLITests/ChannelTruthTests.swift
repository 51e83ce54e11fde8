import Foundation
import TestSupport
import Testing

/// What a person sees of the added channels (issue 31), through the real
/// binary: a trial at pretend time delivers through ntfy and Apprise as
/// `birthdays run` would; a missing secret file is named, never a reason to
/// remove the channel; every e-mail has a Message-ID of its own and the
/// sender msmtp's configuration gives; Apprise gets the title; a failed test
/// says it failed and leaves the channel's state alone.
@Suite(.timeLimit(.minutes(10)))
struct ChannelTruthTests {
    /// `cli` at pretend time without `BIRTHDAYS_NOW_WRITES`: a trial on a throwaway copy, made in `tmp`.
    static func trial(of cli: CLIProcess) throws -> CLIProcess {
        var trial = cli
        trial.extraEnvironment["BIRTHDAYS_NOW_WRITES"] = ""
        trial.extraEnvironment["TMPDIR"] = cli.path("tmp")
        try FileManager.default.createDirectory(atPath: cli.path("tmp"), withIntermediateDirectories: true)
        return trial
    }

    @Test func aTrialDeliversThroughNtfyAndAppriseAndRemovesItsCopyOfTheirSecrets() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let push = try await PushChannelTests.PushServer(in: cli, ntfyToken: nil, gotifyToken: "unused")
        defer { push.stop() }
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "ntfy", "\(push.server)/\(PushChannelTests.topic)", "--name", "phone").status == 0)
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "chat").status == 0)

        let trial = try Self.trial(of: cli)
        let pass = try await trial.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(push.requests.count == 1, "ntfy got the trial's reminder: \(pass.stdout)\(pass.stderr)")
        #expect(receiver.received.count == 1, "apprise got the trial's reminder: \(pass.stdout)\(pass.stderr)")
        // The copy (and its secret files) is gone; the real ledger never saw the trial.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("tmp")).isEmpty)
        #expect(try await cli.ledgerStates().isEmpty)

        // Apprise gets the reminder's title as its title, the text as its body.
        let posted = try CLIProcess.object(try #require(receiver.received.first))
        #expect(posted["title"] as? String == "Ada Lovelace's Birthday!", "\(posted)")
        #expect(posted["message"] as? String == "Ada Lovelace turns 36 today!", "\(posted)")
    }

    @Test func aMissingSecretFileIsNamedWithHowToWriteItAgain() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "ntfy", "http://127.0.0.1:9/\(PushChannelTests.topic)", "--name", "phone").status == 0)
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "chat").status == 0)
        let folder = cli.secretsFolder
        try FileManager.default.removeItem(atPath: folder + "/phone.ntfy")
        try FileManager.default.removeItem(atPath: folder + "/chat.apprise")

        let tested = try await cli.run("channels", "test", "phone", "chat")
        #expect(tested.status == 1)
        let qr = try await cli.run("channels", "qr", "phone")
        let said = tested.stdout + tested.stderr + qr.stdout + qr.stderr
        #expect(said.contains(folder + "/phone.ntfy") && said.contains(folder + "/chat.apprise"), "\(said)")
        #expect(said.contains("https://ntfy.sh/TOPIC") && said.contains("chmod 600"), "\(said)")
        for advice in ["add it again", "remove the channel", "channels remove"] {
            #expect(!said.contains(advice), "no advice to destroy the channel: \(said)")
        }
    }

    @Test func aFailedTestSaysItFailedAndLeavesTheChannelsStateAlone() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "chat").status == 0)
        try receiver.answer(500)

        let tested = try await cli.run("channels", "test", "chat")
        #expect(tested.status == 1)
        #expect(tested.stdout.contains("chat: FAIL: it could not be delivered ("), "\(tested.stdout)")
        #expect(!tested.stdout.contains("tried again"), "nothing tries a test again: \(tested.stdout)")
        let listed = try #require(try await PushChannelTests.channel(cli, "chat"))
        #expect(listed["state"] as? String == "ok", "\(listed)")
        #expect(listed["last_error"] is NSNull, "\(listed)")

        // A test that gets through still records its success.
        try receiver.answer(200)
        #expect(try await cli.run("channels", "test", "chat").status == 0)
        #expect(try await PushChannelTests.channel(cli, "chat")?["last_success"] is String)
        let posted = try CLIProcess.object(try #require(receiver.received.last))
        #expect(posted["title"] as? String == "Birthdays test", "the test's title reaches apprise: \(posted)")
    }

    /// msmtp's account has `from sender@example.net`; the channel has no `--from`.
    @Test func everyEmailHasAMessageIDOfItsOwnAndTheSenderMsmtpIsConfiguredWith() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let configuration = try folder.write(
            "msmtprc",
            """
            account birthdays-test
            host 127.0.0.1
            port \(server.port)
            tls on
            tls_starttls on
            tls_certcheck off
            auth off
            syslog off
            from sender@example.net
            account default : birthdays-test

            """
        )
        chmod(configuration, 0o600)
        let sendmail = try await folder.writeProgram("sendmail", "#!/bin/sh\nexec \(SMTPServer.msmtp) -C '\(configuration)' \"$@\"\n")
        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--name", "mail", "--sendmail", sendmail).status == 0)

        // Two tests on one day, a trial of the reminder, and the reminder itself.
        #expect(try await cli.run("channels", "test", "mail").status == 0)
        #expect(try await cli.run("channels", "test", "mail").status == 0)
        let trial = try Self.trial(of: cli)
        #expect(try await trial.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once").status == 0)
        #expect(try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once").status == 0)
        try await eventually("four messages in the mailbox") { server.messages().count == 4 }

        var ids: Set<String> = []
        for file in server.messages() {
            let message = try await PythonMail.parse(file: file)
            #expect(message.defects.isEmpty)
            let id = try #require(message.values("Message-ID").first)
            ids.insert(id)
            #expect(message.values("From") == ["sender@example.net"], "msmtp's from, not the recipient: \(message.headers)")
            #expect(message.values("X-MailFrom") == ["sender@example.net"], "the envelope sender: \(message.headers)")
            let first = message.body.split(separator: "\n").first.map(String.init)
            #expect(first == "Birthdays test" || first == "Ada Lovelace's Birthday!", "the title first: \(message.body)")
        }
        #expect(ids.count == 4, "every message its own Message-ID: \(ids)")
    }
}
