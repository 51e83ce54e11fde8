import BirthdayCore
import Foundation
import TestSupport
import Testing

/// `birthdays invite` and `birthdays invites` (issue 35) through the real
/// binary and the real `birthdays serve` over HTTP on loopback: a link's
/// form, its answers waiting, accepted (as a new person or into one who
/// exists), rejected or taken at once, the owner told through the channels,
/// and the hostile answers, each answered with its status and nothing stored.
@Suite struct InviteCommandTests {
    /// Ada (Family), Bob, kept without a date, and Hedy, without a date
    /// too, in the groups the invitations name (a group must exist to be named).
    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        BDAY:1990-03-11\r
        CATEGORIES:Family\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:bob\r
        FN:Bob Builder\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:hedy\r
        FN:Hedy Lamarr\r
        CATEGORIES:Friends,Team,Club\r
        END:VCARD\r

        """

    static func served() async throws -> PageCommandTests.Served {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let imported = try await cli.run("import", try cli.write("cards.vcf", cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        return try await PageCommandTests.serve(cli)
    }

    /// The token of an `invite` answer (its link line).
    static func token(_ output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("link:") }, "\(output)")
        return String(try #require(line.split(separator: "/").last))
    }

    /// `invite ARGS` on the served port; the link's token.
    static func invite(_ served: PageCommandTests.Served, _ arguments: String...) async throws -> String {
        let made = try await served.cli.run(["invite"] + arguments + ["--port", String(served.port)])
        try #require(made.status == 0, "\(made.stderr)")
        return try token(made.stdout)
    }

    static func url(_ served: PageCommandTests.Served, _ token: String) -> String {
        "http://127.0.0.1:\(served.port)/invite/\(token)"
    }

    /// The status, headers and body of a `curl` answer.
    static func fetch(_ arguments: [String]) async throws -> (status: Int, fields: [String: String], body: String) {
        let answer = try await PageCommandTests.curl(["-D", "-"] + arguments).stdout
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let (status, fields) = PageCommandTests.headers(parts.first ?? "")
        return (status, fields, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The form's nonce.
    static func nonce(_ html: String) throws -> String {
        let start = try #require(html.range(of: "name=\"nonce\" value=\""), "\(html)")
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    /// A fresh form's nonce from `GET`.
    static func formNonce(_ served: PageCommandTests.Served, _ token: String) async throws -> String {
        let form = try await fetch([url(served, token)])
        try #require(form.status == 200, "\(form.body)")
        return try nonce(form.body)
    }

    /// `POST`s `fields` (already encoded), with a fresh nonce unless `nonce` is given.
    static func post(
        _ served: PageCommandTests.Served,
        _ token: String,
        _ fields: String,
        nonce: String? = nil
    ) async throws -> (status: Int, fields: [String: String], body: String) {
        var used = nonce ?? ""
        if nonce == nil { used = try await formNonce(served, token) }
        return try await fetch(["--data-raw", "nonce=\(used)&" + fields, url(served, token)])
    }

    /// Every answer, as `invites --all --json` prints them.
    static func answers(_ cli: CLIProcess) async throws -> [[String: Any]] {
        let listed = try await cli.run("invites", "--all", "--json")
        try #require(listed.status == 0, "\(listed.stderr)")
        return try CLIProcess.array(listed.stdout)
    }

    static func people(_ cli: CLIProcess) async throws -> [[String: Any]] {
        try CLIProcess.array(try await cli.run("people", "--json").stdout)
    }

    // MARK: - Create, answer, accept, reject

    @Test func anAnswerWaitsIsAcceptedIntoTheGroupAndTheOwnerIsToldWithoutItsNameOrDate() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let outfile = served.cli.path("command.out")
        try await served.cli.set("channels", "log,command")
        try await served.cli.set("command", "env | grep ^BIRTHDAYS_ >> '\(outfile)'")
        try await served.cli.enableNotifications()
        let made = try await served.cli.run("invite", "Friends", "--group", "Friends", "--port", String(served.port))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("█"), "the QR code")
        let token = try Self.token(made.stdout)
        #expect(FeedToken.isWellFormed(token), "128 random bits")

        let form = try await Self.fetch([Self.url(served, token)])
        #expect(form.status == 200)
        #expect(form.fields["content-security-policy"]?.contains("form-action 'self'") == true)
        #expect(form.fields["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(form.fields["cache-control"] == "no-store")
        #expect(form.fields["referrer-policy"] == "same-origin", "no Referer for another origin, and a real Origin on the form's own POST")
        #expect(form.body.contains("Only the person who sent you this link will see what you enter here."), "the default sentence")
        #expect(form.body.contains("<form method=\"post\""))
        #expect(!form.body.contains("<script"))
        #expect(!form.body.contains("Friends"), "the link's name is the owner's word")

        let sent = try await Self.post(served, token, "name=Grace+Hopper&day=9&month=12&year=")
        #expect(sent.status == 200)
        #expect(sent.body.contains("Thank you"))
        let waiting = try CLIProcess.array(try await served.cli.run("invites", "--json").stdout)
        #expect(waiting.count == 1)
        #expect(waiting.first?["name"] as? String == "Grace Hopper")
        #expect(waiting.first?["date"] as? String == "--12-09")
        #expect(waiting.first?["state"] as? String == "waiting")
        #expect(try await served.cli.run("invites").stdout.contains("Grace Hopper"))

        // The owner's message, once, through the channels: the link's name and the answer's number, no name or date.
        let pass = try await served.cli.run(at: "2026-03-10T08:05:00+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(pass.stdout.contains("reminder delivered"), "the log channel: \(pass.stdout)")
        let told = (try? String(contentsOfFile: outfile, encoding: .utf8)) ?? ""
        #expect(told.contains("BIRTHDAYS_BODY=A birthday arrived through the invitation Friends: accept with birthdays invites accept 1"), "\(told)")
        #expect(!told.contains("Grace") && !told.contains("12-09"), "\(told)")
        _ = try await served.cli.run(at: "2026-03-10T08:06:00+01:00", "deliver", "--once")
        let again = (try? String(contentsOfFile: outfile, encoding: .utf8)) ?? ""
        #expect(again.components(separatedBy: "BIRTHDAYS_BODY=").count == 2, "told once: \(again)")

        let accepted = try await served.cli.run("invites", "accept", "1")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("in group Friends"))
        let shown = try await served.cli.run("show", "Grace")
        #expect(shown.stdout.contains("Friends"), "\(shown.stdout)")
        #expect(shown.stdout.contains("12-09") || shown.stdout.contains("Dec"), "\(shown.stdout)")
        #expect(try await served.cli.run("invites", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let pending = try await served.cli.run("pending")
        #expect(pending.stdout.contains("Grace Hopper"), "rescheduled: \(pending.stdout)")

        // The token is in no file of the database; its hash is.
        let database =
            try Data(contentsOf: URL(fileURLWithPath: served.cli.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: served.cli.databasePath + "-wal"))) ?? Data())
        #expect(database.range(of: Data(token.utf8)) == nil)
        #expect(database.range(of: Data(Invitation.tokenHash(token).utf8)) != nil)
        // The server's log has neither the token nor the name nor the date.
        let log = served.server.stdout + served.server.stderr
        #expect(log.contains("/invite/<redacted>"), "\(log)")
        for secret in [token, "Grace", "Hopper", "12-09"] { #expect(!log.contains(secret), "the log holds \(secret)") }
    }

    @Test func anAnswerGivesItsDateToSomeoneWhoExistsOrIsRejected() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Team", "--group", "Team", "--note", "Only Ada sees this, for the team's calendar.")
        let form = try await Self.fetch([Self.url(served, token)])
        #expect(form.body.contains("Only Ada sees this, for the team&#39;s calendar."), "the owner's note, escaped")
        #expect(try await Self.post(served, token, "name=Bob&day=29&month=2").status == 200, "29 February without a year")
        #expect(try await Self.post(served, token, "name=Mallory&day=1&month=4&year=1980").status == 200)
        let before = try await Self.people(served.cli).count

        let accepted = try await served.cli.run("invites", "accept", "1", "--as", "Bob Builder", "--no-write-back")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("given to Bob Builder (bob) in group"), "named as every command names a person: \(accepted.stdout)")
        let bob = try await served.cli.run("show", "bob")
        #expect(bob.stdout.contains("02-29") || bob.stdout.contains("Feb"), "\(bob.stdout)")
        #expect(bob.stdout.contains("Team"), "\(bob.stdout)")

        // Ada's file has a birthday of its own, which importing it again would bring back: refused, nothing changed.
        // She was imported from a file, not followed: no card and no sync (issue 41).
        let onAda = try await served.cli.run("invites", "accept", "2", "--as", "ada")
        #expect(onAda.status == 1)
        #expect(
            onAda.stderr.contains("Ada Lovelace (ada) already has a birthday from the file they were imported from (1990-03-11)"),
            "\(onAda.stderr)"
        )
        #expect(!onAda.stderr.contains("card") && !onAda.stderr.contains("sync"), "\(onAda.stderr)")
        let ada = try CLIProcess.object(try await served.cli.run("show", "ada", "--json").stdout)
        #expect((ada["birthday"] as? [String: Any])?["month"] as? Int == 3)
        #expect(try await Self.answers(served.cli).last?["state"] as? String == "waiting")

        let rejected = try await served.cli.run("invites", "reject", "2")
        #expect(rejected.status == 0, "\(rejected.stderr)")
        #expect(try await Self.people(served.cli).count == before, "nobody added")
        let all = try await Self.answers(served.cli)
        #expect(all.map { $0["state"] as? String } == ["accepted", "rejected"])
        #expect(all.last?["name"] as? String == "", "a rejected answer keeps no name: \(all)")
        #expect(!(try await served.cli.run("invites", "--all").stdout.contains("Mallory")))
        #expect(all.first?["person"] as? String == "bob")
        let twice = try await served.cli.run("invites", "accept", "2")
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("already rejected"))
        let missing = try await served.cli.run("invites", "accept", "9")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("there is no answer 9"))
    }

    @Test func autoAcceptTakesAnAnswerAtOnceAndSaysSo() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let outfile = served.cli.path("command.out")
        try await served.cli.set("channels", "command")
        try await served.cli.set("command", "env | grep ^BIRTHDAYS_BODY >> '\(outfile)'")
        try await served.cli.enableNotifications()
        let token = try await Self.invite(served, "Club", "--group", "Club", "--auto-accept")
        #expect(try await Self.post(served, token, "name=Carol+Danvers&day=24&month=7&year=1985").status == 200)
        let people = try await Self.people(served.cli)
        #expect(people.contains { $0["name"] as? String == "Carol Danvers" }, "\(people)")
        #expect(try await Self.answers(served.cli).first?["state"] as? String == "accepted")
        #expect(try await served.cli.run("show", "Carol").stdout.contains("Club"))
        _ = try await served.cli.run(at: "2026-03-10T08:05:00+01:00", "deliver", "--once")
        let told = (try? String(contentsOfFile: outfile, encoding: .utf8)) ?? ""
        #expect(told.contains("A birthday arrived through the invitation Club and was added (answer 1"), "\(told)")
        let listed = try CLIProcess.array(try await served.cli.run("invite", "list", "--json").stdout)
        #expect(listed.first?["used"] as? Int == 1)
        #expect(listed.first?["auto_accept"] as? Bool == true)
        #expect(try await served.cli.run("invite", "remove", "Club").status == 0)
        #expect(try await Self.fetch([Self.url(served, token)]).status == 404, "a removed link is unknown")
        #expect(try await Self.answers(served.cli).count == 1, "its answers stay")
    }

    /// `birthdays run` serving the form: the answer wakes the daemon's
    /// delivery engine, and the owner's channel has the message without
    /// another command (`eventually`, not a sleep).
    @Test func theDaemonThatServesTheFormTellsTheOwnerAtOnce() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        defer { cli.cleanUp() }
        let imported = try await cli.run("import", try cli.write("cards.vcf", Self.cards))
        try #require(imported.status == 0, "\(imported.stderr)")
        let port = try Loopback.freePort()
        let outfile = cli.path("command.out")
        try await cli.set("channels", "command")
        try await cli.set("command", "env | grep ^BIRTHDAYS_BODY >> '\(outfile)'")
        try await cli.set("serve", "127.0.0.1:\(port)")
        try await cli.enableNotifications()
        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        defer { daemon.stop() }
        try await daemon.waitUntil("the server") { _ in
            await (try? PageCommandTests.curl(["http://127.0.0.1:\(port)/healthz"]))?.stdout.hasPrefix("ok") == true
        }
        let made = try await cli.run("invite", "Friends", "--port", String(port))
        let token = try Self.token(made.stdout)
        let url = "http://127.0.0.1:\(port)/invite/\(token)"
        let form = try await Self.fetch([url])
        let sent = try await Self.fetch(["--data-raw", "nonce=\(try Self.nonce(form.body))&name=Grace&day=9&month=12", url])
        #expect(sent.status == 200)
        try await daemon.waitUntil("the owner's message", seconds: 60) { _ in
            ((try? String(contentsOfFile: outfile, encoding: .utf8)) ?? "").contains("through the invitation Friends")
        }
        let told = (try? String(contentsOfFile: outfile, encoding: .utf8)) ?? ""
        #expect(told.contains("accept with birthdays invites accept 1"), "\(told)")
        #expect(!(daemon.stdout + daemon.stderr).contains("Grace"), "no name in the daemon's log")
    }

    // MARK: - Hostile answers: each answered, and nothing stored

    @Test func aBodyOf100KBIs413AndNothingIsStored() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Friends")
        let nonce = try await Self.formNonce(served, token)
        let body = "nonce=\(nonce)&day=1&month=1&name=" + String(repeating: "a", count: 100_000)
        let file = try served.cli.write("big.txt", body)
        let answer = try await Self.fetch(["--data-binary", "@" + file, Self.url(served, token)])
        #expect(answer.status == 413)
        #expect(answer.fields["connection"] == "close")
        let chunked = try await Self.fetch(["-H", "Transfer-Encoding: chunked", "--data-binary", "@" + file, Self.url(served, token)])
        #expect(chunked.status == 413, "read up to the cap, no further")
        let stray = try await Self.fetch(["-H", "Transfer-Encoding: chunked", "--data-raw", "name=x", Self.url(served, token) + "/more"])
        #expect(stray.status == 404)
        #expect(stray.fields["connection"] == "close", "a chunked body no route read is never drained")
        #expect(try await Self.answers(served.cli).isEmpty)
    }

    @Test func aThirdUseOfATwoUseLinkIs410() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Pair", "--uses", "2")
        #expect(try await Self.post(served, token, "name=One&day=1&month=1").status == 200)
        let nonce = try await Self.formNonce(served, token)
        #expect(try await Self.post(served, token, "name=Two&day=2&month=2", nonce: nonce).status == 200)
        let third = try await Self.post(served, token, "name=Three&day=3&month=3", nonce: nonce)
        #expect(third.status == 410)
        #expect(third.body.contains("no longer open"))
        #expect(try await Self.fetch([Self.url(served, token)]).status == 410)
        #expect(try await Self.answers(served.cli).map { $0["name"] as? String } == ["One", "Two"])
    }

    @Test func fiftyAnswersInASecondFromOneAddressAre429BeyondTheLimit() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Flood")
        var nonces: [String] = []
        for _ in 0..<50 { nonces.append(try await Self.formNonce(served, token)) }
        // One curl, fifty POSTs at once.
        var arguments = ["-s", "--max-time", "30", "--parallel", "--parallel-max", "50", "-o", "/dev/null", "-w", "%{http_code}\\n"]
        for (index, nonce) in nonces.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += [
                "-o", "/dev/null", "-w", "%{http_code}\\n", "--data-raw", "nonce=\(nonce)&name=Flood\(index)&day=1&month=1", Self.url(served, token),
            ]
        }
        let codes = try await TestProcess.run(["/usr/bin/env", "curl"] + arguments).stdout.split(separator: "\n").map(String.init)
        #expect(codes.count == 50, "\(codes)")
        let stored = codes.filter { $0 == "200" }.count
        #expect(stored == 5, "the limit: \(codes)")
        #expect(codes.filter { $0 == "429" }.count == 45, "\(codes)")
        #expect(try await Self.answers(served.cli).count == stored, "nothing stored beyond the limit")
    }

    @Test func aReplayedNonceIsRefusedAndStoresNothing() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Friends")
        let nonce = try await Self.formNonce(served, token)
        #expect(try await Self.post(served, token, "name=Once&day=5&month=5", nonce: nonce).status == 200)
        // Its answer is stored: the thank-you page again (issue 41), nothing more stored.
        let replay = try await Self.post(served, token, "name=Other&day=6&month=6", nonce: nonce)
        #expect(replay.status == 200)
        #expect(replay.body.contains("Thank you"))
        let forged = try await Self.post(served, token, "name=Forged&day=5&month=5", nonce: "4102444800.0123456789abcdef0123456789abcdef.00")
        #expect(forged.status == 409)
        #expect(try await Self.answers(served.cli).count == 1)
    }

    @Test func aLineBreakAndAHeaderInANameAreCleanedAndNeverAHeader() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Friends")
        let answer = try await Self.post(served, token, "name=Eve%0D%0ASet-Cookie:+stolen=1%0D%0A%0D%0A<script>alert(1)</script>&day=1&month=6")
        #expect(answer.status == 200)
        #expect(answer.fields["set-cookie"] == nil)
        #expect(!answer.body.contains("<script>"))
        let stored = try #require(try await Self.answers(served.cli).first?["name"] as? String)
        #expect(stored == "Eve Set-Cookie: stolen=1 <script>alert(1)</script>")
        #expect(!stored.contains("\r") && !stored.contains("\n"))
        let listed = try await served.cli.run("invites")
        #expect(!listed.stdout.contains("\r"), "one line in the terminal")
    }

    @Test func anInvalidDateShowsTheFormAgainWithWhatWasTypedAndStoresNothing() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let token = try await Self.invite(served, "Friends")
        let answer = try await Self.post(served, token, "name=%3Cb%3EBo%22%3C%2Fb%3E&day=30&month=2&year=1990")
        #expect(answer.status == 400)
        #expect(answer.body.contains("This date does not exist"))
        #expect(answer.body.contains("value=\"&lt;b&gt;Bo&quot;&lt;/b&gt;\""), "typed, escaped")
        #expect(answer.body.contains("<option value=\"2\" selected>"))
        #expect(answer.body.contains("value=\"1990\""))
        let future = try await Self.post(served, token, "name=Bo&day=1&month=1&year=2999")
        #expect(future.status == 400)
        #expect(future.body.contains("after today"))
        let notFour = try await Self.post(served, token, "name=Bo&day=1&month=1&year=1899")
        #expect(notFour.body.contains("four digits"))
        let noName = try await Self.post(served, token, "name=%0D%0A&day=1&month=1")
        #expect(noName.status == 400)
        #expect(try await Self.answers(served.cli).isEmpty)
    }

    @Test func anExpiredLinkIs410AndAnUnknownOne404() async throws {
        let served = try await Self.served()
        defer { served.stop() }
        let made = try await served.cli.run(at: "2026-03-09T08:00:00+01:00", "invite", "Old", "--expires", "30m", "--port", String(served.port))
        let token = try Self.token(made.stdout)
        let form = try await Self.fetch([Self.url(served, token)])
        #expect(form.status == 410)
        #expect(!form.body.contains(token))
        let posted = try await Self.post(served, token, "name=Late&day=1&month=1", nonce: "x")
        #expect(posted.status == 410)
        let unknown = String(repeating: "0", count: 32)
        #expect(try await Self.fetch([Self.url(served, unknown)]).status == 404)
        let unknownPost = try await Self.post(served, unknown, "name=Nobody&day=1&month=1", nonce: "x")
        #expect(unknownPost.status == 404)
        #expect(unknownPost.body == "not found\n", "the same 404 as any unknown address")
        #expect(try await Self.answers(served.cli).isEmpty)
        let listed = try CLIProcess.array(try await served.cli.run("invite", "list", "--json").stdout)
        #expect(listed.first?["open"] as? Bool == false)
    }

    @Test func aLinkNeedsAFreshNameAndSensibleLimits() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        #expect(try await cli.run("invite", "Friends").status == 0)
        let again = try await cli.run("invite", "Friends")
        #expect(again.status == 1)
        #expect(again.stderr.contains("already an invitation named"))
        #expect(try await cli.run("invite", "Other", "--expires", "forever").status == 64)
        #expect(try await cli.run("invite", "Other", "--uses", "0").status == 64)
        #expect(try await cli.run("invite", "two\nlines").status == 64)
        let listed = try await cli.run("invite", "list")
        #expect(listed.stdout.contains("Friends"))
        #expect(try await cli.run("invite", "remove", "Nope").status == 1)
    }

    // MARK: - Write-back

    /// An accepted date given to someone followed from a vdir folder or a
    /// CardDAV book (a real Radicale) reaches their card through the real
    /// binary, every other line as it was; `--no-write-back` leaves a card
    /// alone; the next syncs keep the same people with their dates.
    @Test func anAcceptedDateIsWrittenBackToTheCardInAVdirFolderAndARadicaleBook() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let radicale = try await RadicaleServer()
        defer { radicale.cleanUp() }
        try await radicale.makeBook("friends", displayName: "Friends")
        let danCard = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:dan\r\nFN:Dan Dav\r\nTEL:+49 30 0000000\r\nEND:VCARD\r\n"
        try await radicale.put("friends", file: "dan.vcf", card: danCard)

        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let book = cli.path("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        let carolCard = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:carol\r\nFN:Carol Card\r\nEMAIL:carol@example.org\r\nEND:VCARD\r\n"
        let eveCard = "BEGIN:VCARD\nVERSION:3.0\nUID:eve\nFN:Eve Local\nEND:VCARD\n"
        try Data(carolCard.utf8).write(to: URL(fileURLWithPath: book + "/carol.vcf"))
        try Data(eveCard.utf8).write(to: URL(fileURLWithPath: book + "/eve.vcf"))
        let phone = try await cli.run("sources", "add", book, "--name", "Phone")
        try #require(phone.status == 0, "\(phone.stderr)")
        let friends = try await cli.run(
            "sources",
            "add",
            radicale.bookURL("friends"),
            "--name",
            "Friends",
            "--username",
            radicale.user,
            "--password-command",
            "echo secret"
        )
        try #require(friends.status == 0, "\(friends.stderr)")
        let served = try await PageCommandTests.serve(cli)
        defer { served.stop() }

        let token = try await Self.invite(served, "Friends")
        #expect(try await Self.post(served, token, "name=Carol&day=17&month=5").status == 200)
        #expect(try await Self.post(served, token, "name=Dan&day=1&month=7&year=1985").status == 200)
        #expect(try await Self.post(served, token, "name=Eve&day=3&month=3").status == 200)

        // The vdir card: BDAY in its own version (3.0, no year: Apple's form), every other byte kept.
        let carol = try await cli.run("invites", "accept", "1", "--as", "Carol Card")
        #expect(carol.status == 0, "\(carol.stderr)")
        #expect(carol.stdout.contains("also written to the card in 'Phone'"), "\(carol.stdout)")
        let carolAfter = try String(contentsOfFile: book + "/carol.vcf", encoding: .utf8)
        #expect(carolAfter == carolCard.replacingOccurrences(of: "END:VCARD", with: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-05-17\r\nEND:VCARD"))

        // The CardDAV card on Radicale: its other lines, and BDAY in 4.0's form.
        let dan = try await cli.run("invites", "accept", "2", "--as", "Dan Dav")
        #expect(dan.status == 0, "\(dan.stderr)")
        #expect(dan.stdout.contains("also written to the card in 'Friends'"), "\(dan.stdout)")
        let (status, danAfter) = try await radicale.curl("GET", radicale.bookURL("friends") + "dan.vcf")
        #expect(status == 200)
        let lines = { (card: String) in card.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init) }
        #expect(lines(danAfter).filter { $0.hasPrefix("BDAY") } == ["BDAY:19850701"], "\(danAfter)")
        #expect(Set(lines(danAfter).filter { !$0.hasPrefix("BDAY") }) == Set(lines(danCard)), "\(danAfter)")

        // Kept here only: the card file is untouched, and nothing is said of a card.
        let eve = try await cli.run("invites", "accept", "3", "--as", "Eve Local", "--no-write-back")
        #expect(eve.status == 0, "\(eve.stderr)")
        #expect(!eve.stdout.contains("card"), "\(eve.stdout)")
        #expect(try String(contentsOfFile: book + "/eve.vcf", encoding: .utf8) == eveCard)

        // The next syncs read the written cards as edits: the same three people, each with the date.
        for source in ["Phone", "Friends"] {
            let synced = try await cli.run("sources", "sync", source)
            #expect(synced.status == 0, "\(synced.stderr)")
        }
        let people = try await Self.people(cli)
        #expect(people.compactMap { $0["id"] as? String }.sorted() == ["carol", "dan", "eve"], "\(people)")
        for (id, year, month, day) in [("carol", nil, 5, 17), ("dan", 1985, 7, 1), ("eve", nil, 3, 3)] as [(String, Int?, Int, Int)] {
            let shown = try CLIProcess.object(try await cli.run("show", id, "--json").stdout)
            let birthday = try #require(shown["birthday"] as? [String: Any], "\(id)")
            #expect(birthday["month"] as? Int == month && birthday["day"] as? Int == day, "\(id): \(birthday)")
            #expect(birthday["year"] as? Int == year, "\(id): \(birthday)")
        }
    }
}
