import BirthdayCore
import Foundation
import TestSupport
import Testing

/// `zone PERSON ZONE|local|--default`, and the zone in `show`, `people
/// --json` and `upcoming`, through the real binary at the CLI tests'
/// `BIRTHDAYS_NOW` (Tuesday 2026-03-10, 08:00 in Berlin).
@Suite struct ZoneCommandTests {
    /// Mei in Tokyo (vCard 4 text), Pia in Paris (the same offset as Berlin
    /// that day), Ola at +01:00 (the same), Ned at -05:00 (vCard 3 offset)
    /// and Bob without a zone.
    static let cards = [
        "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:mei\r\nFN:Mei Tanaka\r\nBDAY:19900312\r\nTZ;VALUE=text:Asia/Tokyo\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:pia\r\nFN:Pia Paris\r\nBDAY:19900313\r\nTZ:Europe/Paris\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ola\r\nFN:Ola Offset\r\nBDAY:1990-03-14\r\nTZ:+01:00\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ned\r\nFN:Ned New\r\nBDAY:1990-03-15\r\nTZ:-05:00\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob Plain\r\nBDAY:1990-03-16\r\nEND:VCARD\r\n",
    ].joined()

    private func setUp() async throws -> (CLIProcess, file: String) {
        let cli = try CLIProcess()
        let file = try cli.write("cards.vcf", Self.cards)
        let imported = try await cli.run("import", file)
        try #require(imported.status == 0, "\(imported.stderr)")
        return (cli, file)
    }

    private func person(_ cli: CLIProcess, _ id: String) async throws -> [String: Any] {
        let list = try await CLIProcess.array(try cli.run("people", "--json").stdout)
        return try #require(list.first { $0["id"] as? String == id })
    }

    @Test func showAndUpcomingSayTheZoneWhereTheDayBeginsElsewhere() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let show = try await cli.run("show", "mei")
        #expect(show.stdout.contains("\nTime zone: Tokyo (Asia/Tokyo), from the card\n"), "\(show.stdout)")
        await #expect(try cli.run("show", "ned").stdout.contains("\nTime zone: UTC\u{2212}05:00, from the card\n"))
        await #expect(!(try cli.run("show", "bob").stdout.contains("Time zone")))
        let shown = try CLIProcess.object(try await cli.run("show", "mei", "--json").stdout)
        #expect(shown["zone"] as? String == "Asia/Tokyo" && shown["zone_from"] as? String == "card")
        let bob = try await person(cli, "bob")
        #expect(bob["zone"] is NSNull && bob["zone_from"] is NSNull)
        #expect(try await person(cli, "ned")["zone"] as? String == "-05:00")
        await #expect(try cli.run("people", "mei").stdout.contains("zone Asia/Tokyo"))
        await #expect(!(try cli.run("people", "bob").stdout.contains("zone")))

        let lines = try await cli.run("upcoming").stdout.split(separator: "\n").map(String.init)
        func line(_ name: String) -> String { lines.first { $0.contains(name) } ?? "" }
        #expect(line("Mei Tanaka").contains("Mei Tanaka (Tokyo)"), "\(lines)")
        #expect(line("Ned New").contains("Ned New (UTC\u{2212}05:00)"), "\(lines)")
        // Their day begins at your midnight: nothing to say.
        #expect(!line("Pia Paris").contains("("), "\(lines)")
        #expect(!line("Ola Offset").contains("("), "\(lines)")
        #expect(!line("Bob Plain").contains("("), "\(lines)")
        let upcoming = try CLIProcess.array(try await cli.run("upcoming", "--json").stdout)
        let zones = Dictionary(uniqueKeysWithValues: upcoming.map { ($0["id"] as? String ?? "", $0["zone"] as? String ?? "null") })
        #expect(zones == ["mei": "Asia/Tokyo", "pia": "Europe/Paris", "ola": "+01:00", "ned": "-05:00", "bob": "null"])
    }

    /// The planned reminders through the real binary: Mei's day-of at 16:00
    /// the day before (when 12 March begins in Tokyo), in its words, with her
    /// zone in `pending --json`; a zone that begins with yours changes nothing.
    @Test func pendingHasTheMomentTheWordsAndTheZone() async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout)
        func entry(_ id: String) throws -> [String: Any] { try #require(pending.first { $0["id"] as? String == id }, "\(pending)") }
        let mei = try entry("mei-birthday-dayof")
        #expect(mei["fire_at"] as? String == "2026-03-11T16:00:00+01:00")
        #expect(mei["zone"] as? String == "Asia/Tokyo")
        #expect(mei["body"] as? String == "Mei Tanaka turns 36 today in Tokyo (since 16:00 here)!")
        #expect(try entry("mei-birthday-daybefore")["fire_at"] as? String == "2026-03-10T09:00:00+01:00")
        #expect(try entry("pia-birthday-dayof")["fire_at"] as? String == "2026-03-13T09:00:00+01:00")
        #expect(try entry("pia-birthday-dayof")["body"] as? String == "Pia Paris turns 36 today!")
        #expect(try entry("ned-birthday-dayof")["fire_at"] as? String == "2026-03-15T09:00:00+01:00")
        #expect(try entry("bob-birthday-dayof")["zone"] is NSNull)
        // Soonest first, by the instant: Mei's 16:00 after the 09:00 reminders of the 11th.
        let instants = pending.compactMap { $0["fire_at"] as? String }
        #expect(instants == instants.sorted())
    }

    @Test func aChoiceWinsOutlastsImportsAndDefaultGivesTheCardItsSayAgain() async throws {
        let (cli, file) = try await setUp()
        defer { cli.cleanUp() }
        let offset = try await cli.run("zone", "mei", "+09:00")
        #expect(offset.status == 0, "\(offset.stderr)")
        #expect(offset.stdout == "Mei Tanaka's reminders follow UTC+09:00.\n")
        await #expect(try cli.run("show", "mei").stdout.contains("\nTime zone: UTC+09:00, your choice\n"))

        let named = try CLIProcess.object(try await cli.run("zone", "Mei", "Asia/Seoul", "--json").stdout)
        #expect(named["id"] as? String == "mei" && named["name"] as? String == "Mei Tanaka")
        #expect(named["zone"] as? String == "Asia/Seoul" && named["zone_from"] as? String == "choice")
        await #expect(try cli.run("zone", "mei", "Asia/Seoul").stdout == "Mei Tanaka's reminders follow Seoul time (Asia/Seoul).\n")

        // An import of the same card keeps the choice.
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await person(cli, "mei")["zone"] as? String == "Asia/Seoul")

        // local: your own zone, whatever the card says; no place in upcoming.
        await #expect(try cli.run("zone", "mei", "local").stdout == "Mei Tanaka's reminders follow your time zone.\n")
        let local = try await person(cli, "mei")
        #expect(local["zone"] is NSNull && local["zone_from"] as? String == "choice")
        await #expect(try cli.run("show", "mei").stdout.contains("\nTime zone: yours, your choice\n"))
        await #expect(!(try cli.run("upcoming").stdout.contains("(Tokyo)")))

        let reset = try await cli.run("zone", "mei", "--default")
        #expect(reset.stdout == "Mei Tanaka's reminders follow their card again (Tokyo).\n")
        let back = try await person(cli, "mei")
        #expect(back["zone"] as? String == "Asia/Tokyo" && back["zone_from"] as? String == "card")
        await #expect(
            try cli.run("zone", "bob", "--default").stdout == "Bob Plain's reminders follow your time zone again (their card gives none).\n"
        )
    }

    @Test(arguments: [
        (
            ["mei", "Mars/Olympus"],
            "Error: 'Mars/Olympus' is not a time zone; give an IANA name such as Asia/Tokyo, an offset such as +09:00, or local"
        ),
        (["mei", "+15:00"], "Error: '+15:00' is not a time zone; give an IANA name such as Asia/Tokyo, an offset such as +09:00, or local"),
        (["mei", "EST"], "Error: 'EST' is not a time zone; give an IANA name such as Asia/Tokyo, an offset such as +09:00, or local"),
        (["mei"], "Error: give a ZONE (e.g. Asia/Tokyo or +09:00), local, or --default"),
        (["mei", "local", "--default"], "Error: give a ZONE or --default, not both"),
    ])
    func badZonesAreUsageErrorsThatStoreNothing(arguments: [String], message: String) async throws {
        let (cli, _) = try await setUp()
        defer { cli.cleanUp() }
        let result = try await cli.run(["zone"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let mei = try await person(cli, "mei")
        #expect(mei["zone"] as? String == "Asia/Tokyo" && mei["zone_from"] as? String == "card")
    }
}
