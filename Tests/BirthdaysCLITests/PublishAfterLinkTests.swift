import Foundation
import TestSupport
import Testing

/// The published calendar after `link` (issue 43): the events written for
/// people who were two are replaced by the one person's, none left behind,
/// on a real Radicale and a real Xandikos; read back with plain WebDAV.
@Suite struct PublishAfterLinkTests {
    /// Ada from the phone and from Google, with nothing that links her on her
    /// own (no shared address or number), and Bob.
    static let phone = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada-phone\r
        FN:Ada Lovelace\r
        BDAY:1990-03-10\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:bob\r
        FN:Bob Example\r
        BDAY:1985-07-01\r
        END:VCARD\r

        """
    static let google = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada-google\r\nFN:Ada M. Lovelace\r\nBDAY:--03-10\r\nEND:VCARD\r\n"

    /// Publishes Ada's two cards and Bob, links Ada's cards, publishes again,
    /// and reads the calendar back after each.
    func publishLinkAndPublish(_ server: some DAVTestServer, _ cli: CLIProcess, add: [String]) async throws {
        for (file, text) in [("phone.vcf", Self.phone), ("google.vcf", Self.google)] {
            let imported = try await cli.run("import", try cli.write(file, text))
            try #require(imported.status == 0, "\(imported.stderr)")
        }
        // One series per date (ages have their own tests).
        try await cli.set("calendar-ages", "off")
        let added = try await cli.run(["publish", "add", server.baseURL, "--name", "dav", "--json"] + add)
        try #require(added.status == 0, "\(added.stderr)")
        #expect(try PublishCommandTests.report(added)["put"] as? Int == 3)
        let calendar = try #require(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).first?["calendar"] as? String)
        let before = try await PublishCommandTests.readBack(server, calendar)
        #expect(before.keys.sorted() == ["ada-google-birthday@birthdays", "ada-phone-birthday@birthdays", "bob-birthday@birthdays"])

        let linked = try await cli.run("link", "ada-phone", "ada-google")
        #expect(linked.status == 0, "\(linked.stderr)")
        let synced = try PublishCommandTests.report(try await cli.run("publish", "sync", "--json"))
        #expect(synced["deleted"] as? Int == 1, "\(synced)")

        // One event per person and date: Ada's is the one of the id she is shown as, with her card's year.
        let after = try await PublishCommandTests.readBack(server, calendar)
        #expect(after.keys.sorted() == ["ada-google-birthday@birthdays", "bob-birthday@birthdays"], "\(after)")
        #expect(after["ada-google-birthday@birthdays"]?.contains("DTSTART;VALUE=DATE:19900310") == true, "\(after)")
        #expect(after == PublishCommandTests.eventLines(try await cli.run("export").stdout))
        #expect(try await PublishCommandTests.members(server, calendar).count == 2, "nothing left behind")
        let again = try PublishCommandTests.report(try await cli.run("publish", "sync", "--json"))
        #expect(again["put"] as? Int == 0 && again["deleted"] as? Int == 0, "\(again)")
    }

    @Test func radicaleHoldsOneEventPerPersonAfterALink() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let secretFile = try cli.write("dav-password", server.password + "\n")
        try await publishLinkAndPublish(server, cli, add: ["--username", "alice", "--password-command", "cat '\(secretFile)'"])
    }

    @Test func xandikosHoldsOneEventPerPersonAfterALink() async throws {
        try #require(XandikosServer.isAvailable, Comment(rawValue: XandikosServer.missing))
        let server = try await XandikosServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await publishLinkAndPublish(server, cli, add: [])
    }
}
