import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays greet` with the real binary (issue 44): adding, listing,
/// skipping and removing greetings, the one-line errors, and `greet test`
/// through the real msmtp into a real SMTP server (aiosmtpd) and through
/// Debian's apprise (`json://`) into a loopback HTTP server; a greeting
/// never carries the owner's note, the person's other dates, an age unless
/// asked, or a link.
@Suite(.timeLimit(.minutes(10)))
struct GreetCommandTests {
    /// Ana in Tokyo with an e-mail address, a note-worthy anniversary and a
    /// group; Bob without an address; Dan excluded and Fay deceased in the
    /// same group; Tom elsewhere. At 1 March 2026, 12:00 in Berlin.
    static func friends() async throws -> CLIProcess {
        let cli = try CLIProcess(now: "2026-03-01T12:00:00+01:00")
        let card = { (uid: String, name: String, given: String, bday: String, extra: String) in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\nN:;\(given);;;\r\nBDAY:\(bday)\r\n\(extra)END:VCARD\r\n"
        }
        let text = [
            card("ana", "Ana Lima", "Ana", "1990-03-10", "EMAIL:ana@example.org\r\nTZ:Asia/Tokyo\r\nANNIVERSARY:2015-06-20\r\nCATEGORIES:Family\r\n"),
            card("bob", "Bob Stone", "Bob", "--07-01", "CATEGORIES:Family\r\n"),
            card("dan", "Dan Roe", "Dan", "1980-04-02", "EMAIL:dan@example.org\r\nCATEGORIES:Family\r\n"),
            card("fay", "Fay Moss", "Fay", "1950-05-03", "EMAIL:fay@example.org\r\nDEATHDATE:2020-01-01\r\nCATEGORIES:Family\r\n"),
            card("tom", "Tom Hale", "Tom", "1985-03-20", "TZ:Pacific/Kiritimati\r\n"),
        ].joined()
        let imported = try await cli.run("import", try cli.write("friends.vcf", text))
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(try await cli.run("exclude", "dan").status == 0)
        #expect(try await cli.run("note", "ana", "likes orchids").status == 0)
        try await cli.set("notes-on-channels", "on")
        try await cli.set("contact-links", "on")
        return cli
    }

    static func greetings(_ cli: CLIProcess) async throws -> [[String: Any]] {
        try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
    }

    // MARK: - add, list, skip, remove

    @Test func aGreetingIsAddedListedInTheirZoneSkippedAndRemoved() async throws {
        let cli = try await Self.friends()
        defer { cli.cleanUp() }
        #expect(try await cli.run("greet").stdout.contains("Nobody is greeted"))

        // No e-mail channel yet: said how to add one, nothing stored.
        let noChannel = try await cli.run("greet", "add", "ana")
        #expect(noChannel.status == 1)
        #expect(noChannel.stderr.contains("there is none: add it with 'birthdays channels add email"), "\(noChannel.stderr)")
        #expect(try await Self.greetings(cli).isEmpty)

        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true").status == 0)
        let added = try await cli.run("greet", "add", "ana")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Ana Lima, next on Tue 10 Mar 2026 09:00 Tokyo their time, by e-mail to ana@example.org"), "\(added.stdout)")
        let again = try await cli.run("greet", "add", "ana", "--to", "other@example.org")
        #expect(again.status == 1)
        #expect(again.stderr.contains("Ana Lima is greeted already"), "\(again.stderr)")
        #expect(try await cli.run("greet", "add", "--group", "family", "--message", "Happy birthday, {first}! ({age})").status == 0)

        let listed = try await Self.greetings(cli)
        #expect(listed.count == 2)
        let ana = try #require(listed.first)
        #expect(ana["person"] as? String == "ana")
        #expect(ana["way"] as? String == "email")
        let anaPeople = try #require(ana["people"] as? [[String: Any]])
        #expect(anaPeople.first?["next"] as? String == "2026-03-10T09:00:00+09:00")
        #expect(anaPeople.first?["zone"] as? String == "Asia/Tokyo")
        #expect(anaPeople.first?["state"] as? String == "greeted")
        let family = try #require(listed.last?["people"] as? [[String: Any]])
        let states = Dictionary(
            uniqueKeysWithValues: family.compactMap { member in (member["id"] as? String).map { ($0, member["state"] as? String) } }
        )
        #expect(states == ["ana": "own-choice", "bob": "no-address", "dan": "excluded", "fay": "deceased"], "\(family)")
        let table = try await cli.run("greet", "list")
        #expect(table.stdout.contains("excluded: never greeted") && table.stdout.contains("deceased: never greeted"), "\(table.stdout)")

        // This year's greeting skipped: the next is 2027's.
        let skipped = try await cli.run("greet", "skip", "ana")
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stdout.contains("Skipped Ana Lima's greeting on Tue 10 Mar 2026"), "\(skipped.stdout)")
        let afterSkip = try #require((try await Self.greetings(cli)).first?["people"] as? [[String: Any]])
        #expect(afterSkip.first?["next"] as? String == "2027-03-10T09:00:00+09:00")
        #expect(afterSkip.first?["skipped_year"] as? Int == 2026)
        #expect(try await cli.run("greet", "skip", "ana").stderr.contains("skipped already"))

        #expect(try await cli.run("greet", "remove", "ana").status == 0)
        let gone = try await cli.run("greet", "remove", "ana")
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("Ana Lima is not greeted"), "\(gone.stderr)")
        #expect(try await cli.run("greet", "remove", "--group", "Family").status == 0)
        #expect(try await Self.greetings(cli).isEmpty)
    }

    /// Bad input is one line and exit 64, naming what is wrong; what the
    /// store says (excluded, deceased, greeted already) is exit 1.
    @Test(arguments: [
        (["greet", "add", "bob"], 64, "Bob Stone's card has no e-mail address; give one with --to ADDRESS, or send through Apprise with --url URL"),
        (["greet", "add", "ana", "--message", "Hi {frist}!"], 64, "--message: {frist} is not a placeholder; use {first}, {name} or {age}"),
        (["greet", "add", "ana", "--message", "Hi {first"], 64, "'{' that is never closed"),
        (["greet", "add", "ana", "--to", "a@b.example", "--url", "json://x"], 64, "not both"),
        (["greet", "add", "--group", "Family", "--to", "a@b.example"], 64, "--to and --url are for one person"),
        (["greet", "add", "ana", "--to", "not an address"], 64, "is not an e-mail address"),
        (["greet", "add", "ana", "--language", "xx"], 64, "is not a language birthdays writes in"),
        (["greet", "add", "ana", "--url", "not a url"], 64, "the Apprise URL must look like SCHEME://"),
        (["greet", "add", "bob", "--to", "bob@example.org", "--message", "{age} today"], 64, "has no year; leave {age} out"),
        (["greet", "add"], 64, "give a PERSON or --group GROUP"),
        (["greet", "add", "dan"], 1, "Dan Roe is excluded, and an excluded person is never greeted"),
        (["greet", "add", "fay"], 1, "Fay Moss has died; a deceased person is never greeted"),
        (["greet", "skip", "tom"], 1, "Tom Hale is not greeted"),
        (["greet", "test", "tom"], 1, "Tom Hale is not greeted; add the greeting first"),
    ])
    func badInputIsOneLine(arguments: [String], status: Int32, words: String) async throws {
        let cli = try await Self.friends()
        defer { cli.cleanUp() }
        #expect(try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true").status == 0)
        let result = try await cli.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.contains(words) == true, "\(arguments): \(result.stderr)")
        #expect(try await Self.greetings(cli).isEmpty, "nothing stored")
    }

    // MARK: - greet test

    /// Ana's greeting by e-mail through the real msmtp into aiosmtpd: To the
    /// owner's own address (the channel's), From the channel's --from, the
    /// subject and one warm sentence with her first name; no note (though
    /// notes-on-channels is on), no age, no anniversary, no link (though
    /// contact-links is on), no signature.
    @Test func greetTestSendsTheGreetingToTheOwnerByEmail() async throws {
        try #require(SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing))
        let server = try await SMTPServer()
        defer { server.cleanUp() }
        let cli = try await Self.friends()
        defer { cli.cleanUp() }
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let sendmail = try await server.writeMsmtpWrapper(into: folder)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--from", "Me <me@example.org>", "--sendmail", sendmail)
        #expect(channel.status == 0, "\(channel.stderr)")
        #expect(try await cli.run("greet", "add", "ana").status == 0)

        let tested = try await cli.run("greet", "test", "ana")
        #expect(tested.status == 0, "\(tested.stderr)")
        #expect(tested.stdout.contains("OK: the greeting of Ana Lima went to you (me@example.org)"), "\(tested.stdout)")
        try await eventually("the greeting in the mailbox") { server.messages().count == 1 }
        let message = try await PythonMail.parse(file: try #require(server.messages().first))
        #expect(message.defects.isEmpty)
        #expect(message.to?.address == "me@example.org", "to the owner, not to Ana")
        #expect(message.from?.address == "me@example.org")
        #expect(message.values("Subject") == ["Happy birthday!"])
        #expect(message.body == "Happy birthday, Ana, and have a wonderful day!\n", "\(message.body)")
        for absent in ["orchids", "36", "1990", "2015", "06-20", "http", "mailto", "birthdays\n"] {
            #expect(!message.body.contains(absent), "no \(absent): \(message.body)")
        }
        #expect(try await cli.deliveries().isEmpty, "nothing recorded")

        // In her language, with the age only because the text writes it.
        #expect(try await cli.run("greet", "remove", "ana").status == 0)
        #expect(try await cli.run("greet", "add", "ana", "--language", "pt").status == 0)
        #expect(try await cli.run("greet", "test", "ana").status == 0)
        try await eventually("the second greeting") { server.messages().count == 2 }
        let portuguese = try await PythonMail.parse(file: server.messages()[1])
        #expect(portuguese.values("Subject") == ["Feliz aniversário!"])
        #expect(portuguese.body == "Feliz aniversário, Ana, e tenha um dia maravilhoso!\n", "\(portuguese.body)")
    }

    /// Tom's greeting through Apprise (`json://` to a loopback server): the
    /// URL read from standard input, kept in a 0600 file, never in the
    /// database or the list; the age where the text writes it; the file
    /// gone with the greeting.
    @Test func greetTestSendsTheGreetingThroughApprise() async throws {
        try #require(ChannelsCommandTests.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.friends()
        defer { cli.cleanUp() }
        let receiver = try await ChannelsCommandTests.Receiver(in: cli)
        defer { receiver.stop() }

        let refused = try await cli.run("greet", "add", "tom", "--url", "-", stdin: "bogus://x\n")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("apprise does not understand this URL"), "\(refused.stderr)")
        #expect(try await Self.greetings(cli).isEmpty, "no row without its file")

        let added = try await cli.run("greet", "add", "tom", "--url", "-", "--message", "Happy {age}th, {first}!", stdin: receiver.url + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try await Self.greetings(cli)
        let id = try #require(listed.first?["id"] as? Int)
        let file = cli.secretsFolder + "/\(id).greeting"
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "the URL in a 0600 file")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(String(receiver.port)))
        let database = try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
        #expect(database.range(of: Data("127.0.0.1:\(receiver.port)".utf8)) == nil, "no URL in the database")
        #expect(try await !cli.run("greet", "list", "--json").stdout.contains(String(receiver.port)), "no URL in the list")

        let tested = try await cli.run("greet", "test", "tom")
        #expect(tested.status == 0, "\(tested.stderr)")
        try await eventually("the greeting at the receiver") { receiver.received.count == 1 }
        let body = try #require(receiver.received.first)
        #expect(body.contains("Happy birthday!"), "the title: \(body)")
        #expect(body.contains("Happy 41th, Tom!"), "\(body)")
        #expect(!body.contains("orchids") && !body.contains("1985"), "\(body)")

        #expect(try await cli.run("greet", "remove", "tom").status == 0)
        #expect(!FileManager.default.fileExists(atPath: file), "the file goes with the greeting")
    }
}
