import Foundation
import TestSupport
import Testing

/// The weekly digest from the command line to the channels: `birthdays
/// digest` shows it, `deliver` sends it once through every channel, by
/// e-mail (the real msmtp into a real SMTP server), Apprise (the real CLI)
/// and the command channel.
@Suite struct DigestCommandTests {
    /// Ada (today, Tuesday 10 March 2026) and Zoë (Thursday) in the week
    /// from the default now (08:00 Europe/Berlin); Cy after it. Only the
    /// day-of reminders and a weekly digest on Tuesdays.
    static func cli(channels: String) async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("zoe", "Zoë Ñúñez", "1989-03-12"), ("cy", "Cy", "1970-03-20")])
        try await cli.set("reminders", "0")
        try await cli.set("digest", "weekly")
        try await cli.set("digest-day", "tue")
        try await cli.set("channels", channels)
        try await cli.enableNotifications()
        return cli
    }

    @Test func theDigestCommandShowsTheNextDigest() async throws {
        let cli = try await Self.cli(channels: "log")
        defer { cli.cleanUp() }
        let shown = try await cli.run("digest")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout == """
                Next digest on 2026-03-10 09:00, through every channel:

                Birthdays in the week ahead: Ada Lovelace, Zoë Ñúñez

                Tue 10 Mar (today): Ada Lovelace, birthday, turns 36
                Thu 12 Mar: Zoë Ñúñez, birthday, turns 37

                """
        )
        let json = try CLIProcess.object(try await cli.run("digest", "--json").stdout)
        #expect(json["setting"] as? String == "weekly")
        #expect(json["first"] as? String == "2026-03-10")
        #expect(json["last"] as? String == "2026-03-16")
        #expect(json["fire_at"] as? String == "2026-03-10T09:00:00+01:00")
        #expect(json["sent"] as? Bool == true)
        #expect((json["events"] as? [[String: Any]])?.map { $0["id"] as? String } == ["ada", "zoe"])
        // Ten days reach Cy.
        let longer = try CLIProcess.object(try await cli.run("digest", "--days", "11", "--json").stdout)
        #expect((longer["events"] as? [[String: Any]])?.map { $0["id"] as? String } == ["ada", "zoe", "cy"])
        #expect(longer["title"] as? String == "Birthdays from Tue 10 Mar to Fri 20 Mar: Ada Lovelace, Zoë Ñúñez, Cy")
        // Pending lists it with the day's reminders.
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        #expect(pending.filter { $0["kind"] as? String == "digest" }.map { $0["id"] as? String } == ["digest-weekly"])
    }

    @Test func offItPreviewsAndAnEmptyWeekSaysSo() async throws {
        let cli = try CLIProcess(now: "2026-03-20T12:00:00+01:00")
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let shown = try await cli.run("digest")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("The digest is off (birthdays settings set digest weekly turns it on)."))
        #expect(shown.stdout.contains("No birthdays or anniversaries from Mon 23 Mar to Sun 29 Mar"), "\(shown.stdout)")
        let json = try CLIProcess.object(try await cli.run("digest", "--json").stdout)
        #expect(json["sent"] as? Bool == false)
        #expect(json["title"] is NSNull)
    }

    @Test(arguments: [
        ["digest", "--days", "0"],
        ["digest", "--days", "367"],
        ["settings", "set", "digest", "daily"],
        ["settings", "set", "digest-day", "someday"],
    ])
    func badValuesAreUsageErrors(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func theDigestArrivesByEmailOnceBesideTheDaysReminder() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli(channels: "log")
        defer { cli.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await server.writeMsmtpWrapper(into: folder)
        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", sendmail).status == 0)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(pass.stdout.contains("kind=digest"), "\(pass.stdout)")
        #expect(try await cli.ledgerStates() == ["delivered", "delivered"])
        try await eventually("both messages in the mailbox") { server.messages().count == 2 }
        var subjects: [String] = []
        var digestBody = ""
        for file in server.messages() {
            let message = try await PythonMail.parse(file: file)
            #expect(message.defects.isEmpty)
            subjects += message.values("Subject")
            if message.values("Subject").first?.hasPrefix("Birthdays in the week ahead") == true { digestBody = message.body }
        }
        #expect(subjects.sorted() == ["Ada Lovelace turns 36 today!", "Birthdays in the week ahead: Ada Lovelace, Zoë Ñúñez"])
        #expect(digestBody.contains("Tue 10 Mar (today): Ada Lovelace, birthday, turns 36\n"), "\(digestBody)")
        #expect(digestBody.contains("Thu 12 Mar: Zoë Ñúñez, birthday, turns 37\n"), "\(digestBody)")
        #expect(!pass.stderr.contains("Ada") && !pass.stdout.contains("Ada"), "no name in the log")

        // Later passes and reschedules never send it again.
        _ = try await cli.run(at: "2026-03-10T09:05:00+01:00", "reschedule")
        _ = try await cli.run(at: "2026-03-10T09:06:00+01:00", "deliver", "--once")
        #expect(server.messages().count == 2, "sent once")
        let next = try CLIProcess.object(try await cli.run(at: "2026-03-10T09:06:00+01:00", "digest", "--json").stdout)
        #expect(next["first"] as? String == "2026-03-17", "the next one is next week's")
    }

    @Test func theDigestReachesTheCommandAndAppriseAsLines() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.cli(channels: "command")
        defer { cli.cleanUp() }
        let record = cli.path("command.txt")
        try await cli.set("command", "printf '%s|%s|%s\\n' \"$BIRTHDAYS_KIND\" \"$BIRTHDAYS_PERSON_ID\" \"$BIRTHDAYS_BODY\" >> '\(record)'")
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "phone").status == 0)
        // A note stays home: the command may forward anywhere, so it gets notes only under notes-on-channels.
        #expect(try await cli.run("note", "ada", "likes orchids").status == 0)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        #expect(!recorded.contains("orchids"), "\(recorded)")
        let lines = recorded.split(separator: "\n", omittingEmptySubsequences: false)
        // Ada's day-of reminder on one line; the digest with its kind, no person, and its two lines.
        #expect(lines.contains("birthday|ada|Ada Lovelace turns 36 today!"), "\(lines)")
        #expect(lines.contains("digest||Tue 10 Mar (today): Ada Lovelace, birthday, turns 36"), "\(lines)")
        #expect(lines.contains("Thu 12 Mar: Zoë Ñúñez, birthday, turns 37"), "\(lines)")
        let posted = try receiver.received.map { try CLIProcess.object($0) }
        // The title as apprise's title, the lines as its body.
        let digest = try #require(posted.first { $0["title"] as? String == "Birthdays in the week ahead: Ada Lovelace, Zoë Ñúñez" }, "\(posted)")
        let message = try #require(digest["message"] as? String)
        #expect(message.hasPrefix("Tue 10 Mar (today): Ada Lovelace, birthday, turns 36\n"), "\(message)")
        #expect(message.hasSuffix("\nThu 12 Mar: Zoë Ñúñez, birthday, turns 37"), "\(message)")
        #expect(receiver.received.count == 2)
    }
}
