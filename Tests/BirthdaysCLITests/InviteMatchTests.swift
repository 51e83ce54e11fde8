import Foundation
import TestSupport
import Testing

/// An invitation's answer from someone the owner already has (issue 43):
/// offered as that person in `invites`, given to them by a plain `invites
/// accept` (and written to their card), never guessed between namesakes,
/// never matched with someone of another birthday. Through the real binary,
/// the real `birthdays serve` on loopback and a real vdir folder.
@Suite struct InviteMatchTests {
    typealias Served = PageCommandTests.Served

    /// The phone's cards: Vera without a date; two Ada Lovelaces without one
    /// (namesakes); Robert called Bob, with his birthday; Hedy with hers.
    static let cards: [(file: String, card: String)] = [
        ("vera.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:vera-vdir\r\nFN:Vera Vdir\r\nN:Vdir;Vera;;;\r\nEND:VCARD\r\n"),
        ("ada-1.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada-1\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"),
        ("ada-2.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada-2\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n"),
        ("bob.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob-b\r\nFN:Robert Builder\r\nNICKNAME:Bob\r\nBDAY:1980-02-03\r\nEND:VCARD\r\n"),
        ("hedy.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:hedy\r\nFN:Hedy Lamarr\r\nBDAY:1914-11-09\r\nEND:VCARD\r\n"),
    ]

    /// The cards in a vdir folder followed as "Phone", and the form served.
    static func served() async throws -> (served: Served, book: String) {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let book = cli.path("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        for (file, card) in cards { try Data(card.utf8).write(to: URL(fileURLWithPath: book + "/" + file)) }
        let added = try await cli.run("sources", "add", book, "--name", "Phone")
        try #require(added.status == 0, "\(added.stderr)")
        return (try await PageCommandTests.serve(cli), book)
    }

    /// `id birthday` of everyone, as `people --json` has them ("-" when undated).
    static func people(_ cli: CLIProcess) async throws -> [String] {
        try await InviteCommandTests.people(cli).map { person in
            let date = person["birthday"] as? [String: Any]
            let day = date.map { date in
                ((date["year"] as? Int).map { String(format: "%04d", $0) } ?? "-")
                    + String(format: "-%02d-%02d", date["month"] as? Int ?? 0, date["day"] as? Int ?? 0)
            }
            return "\(person["id"] as? String ?? "?") \(day ?? "-")"
        }
        .sorted()
    }

    @Test func anAnswerWithTheNameOfAnUndatedContactIsThemAndNamesakesAndOtherBirthdaysAreNot() async throws {
        let (served, book) = try await Self.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends")
        // Vera writes her name the other way round and in lower case; Bob by his nickname.
        for answer in [
            "name=vdir+vera&day=17&month=5&year=1991", "name=Ada+Lovelace&day=10&month=12&year=", "name=Bob+Builder&day=3&month=2&year=1980",
            "name=Hedy+Lamarr&day=10&month=11&year=1914",
        ] {
            #expect(try await InviteCommandTests.post(served, token, answer).status == 200)
        }

        // Offered as the contact, with no more of them than the owner sees: the id, the source, the date.
        let listed = try await served.cli.run("invites")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("vdir vera: matches your contact vera-vdir (Phone, no date)\n"), "\(listed.stdout)")
        #expect(
            listed.stdout.contains(
                "Ada Lovelace: has the name of 2 of your contacts, ada-1 (Phone, no date), ada-2 (Phone, no date); "
                    + "accepting adds a new person unless --as names one"
            ),
            "\(listed.stdout)"
        )
        #expect(listed.stdout.contains("Bob Builder: matches your contact bob-b (Phone, "), "\(listed.stdout)")
        #expect(!listed.stdout.contains("Hedy Lamarr:"), "another birthday is another person: \(listed.stdout)")
        let json = try CLIProcess.array(try await served.cli.run("invites", "--json").stdout)
        let matches = json.map { ($0["matches"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
        #expect(matches == [["vera-vdir"], ["ada-1", "ada-2"], ["bob-b"], []], "\(json)")

        // A plain accept gives Vera the date, and her card in the folder gets it.
        let vera = try await served.cli.run("invites", "accept", "1")
        #expect(vera.status == 0, "\(vera.stderr)")
        #expect(
            vera.stdout.contains("Answer 1 accepted as your contact Vera Vdir (vera-vdir) (Phone): the birthday was given to them."),
            "\(vera.stdout)"
        )
        #expect(vera.stdout.contains("also written to the card in 'Phone'"), "\(vera.stdout)")
        let card = try String(contentsOfFile: book + "/vera.vcf", encoding: .utf8)
        #expect(card == Self.cards[0].card.replacingOccurrences(of: "END:VCARD", with: "BDAY:1991-05-17\r\nEND:VCARD"), "\(card)")

        // Two namesakes: not guessed; a new person, and the way to say which one it is.
        let ada = try await served.cli.run("invites", "accept", "2")
        #expect(ada.status == 0, "\(ada.stderr)")
        #expect(ada.stdout.contains("Answer 2 accepted: added Ada Lovelace (invited-2)."), "\(ada.stdout)")
        #expect(ada.stdout.contains("It has the name of 2 of your contacts (ada-1, ada-2); if it is one of them: birthdays link ada-1 invited-2"))

        // Bob has this birthday already: the answer is him, nothing is written.
        let bob = try await served.cli.run("invites", "accept", "3")
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(bob.stdout.contains("accepted as your contact Robert Builder (bob-b), who has this birthday already"), "\(bob.stdout)")
        #expect(try String(contentsOfFile: book + "/bob.vcf", encoding: .utf8) == Self.cards[3].card)

        // Hedy's card says another day: a new person beside her, her card untouched.
        let hedy = try await served.cli.run("invites", "accept", "4")
        #expect(hedy.stdout.contains("Answer 4 accepted: added Hedy Lamarr (invited-4)."), "\(hedy.stdout)")

        let expected = [
            "ada-1 -", "ada-2 -", "bob-b 1980-02-03", "hedy 1914-11-09", "invited-2 --12-10", "invited-4 1914-11-10", "vera-vdir 1991-05-17",
        ]
        let people = try await Self.people(served.cli)
        #expect(people == expected)
        let answers = try await InviteCommandTests.answers(served.cli)
        #expect(answers.map { $0["person"] as? String } == ["vera-vdir", "invited-2", "bob-b", "invited-4"], "\(answers)")
        // The folder's next sync reads Vera's card as an edit: the same people, the same dates.
        let synced = try await served.cli.run("sources", "sync", "Phone")
        #expect(synced.status == 0, "\(synced.stderr)")
        let synced2 = try await Self.people(served.cli)
        #expect(synced2 == expected)
    }

    @Test func asNewAddsAPersonEvenWhenTheNameMatches() async throws {
        let (served, book) = try await Self.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends")
        #expect(try await InviteCommandTests.post(served, token, "name=Vera+Vdir&day=17&month=5&year=1991").status == 200)
        let accepted = try await served.cli.run("invites", "accept", "1", "--as", "new")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("Answer 1 accepted: added Vera Vdir (invited-1)."), "\(accepted.stdout)")
        let people = try await Self.people(served.cli)
        #expect(people.filter { $0.hasPrefix("vera") || $0.hasPrefix("invited") } == ["invited-1 1991-05-17", "vera-vdir -"])
        #expect(try String(contentsOfFile: book + "/vera.vcf", encoding: .utf8) == Self.cards[0].card)
    }

    @Test func autoAcceptGivesTheDateToTheOnlyMatchAndAddsANamesake() async throws {
        let (served, _) = try await Self.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Club", "--auto-accept")
        #expect(try await InviteCommandTests.post(served, token, "name=Vera+Vdir&day=17&month=5&year=").status == 200)
        let ada = try await InviteCommandTests.post(served, token, "name=Ada+Lovelace&day=10&month=12&year=1990")
        #expect(ada.status == 200, "\(ada.body)")
        #expect(
            try await Self.people(served.cli) == [
                "ada-1 -", "ada-2 -", "bob-b 1980-02-03", "hedy 1914-11-09", "invited-2 1990-12-10", "vera-vdir --05-17",
            ]
        )
        let answers = try await InviteCommandTests.answers(served.cli)
        #expect(answers.map { $0["state"] as? String } == ["accepted", "accepted"])
        #expect(answers.map { $0["person"] as? String } == ["vera-vdir", "invited-2"], "\(answers)")
    }

    @Test func autoAcceptWritesTheDateToTheMatchedCardAndAnAnswerThatMatchesNobodyWritesNone() async throws {
        let (served, book) = try await Self.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Club", "--auto-accept")
        let before = try FileManager.default.contentsOfDirectory(atPath: book).sorted()
        // Grace matches nobody: a new person, who has no card. Vera is the one undated contact of her name.
        #expect(try await InviteCommandTests.post(served, token, "name=Grace+Hopper&day=9&month=12&year=1906").status == 200)
        #expect(try await InviteCommandTests.post(served, token, "name=vdir+vera&day=17&month=5&year=1991").status == 200)

        // The server says when the card is written (the dates are handed over one at a time, in order,
        // so Grace's answer, first, has had its turn by then).
        let written = "wrote a birthday to a card of source Phone"
        try await served.server.waitUntil("the write-back") { $0.stderr.contains(written) }
        let card = try String(contentsOfFile: book + "/vera.vcf", encoding: .utf8)
        #expect(card == Self.cards[0].card.replacingOccurrences(of: "END:VCARD", with: "BDAY:1991-05-17\r\nEND:VCARD"), "\(card)")
        // Every other card as it was, and no file added for Grace.
        #expect(try FileManager.default.contentsOfDirectory(atPath: book).sorted() == before)
        for (file, text) in Self.cards.dropFirst() {
            #expect(try String(contentsOfFile: book + "/" + file, encoding: .utf8) == text, "\(file)")
        }
        let log = served.server.stderr
        // The log names the source and the outcome, never the person or the date.
        // (The dates are looked for in the write-back's own lines: a port or a byte count elsewhere may hold "1991".)
        for name in ["Vera", "vera", "Grace"] { #expect(!log.contains(name), "\(name): \(log)") }
        let writeBackLines = log.split(separator: "\n").filter { $0.contains("birthdays.writeback") }
        #expect(writeBackLines.count == 1, "one card written: \(log)")
        for date in ["1991", "1906", "05-17", "0517"] { #expect(!writeBackLines.contains { $0.contains(date) }, "\(date): \(log)") }

        let vera = try CLIProcess.object(try await served.cli.run("show", "vera-vdir", "--json").stdout)
        let birthday = vera["birthday"] as? [String: Any]
        #expect([birthday?["year"], birthday?["month"], birthday?["day"]].map { $0 as? Int } == [1991, 5, 17], "\(vera)")
        #expect(
            try await Self.people(served.cli).filter { $0.hasPrefix("invited") || $0.hasPrefix("vera") } == [
                "invited-1 1906-12-09", "vera-vdir 1991-05-17",
            ]
        )
        // The folder's next sync reads Vera's card as an edit: the same people, the same dates.
        let synced = try await served.cli.run("sources", "sync", "Phone")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(
            try await Self.people(served.cli).filter { $0.hasPrefix("invited") || $0.hasPrefix("vera") } == [
                "invited-1 1906-12-09", "vera-vdir 1991-05-17",
            ]
        )
    }

    /// `birthdays run` serving the form (the `serve` setting) writes the card too, as `serve` does.
    @Test func theDaemonServingTheFormWritesTheDateToTheMatchedCard() async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        let book = cli.path("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        for (file, card) in Self.cards { try Data(card.utf8).write(to: URL(fileURLWithPath: book + "/" + file)) }
        let added = try await cli.run("sources", "add", book, "--name", "Phone")
        try #require(added.status == 0, "\(added.stderr)")
        let port = try Loopback.freePort()
        try await cli.set("serve", "127.0.0.1:\(port)")
        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        let served = Served(cli: cli, server: daemon, port: port, token: "")
        defer { served.stop() }
        try await daemon.waitUntil("the form's server") { _ in
            await (try? PageCommandTests.curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz"]))?.stdout == "200"
        }
        let token = try await InviteCommandTests.invite(served, "Club", "--auto-accept")
        #expect(try await InviteCommandTests.post(served, token, "name=Vera+Vdir&day=17&month=5&year=").status == 200)

        try await daemon.waitUntil("the write-back") { $0.stderr.contains("wrote a birthday to a card of source Phone") }
        let card = try String(contentsOfFile: book + "/vera.vcf", encoding: .utf8)
        #expect(
            card == Self.cards[0].card.replacingOccurrences(of: "END:VCARD", with: "BDAY;X-APPLE-OMIT-YEAR=1604:1604-05-17\r\nEND:VCARD"),
            "\(card)"
        )
        let vera = try CLIProcess.object(try await cli.run("show", "vera-vdir", "--json").stdout)
        let birthday = vera["birthday"] as? [String: Any]
        #expect([birthday?["month"], birthday?["day"]].map { $0 as? Int } == [5, 17], "\(vera)")
        #expect(!daemon.stderr.contains("Vera"), "\(daemon.stderr)")
    }
}
