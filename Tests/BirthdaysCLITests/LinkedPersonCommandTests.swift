import BirthdayCore
import Foundation
import TestSupport
import Testing

/// A person of several cards through the real binary (issue 43): one card
/// split off with `unlink --card`, `link --date-from` checked against the
/// cards' sources, `show` telling where the person comes from and whose date
/// they have, and the choices made on a card carried over to the person it
/// is shown as.
@Suite struct LinkedPersonCommandTests {
    static func card(_ uid: String, _ name: String, _ birthday: String, extra: String = "") -> String {
        PersonLinkCommandTests.card(uid, name, birthday, extra: extra)
    }

    static func ids(_ cli: CLIProcess) async throws -> [String] {
        try #require(try await cli.json(["people"]) as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    // MARK: unlink --card

    @Test func unlinkCardSplitsOneCardOffAndKeepsItOffAcrossImportsAndSyncs() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await PersonLinkCommandTests.adaThreeTimes(cli)
        try #require(try await Self.ids(cli) == ["ada-icloud"])

        let unlink = try await cli.run("unlink", "ada", "--card", "nextcloud:ada-nextcloud")
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(unlink.stdout.contains("ada-nextcloud shown as ada-nextcloud"), "\(unlink.stdout)")
        let people = try #require(try await cli.json(["people"]) as? [[String: Any]])
        #expect(people.compactMap { $0["id"] as? String } == ["ada-icloud", "ada-nextcloud"])
        let cards = (people.first?["cards"] as? [[String: Any]])?.compactMap { $0["source"] as? String }
        #expect(cards == ["icloud.vcf", "google.csv"], "the other two stay one person")

        // Remembered: the same e-mail address links it again on neither a re-import nor a sync.
        #expect(try await cli.run("import", cli.path("icloud.vcf"), cli.path("google.csv")).status == 0)
        #expect(try await cli.run("sources", "sync").status == 0)
        #expect(try await Self.ids(cli) == ["ada-icloud", "ada-nextcloud"])
        #expect((try await cli.json(["duplicates"]) as? [Any])?.isEmpty == true)
    }

    /// Cards linked by hand through the card split off stay one person without it.
    @Test func unlinkCardOfTheCardThatHeldTheOthersKeepsTheOthersTogether() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "three.vcf",
            Self.card("bob-a", "Bob Babbage", "1971-12-26") + Self.card("bob-b", "Robert Babbage", "1971-12-26")
                + Self.card("bob-c", "B. Babbage", "--12-26")
        )
        #expect(try await cli.run("import", file).status == 0)
        let link = try await cli.run("link", "bob-a", "bob-b", "bob-c")
        try #require(link.status == 0, "\(link.stderr)")
        #expect(try await Self.ids(cli) == ["bob-a"])

        let unlink = try await cli.run("unlink", "bob-b", "--card", "three.vcf:bob-a")
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(try await Self.ids(cli) == ["bob-a", "bob-b"], "bob-b and bob-c were linked through bob-a only")
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await Self.ids(cli) == ["bob-a", "bob-b"])
    }

    /// The card split off is the one the person is shown as, whose row holds
    /// the choices made on the person: the cards kept, now shown as the next
    /// id, keep them (the greeting moves, never doubled); the card split off keeps a copy.
    @Test func unlinkCardOfTheCardThePersonIsShownAsLeavesTheChoicesWithTheOthers() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "three.vcf",
            Self.card("bob-a", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@old.example\r\n")
                + Self.card("bob-b", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-c", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [
            ["link", "bob-a", "bob-b", "bob-c"], ["note", "bob", "Likes trains"], ["remind", "bob", "--days", "7"], ["zone", "bob", "Asia/Tokyo"],
            ["greet", "add", "bob"], ["greet", "skip", "bob"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        try #require(try await Self.ids(cli) == ["bob-a"])

        let unlink = try await cli.run("unlink", "bob-c", "--card", "three.vcf:bob-a")
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(try await Self.ids(cli) == ["bob-a", "bob-b"])
        let kept = try CLIProcess.object(try await cli.run("show", "bob-c", "--json").stdout)
        #expect(kept["id"] as? String == "bob-b")
        #expect(kept["note"] as? String == "Likes trains", "\(kept)")
        #expect(kept["reminder_days"] as? [Int] == [7])
        #expect(kept["zone"] as? String == "Asia/Tokyo")
        let greetings = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        #expect(greetings.count == 1, "one friend, one greeting: \(greetings)")
        #expect(greetings.first?["person"] as? String == "bob-b")
        #expect((greetings.first?["people"] as? [[String: Any]])?.first?["skipped_year"] as? Int == 2026, "\(greetings)")

        // The card split off keeps a copy: nothing recorded what it had chosen before the link.
        let split = try CLIProcess.object(try await cli.run("show", "bob-a", "--json").stdout)
        #expect(split["note"] as? String == "Likes trains")
        #expect(split["reminder_days"] as? [Int] == [7])
    }

    /// A sync that removes the card a person is shown as (on whose row the
    /// choices made on the person are kept) leaves those choices with the
    /// cards that stay, as `unlink --card` of that card does.
    @Test func aSyncThatRemovesTheShownCardLeavesTheChoicesWithTheOthers() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write("nextcloud/ada.vcf", Self.card("ada-a", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\n"))
        try cli.write("nextcloud/mary.vcf", Self.card("mary", "Mary Somerville", "1780-12-26"))
        try #require(try await cli.run("sources", "add", folder).status == 0)
        let phone = try cli.write("phone.vcf", Self.card("ada-b", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\n"))
        try #require(try await cli.run("import", phone).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["note", "ada", "Likes engines"], ["remind", "ada", "--days", "7"], ["greet", "add", "ada"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        try #require(try await Self.ids(cli) == ["ada-a", "mary"])

        try FileManager.default.removeItem(atPath: cli.path("nextcloud/ada.vcf"))
        let sync = try await cli.run("sources", "sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try await Self.ids(cli) == ["ada-b", "mary"])
        let kept = try CLIProcess.object(try await cli.run("show", "ada-b", "--json").stdout)
        #expect(kept["note"] as? String == "Likes engines", "\(kept)")
        #expect(kept["reminder_days"] as? [Int] == [7])
        let greetings = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        #expect(greetings.map { $0["person"] as? String } == ["ada-b"], "\(greetings)")
    }

    /// `unlink --card` on the morning of a birthday whose greeting went
    /// already: the person kept (who takes the greeting) and the card split
    /// off are not greeted again that day; one friend, one greeting per birthday.
    /// `bob-b+own`: the card split off had a greeting of its own before the link (kept as that card's own).
    @Test(arguments: ["bob-a", "bob-b", "bob-b+own"]) func unlinkCardAfterTheGreetingWentGreetsNobodyAgain(split: String) async throws {
        let card = "three.vcf:" + (split.split(separator: "+").first.map(String.init) ?? split)
        let cli = try CLIProcess(now: "2026-12-26T08:00:00+01:00")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "three.vcf",
            Self.card("bob-a", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-b", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        // With a greeting of its own, each card had one before the link: bob-a's is the person's.
        let steps =
            split.hasSuffix("+own")
            ? [["greet", "add", "bob-a"], ["greet", "add", "bob-b", "--message", "Hi {first}"], ["link", "bob-a", "bob-b"]]
            : [["link", "bob-a", "bob-b"], ["greet", "add", "bob-a"]]
        for arguments in steps {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let sent = try await cli.run(at: "2026-12-26T09:30:00+01:00", "deliver", "--once")
        try #require(sent.status == 0, "\(sent.stderr)")
        func greetings() async throws -> [String] {
            try await cli.deliveries().filter { $0.notificationID.hasPrefix("greet:") }.map { "\($0.notificationID) \($0.state)" }
        }
        let first = try await greetings()
        try #require(first.count == 1, "\(first)")

        let unlink = try await cli.run(at: "2026-12-26T10:00:00+01:00", "unlink", "bob", "--card", card)
        #expect(unlink.status == 0, "\(unlink.stderr)")
        let again = try await cli.run(at: "2026-12-26T10:30:00+01:00", "deliver", "--once")
        #expect(again.status == 0, "\(again.stderr)")
        let after = try await greetings()
        #expect(after.count == 1, "greeted twice on one birthday: \(after)")
    }

    /// A person of three cards (a shares an address with b, a number with c)
    /// whose card a leaves: b and c become two people, and each keeps what
    /// was chosen for the person (an excluded friend stays excluded); the
    /// greeting goes to one of them.
    @Test func aSyncThatRemovesTheCardHoldingTheOthersTogetherLeavesTheChoicesWithEach() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write(
            "nextcloud/ada.vcf",
            Self.card("ada-a", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\nTEL:+44 20 7946 0000\r\n")
        )
        try cli.write("nextcloud/mary.vcf", Self.card("mary", "Mary Somerville", "1780-12-26"))
        try #require(try await cli.run("sources", "add", folder).status == 0)
        let phone = try cli.write(
            "phone.vcf",
            Self.card("ada-b", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\n")
                + Self.card("ada-c", "Ada Lovelace", "1815-12-10", extra: "TEL:+44 20 7946 0000\r\n")
        )
        try #require(try await cli.run("import", phone).status == 0)
        try #require(try await Self.ids(cli) == ["ada-a", "mary"])
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["note", "ada", "Likes engines"], ["remind", "ada", "--days", "7"], ["greet", "add", "ada"], ["exclude", "ada"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }

        try FileManager.default.removeItem(atPath: cli.path("nextcloud/ada.vcf"))
        let sync = try await cli.run("sources", "sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try await Self.ids(cli).sorted() == ["ada-b", "ada-c", "mary"])
        for card in ["ada-b", "ada-c"] {
            let kept = try CLIProcess.object(try await cli.run("show", card, "--json").stdout)
            #expect(kept["note"] as? String == "Likes engines", "\(card): \(kept)")
            #expect(kept["reminder_days"] as? [Int] == [7], "\(card)")
            #expect(kept["excluded"] as? Bool == true, "\(card): \(kept)")
        }
        let greetings = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        #expect(greetings.map { $0["person"] as? String } == ["ada-b"], "\(greetings)")
    }

    /// A choice cleared on the person stays cleared on each card that stays
    /// when the card that held them together goes: a card's own choice from
    /// before the link does not come back.
    @Test func aChoiceClearedOnThePersonStaysClearedOnEachCardThatStays() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let phone = try cli.write(
            "phone.vcf",
            Self.card("ada-b", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\n")
                + Self.card("ada-c", "Ada Lovelace", "1815-12-10", extra: "TEL:+44 20 7946 0000\r\n")
        )
        try #require(try await cli.run("import", phone).status == 0)
        try #require(try await cli.run("remind", "ada-c", "--days", "3").status == 0)
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write(
            "nextcloud/ada.vcf",
            Self.card("ada-a", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\nTEL:+44 20 7946 0000\r\n")
        )
        try cli.write("nextcloud/mary.vcf", Self.card("mary", "Mary Somerville", "1780-12-26"))
        try #require(try await cli.run("sources", "add", folder).status == 0)
        try #require(try await Self.ids(cli) == ["ada-a", "mary"])
        let cleared = try await cli.run("remind", "ada-a", "--default")
        try #require(cleared.status == 0, "\(cleared.stderr)")

        try FileManager.default.removeItem(atPath: cli.path("nextcloud/ada.vcf"))
        #expect(try await cli.run("sources", "sync").status == 0)
        #expect(try await Self.ids(cli).sorted() == ["ada-b", "ada-c", "mary"])
        for card in ["ada-b", "ada-c"] {
            let kept = try CLIProcess.object(try await cli.run("show", card, "--json").stdout)
            #expect(kept["reminder_days"] as? [Int] == nil, "\(card): \(kept)")
        }
    }

    /// The same, when the smallest card that stays has a greeting of its
    /// own from before the link: it keeps its own, and the person's goes to
    /// the next card that stays (not lost).
    @Test func aSyncThatRemovesTheCardHoldingTheOthersTogetherGivesTheGreetingToACardWithoutOne() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let folder = cli.path("nextcloud")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try cli.write(
            "nextcloud/ada.vcf",
            Self.card("ada-a", "Ada Lovelace", "1815-12-10", extra: "EMAIL:ada@example.org\r\nTEL:+44 20 7946 0000\r\n")
        )
        try cli.write("nextcloud/mary.vcf", Self.card("mary", "Mary Somerville", "1780-12-26"))
        try #require(try await cli.run("sources", "add", folder).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        try #require(try await cli.run("greet", "add", "ada-a").status == 0)
        // ada-b, not yet linked, is greeted on its own; then its card gets the address that links it.
        let phone = cli.path("phone.vcf")
        for (email, greet) in [("ada@home.example", true), ("ada@example.org", false)] {
            try cli.write(
                "phone.vcf",
                Self.card("ada-b", "Ada Lovelace", "1815-12-10", extra: "EMAIL:\(email)\r\n")
                    + Self.card("ada-c", "Ada Lovelace", "1815-12-10", extra: "TEL:+44 20 7946 0000\r\n")
            )
            try #require(try await cli.run("import", phone).status == 0)
            if greet {
                try #require(try await Self.ids(cli).sorted() == ["ada-a", "ada-b", "mary"])
                let own = try await cli.run("greet", "add", "ada-b", "--message", "Hi {first}")
                try #require(own.status == 0, "\(own.stderr)")
            }
        }
        try #require(try await Self.ids(cli).sorted() == ["ada-a", "mary"])

        try FileManager.default.removeItem(atPath: cli.path("nextcloud/ada.vcf"))
        let sync = try await cli.run("sources", "sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try await Self.ids(cli).sorted() == ["ada-b", "ada-c", "mary"])
        let greetings = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        #expect(greetings.compactMap { $0["person"] as? String }.sorted() == ["ada-b", "ada-c"], "\(greetings)")
        #expect(greetings.first { $0["person"] as? String == "ada-b" }?["message"] as? String == "Hi {first}", "\(greetings)")
    }

    /// `unlink --card` naming no card of the person changes nothing, not even the skipped greetings.
    @Test func unlinkCardNamingNoCardAfterTheGreetingWentWritesNothing() async throws {
        let cli = try CLIProcess(now: "2026-12-26T08:00:00+01:00")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "three.vcf",
            Self.card("bob-a", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-b", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["link", "bob-a", "bob-b"], ["greet", "add", "bob-a"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        try #require(try await cli.run(at: "2026-12-26T09:30:00+01:00", "deliver", "--once").status == 0)
        let unlink = try await cli.run(at: "2026-12-26T10:00:00+01:00", "unlink", "bob", "--card", "wrong:x")
        #expect(unlink.status == 64, "\(unlink.stderr)")
        let skips = try await TestProcess.run([
            SystemTools.python, "-c",
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM greetingSkip').fetchone()[0])",
            cli.databasePath,
        ])
        try #require(skips.status == 0, "\(skips.stderr)")
        #expect(skips.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// A card split off the morning of the person's greeting whose own
    /// birthday is another day is greeted on its own day.
    @Test func aCardSplitOffWithAnotherBirthdayKeepsItsOwnGreeting() async throws {
        let cli = try CLIProcess(now: "2026-12-26T08:00:00+01:00")
        defer { cli.cleanUp() }
        let home = try cli.write("home.vcf", Self.card("bob-a", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n"))
        let work = try cli.write("work.vcf", Self.card("bob-b", "Bob Babbage", "1971-12-27", extra: "EMAIL:bob@work.example\r\n"))
        #expect(try await cli.run("import", home, work).status == 0)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["greet", "add", "bob-a"], ["greet", "add", "bob-b", "--message", "Hi {first}"], ["link", "bob-a", "bob-b"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        func greetings() async throws -> [String] {
            try await cli.deliveries().filter { $0.notificationID.hasPrefix("greet:") && $0.state == .delivered }.map(\.notificationID)
        }
        try #require(try await cli.run(at: "2026-12-26T09:30:00+01:00", "deliver", "--once").status == 0)
        try #require(try await greetings().count == 1, "the person is greeted on 26 December")
        let unlink = try await cli.run(at: "2026-12-26T10:00:00+01:00", "unlink", "bob", "--card", "work.vcf:bob-b")
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(try await cli.run(at: "2026-12-27T09:30:00+01:00", "deliver", "--once").status == 0)
        let after = try await greetings()
        #expect(after.count == 2 && after.contains { $0.contains("bob-b") }, "\(after)")
    }

    @Test func unlinkCardNamingNoCardOfThePersonIsAUsageError() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await PersonLinkCommandTests.adaThreeTimes(cli)

        let source = try await cli.run("unlink", "ada", "--card", "outlook.csv:ada-icloud")
        #expect(source.status == 64)
        let sourceError = source.stderr.split(separator: "\n").first.map(String.init)
        #expect(sourceError == "Error: 'outlook.csv' is not a source of ada-icloud's cards; they come from google.csv, icloud.vcf, nextcloud")

        let uid = try await cli.run("unlink", "ada", "--card", "icloud.vcf:ada-phone")
        #expect(uid.status == 64)
        #expect(uid.stderr.split(separator: "\n").first == "Error: ada-icloud's cards from icloud.vcf have no uid 'ada-phone'; theirs: ada-icloud")

        let shape = try await cli.run("unlink", "ada", "--card", "ada-icloud")
        #expect(shape.status == 64)
        #expect(shape.stderr.contains("is not SOURCE:UID"))
        // Nothing was written.
        #expect(try await Self.ids(cli) == ["ada-icloud"])
    }

    @Test func unlinkCardOfAPersonOfOneCardIsAUsageError() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1815-12-10")])
        let split = try await cli.run("unlink", "ada", "--card", "people.vcf:ada")
        #expect(split.status == 64)
        #expect(split.stderr.split(separator: "\n").first == "Error: ada is one card; there is nothing to split off", "\(split.stderr)")
        let unlink = try await cli.run("unlink", "ada")
        #expect(unlink.stdout.hasPrefix("One person of 1 card:\n"), "\(unlink.stdout)")
    }

    // MARK: link --date-from

    @Test func linkDateFromASourceNoneOfTheCardsComesFromIsAUsageError() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        #expect(try await cli.run("import", phone, work).status == 0)

        let link = try await cli.run("link", "bob-phone", "bob-work", "--date-from", "home.vcf")
        #expect(link.status == 64)
        #expect(
            link.stderr.split(separator: "\n").first
                == "Error: --date-from 'home.vcf' is not a source of their cards; they come from phone.vcf, work.vcf"
        )
        #expect(try await Self.ids(cli) == ["bob-phone", "bob-work"], "nothing was linked")
    }

    // MARK: show

    @Test func showNamesTheCardsAndWhoseDateIsUsedWhenTheyDisagree() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        #expect(try await cli.run("import", phone, work).status == 0)
        #expect(try await cli.run("link", "bob-phone", "bob-work").status == 0)

        // Shown through either card: the person they are shown as.
        for query in ["bob-phone", "bob-work"] {
            let show = try await cli.run("show", query)
            #expect(show.status == 0, "\(show.stderr)")
            let lines = show.stdout.split(separator: "\n").map(String.init)
            #expect(lines.prefix(2) == ["Bob Babbage", "Id: bob-phone"])
            #expect(lines.contains("From: phone.vcf, card bob-phone"))
            #expect(lines.contains("From: work.vcf, card bob-work"))
            #expect(
                lines.contains("The cards disagree on the birthday: 1971-12-26 (phone.vcf, card bob-phone) and 1972-12-26 (work.vcf, card bob-work)"),
                "\(lines)"
            )
            #expect(
                lines.contains("Used: the date from phone.vcf (card bob-phone), the first by source name (none changed more recently)"),
                "\(lines)"
            )
        }
        let json = try CLIProcess.object(try await cli.run("show", "bob-phone", "--json").stdout)
        let choice = try #require(json["birthday_choice"] as? [String: Any])
        #expect(choice["used"] as? String == "bob-phone")
        #expect(choice["reason"] as? String == "order")
        #expect((choice["cards"] as? [[String: Any]])?.compactMap { $0["date"] as? String } == ["1971-12-26", "1972-12-26"])
        #expect((json["cards"] as? [[String: Any]])?.compactMap { $0["source"] as? String } == ["phone.vcf", "work.vcf"])

        #expect(try await cli.run("link", "bob-phone", "bob-work", "--date-from", "work.vcf").status == 0)
        let chosen = try await cli.run("show", "bob")
        #expect(
            chosen.stdout.contains("Used: the date from work.vcf (card bob-work), the source chosen with birthdays link --date-from"),
            "\(chosen.stdout)"
        )
        #expect(chosen.stdout.contains("1972-12-26"), "the birthday line is the chosen card's")
        let chosenJSON = try CLIProcess.object(try await cli.run("show", "bob", "--json").stdout)
        #expect((chosenJSON["birthday_choice"] as? [String: Any])?["reason"] as? String == "date-from")
        #expect((chosenJSON["birthday"] as? [String: Any])?["year"] as? Int == 1972)
    }

    /// Two cards of one source: the card whose date is used is named by its uid too, the one `show --json` names.
    @Test func showSaysTheCardWithAYearGoesFirstWhenTheDaysDisagree() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write("two.vcf", Self.card("eve-a", "Eve Hopper", "--05-10") + Self.card("eve-b", "Eve Hopper", "1990-05-01"))
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await cli.run("link", "eve-a", "eve-b").status == 0)
        let show = try await cli.run("show", "eve")
        #expect(
            show.stdout.contains("The cards disagree on the birthday: 05-10 (two.vcf, card eve-a) and 1990-05-01 (two.vcf, card eve-b)"),
            "\(show.stdout)"
        )
        #expect(show.stdout.contains("Used: the date from two.vcf (card eve-b), the card with a year"), "\(show.stdout)")
        let json = try CLIProcess.object(try await cli.run("show", "eve", "--json").stdout)
        let choice = try #require(json["birthday_choice"] as? [String: Any])
        #expect(choice["used"] as? String == "eve-b")
        let used = (choice["cards"] as? [[String: Any]])?.first { $0["id"] as? String == "eve-b" }
        #expect(used?["source"] as? String == "two.vcf" && used?["uid"] as? String == "eve-b", "\(choice)")
    }

    /// A choice made on a linked person is no change of a card: it does not move whose birthday they have; a changed card does.
    @Test func aChoiceMadeOnThePersonDoesNotChooseTheirBirthday() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        #expect(try await cli.run(at: "2026-03-01T08:00:00+01:00", "import", phone).status == 0)
        #expect(try await cli.run(at: "2026-03-02T08:00:00+01:00", "import", work).status == 0)
        #expect(try await cli.run("link", "bob-phone", "bob-work").status == 0)
        let used = "Used: the date from work.vcf (card bob-work), the card changed most recently"
        try #require(try await cli.run("show", "bob").stdout.contains(used))

        // Every choice is made on the person's row, bob-phone's, after the work card last changed (now is 2026-03-10).
        for arguments in [
            ["note", "bob", "Likes trains"], ["remind", "bob", "--days", "3", "--weekend", "friday"], ["zone", "bob", "Asia/Tokyo"],
            ["exclude", "bob"], ["include", "bob"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let show = try await cli.run("show", "bob")
        #expect(show.stdout.contains(used), "\(show.stdout)")
        let json = try CLIProcess.object(try await cli.run("show", "bob", "--json").stdout)
        #expect((json["birthday"] as? [String: Any])?["year"] as? Int == 1972, "\(json)")
        #expect((json["birthday_choice"] as? [String: Any])?["used"] as? String == "bob-work")

        // The phone's card changed later at its source: now its date is the person's.
        _ = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26", extra: "NICKNAME:Bobby\r\n"))
        #expect(try await cli.run(at: "2026-03-06T08:00:00+01:00", "import", phone).status == 0)
        let changed = try await cli.run("show", "bob")
        #expect(changed.stdout.contains("Used: the date from phone.vcf (card bob-phone), the card changed most recently"), "\(changed.stdout)")
    }

    @Test func showSaysTheCardChangedMostRecentlyWins() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        #expect(try await cli.run(at: "2026-03-01T08:00:00+01:00", "import", phone).status == 0)
        #expect(try await cli.run(at: "2026-03-02T08:00:00+01:00", "import", work).status == 0)
        #expect(try await cli.run("link", "bob-phone", "bob-work").status == 0)
        let show = try await cli.run("show", "bob")
        #expect(show.stdout.contains("Used: the date from work.vcf (card bob-work), the card changed most recently"), "\(show.stdout)")
    }

    @Test func showOfOneCardAloneSaysNothingOfCards() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1815-12-10")])
        let show = try await cli.run("show", "ada")
        #expect(!show.stdout.contains("From:"))
        let json = try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)
        #expect((json["cards"] as? [[String: Any]])?.count == 1)
        #expect(json["birthday_choice"] is NSNull)
    }

    // MARK: A hidden card names its person

    /// After a link, a card's id, or a name only that card has, is the person it is shown as: what is done to it is theirs.
    @Test func aHiddenCardsIdOrNameFindsThePersonItIsShownAs() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "two.vcf",
            Self.card("bob-phone", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-work", "Robert Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        #expect(try await cli.run("link", "bob-phone", "bob-work").status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [
            ["note", "bob-work", "Likes trains"], ["zone", "robert", "Asia/Tokyo"], ["remind", "bob-work", "--days", "3"],
            ["greet", "add", "bob-phone"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let person = try CLIProcess.object(try await cli.run("show", "bob-phone", "--json").stdout)
        #expect(person["note"] as? String == "Likes trains")
        #expect(person["zone"] as? String == "Asia/Tokyo")
        #expect(person["reminder_days"] as? [Int] == [3])

        // The person is greeted already, whichever card names them.
        let again = try await cli.run("greet", "add", "bob-work")
        #expect(again.status != 0)
        #expect(again.stderr.contains("Bob Babbage is greeted already"), "\(again.stderr)")

        let excluded = try await cli.run("exclude", "robert")
        #expect(excluded.status == 0, "\(excluded.stderr)")
        #expect(try CLIProcess.object(try await cli.run("show", "bob-phone", "--json").stdout)["excluded"] as? Bool == true)
        let show = try await cli.run("show", "robert")
        #expect(show.stdout.split(separator: "\n").prefix(2) == ["Bob Babbage", "Id: bob-phone"], "\(show.stdout)")
    }

    // MARK: Greetings as the person is shown

    /// A greeting and a skip chosen on a card before it was linked are the
    /// person's: listed, skipped and removed as theirs, to the card's address,
    /// and kept when a sync drops the card.
    @Test func aGreetingChosenOnACardIsThePersonsOnceLinked() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n"))
        let folder = cli.path("work")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let workCard = try cli.write("work/bob.vcf", Self.card("bob-work", "Robert Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n"))
        #expect(try await cli.run("import", phone).status == 0)
        #expect(try await cli.run("sources", "add", folder).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["greet", "add", "bob-work"], ["greet", "skip", "bob-work"], ["link", "bob-phone", "bob-work"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }

        func listed() async throws -> [[String: Any]] { try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout) }
        let list = try await listed()
        try #require(list.count == 1, "\(list)")
        #expect(list[0]["person"] as? String == "bob-phone")
        #expect(list[0]["to"] as? String == "bob@work.example", "still to the card's address")
        let member = try #require((list[0]["people"] as? [[String: Any]])?.first)
        #expect(member["id"] as? String == "bob-phone")
        #expect(member["skipped_year"] as? Int == 2026, "the card's skip is the person's")

        // The card leaves with its file: the person is still greeted.
        try FileManager.default.removeItem(atPath: workCard)
        let synced = try await cli.run("sources", "sync", "work", "--allow-mass-removal")
        #expect(synced.status == 0, "\(synced.stdout)\(synced.stderr)")
        #expect(try await listed().first?["person"] as? String == "bob-phone")

        let removed = try await cli.run("greet", "remove", "bob")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Bob Babbage is no longer greeted.\n")
        #expect(try await listed().isEmpty)
    }

    /// Two cards greeted apart and linked, then a card with a smaller id
    /// joining them: the person's greeting goes to the new shown card, the
    /// other card keeps its own, and the import goes through.
    @Test func aCardJoiningAPersonGreetedOnTwoCardsTakesThePersonsGreeting() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let two = try cli.write(
            "two.vcf",
            Self.card("bob-b", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-c", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", two).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["greet", "add", "bob-b", "--message", "Hi {first}"], ["greet", "add", "bob-c"], ["link", "bob-b", "bob-c"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let phone = try cli.write("phone.vcf", Self.card("bob-a", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n"))
        let imported = try await cli.run("import", phone)
        #expect(imported.status == 0, "\(imported.stderr)")
        try #require(try await Self.ids(cli) == ["bob-a"])
        let list = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        #expect(list.first?["person"] as? String == "bob-a", "\(list)")
        #expect(list.first?["message"] as? String == "Hi {first}")
    }

    // MARK: Choices read through the links

    /// Left out of a room on a card before it was linked: the person stays out; `include` on the person takes them back in.
    @Test func aRoomExclusionMadeOnAHiddenCardKeepsThePersonOut() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "team.vcf",
            Self.card("bob-phone", "Bob Babbage", "1971-12-10") + Self.card("bob-work", "Bob Babbage", "1971-12-10", extra: "CATEGORIES:Team\r\n")
                + Self.card("carl", "Carl Friedrich", "1977-12-10", extra: "CATEGORIES:Team\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        for arguments in [
            ["announce", "add", "http://127.0.0.1:9/team", "--group", "Team"], ["exclude", "bob-work", "--announce", "team"],
            ["link", "bob-phone", "bob-work"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        func room() async throws -> [String: Any] { try #require(try CLIProcess.array(try await cli.run("announce", "list", "--json").stdout).first) }
        let out = try await room()
        #expect(out["next_day"] as? String == "2026-12-10")
        #expect(out["next_people"] as? Int == 1, "Carl alone: \(out)")
        #expect(out["excluded"] as? Int == 1)

        #expect(try await cli.run("include", "bob", "--announce", "team").status == 0)
        let back = try await room()
        #expect(back["next_people"] as? Int == 2, "\(back)")
        #expect(back["excluded"] as? Int == 0)
    }

    /// A source's rule reaches a person through a card of that source shown as them, as a group's rule does.
    @Test func aSourceRuleReachesThePersonOfAHiddenCardOfThatSource() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        let folder = cli.path("work")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try cli.write("work/bob.vcf", Self.card("bob-work", "Bob Babbage", "1971-12-26"))
        for arguments in [["import", phone], ["sources", "add", folder], ["link", "bob-phone", "bob-work"], ["exclude", "--source", "work"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        try #require(try await Self.ids(cli) == ["bob-phone"])

        let show = try CLIProcess.object(try await cli.run("show", "bob", "--json").stdout)
        #expect(show["excluded"] as? Bool == true, "\(show)")
        #expect(show["excluded_by"] as? String == "source" && show["excluded_by_name"] as? String == "work", "\(show)")
        #expect(!(try await cli.run("export").stdout.contains("Bob Babbage")), "no event for a person left out")

        #expect(try await cli.run("include", "--source", "work").status == 0)
        #expect(try await cli.run("export").stdout.contains("Bob Babbage"))
    }

    // MARK: link after unlink, and --date-from again

    /// `link` of two cards an earlier `unlink --card` kept apart from a third links them, whatever that third card is kept from.
    @Test func linkUndoesTheKeepSeparateOfAnEarlierUnlinkOfThreeCards() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await PersonLinkCommandTests.adaThreeTimes(cli)
        #expect(try await cli.run("unlink", "ada", "--card", "nextcloud:ada-nextcloud").status == 0)
        try #require(try await Self.ids(cli) == ["ada-icloud", "ada-nextcloud"])

        let link = try await cli.run("link", "ada-icloud", "ada-nextcloud")
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout.hasPrefix("One person of 3 cards:"), "\(link.stdout)")
        #expect(try await Self.ids(cli) == ["ada-icloud"])

        // After a full unlink too.
        #expect(try await cli.run("unlink", "ada").status == 0)
        try #require(try await Self.ids(cli).count == 3)
        let google = try #require(try await Self.ids(cli).first { $0.hasPrefix("c-") })
        #expect(try await cli.run("link", "ada-nextcloud", google, "ada-icloud").status == 0)
        #expect(try await Self.ids(cli) == ["ada-icloud"])
    }

    /// A second `--date-from` replaces the first: `show` and the reminders use the same date.
    @Test func aSecondDateFromReplacesTheFirst() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let phone = try cli.write("phone.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26"))
        let work = try cli.write("work.vcf", Self.card("bob-work", "Bob Babbage", "1972-12-26"))
        #expect(try await cli.run("import", phone, work).status == 0)
        // The first kept on bob-phone; after an unlink, the second given through bob-work.
        for arguments in [
            ["link", "bob-phone", "bob-work", "--date-from", "phone.vcf"], ["unlink", "bob-phone"],
            ["link", "bob-work", "bob-phone", "--date-from", "work.vcf"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }

        let show = try CLIProcess.object(try await cli.run("show", "bob", "--json").stdout)
        #expect((show["birthday"] as? [String: Any])?["year"] as? Int == 1972, "\(show)")
        #expect((show["birthday_choice"] as? [String: Any])?["used"] as? String == "bob-work")
        let upcoming = try CLIProcess.array(try await cli.run("upcoming", "--json").stdout)
        #expect(upcoming.first { $0["id"] as? String == "bob-phone" }?["age"] as? Int == 54, "\(upcoming)")
    }

    // MARK: Choices carried over

    /// An import that links two people who had each made a choice says
    /// which is kept, in its text and in `--json` (a note's words in neither).
    @Test(arguments: [false, true]) func anImportThatLinksSaysTheConflicts(json: Bool) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let apart =
            Self.card("bob-phone", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
            + Self.card("bob-work", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        let file = try cli.write("two.vcf", apart)
        #expect(try await cli.run("import", file).status == 0)
        for arguments in [["remind", "bob-phone", "--days", "7"], ["remind", "bob-work", "--days", "3"], ["note", "bob-work", "Likes trains"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        #expect(try await Self.ids(cli) == ["bob-phone", "bob-work"], "two people while they share no address")

        // The work card now gives the home address too: one person.
        let together = apart.replacingOccurrences(of: "EMAIL:bob@work.example", with: "EMAIL:bob@work.example\r\nEMAIL:bob@home.example")
        _ = try cli.write("two.vcf", together)
        let imported = try await cli.run(json ? ["import", "--json", file] : ["import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await Self.ids(cli) == ["bob-phone"])
        if json {
            let conflicts = try #require(try CLIProcess.object(imported.stdout)["conflicts"] as? [[String: Any]])
            #expect(conflicts.count == 1, "\(conflicts)")
            #expect(conflicts.first?["choice"] as? String == "reminderDays")
            #expect(conflicts.first?["person"] as? String == "bob-phone" && conflicts.first?["card"] as? String == "bob-work")
            #expect(conflicts.first?["kept"] as? String == "7" && conflicts.first?["other"] as? String == "3")
        } else {
            let lines = imported.stdout.split(separator: "\n")
            #expect(lines.count == 2, "the summary and one conflict: \(imported.stdout)")
            #expect(lines.last == "remind --days: kept 7 of bob-phone, not 3 of bob-work (still that card's own)")
        }
        #expect(!imported.stdout.contains("trains"))
    }

    @Test func choicesMadeOnACardCarryOverAndConflictsAreSaid() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "two.vcf",
            Self.card("bob-phone", "Bob Babbage", "1971-12-26")
                + Self.card("bob-work", "Bob Babbage", "1971-12-26", extra: "CATEGORIES:Work\r\nEMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        for arguments in [
            ["remind", "bob-phone", "--days", "7"], ["remind", "bob-work", "--days", "3"], ["zone", "bob-work", "Asia/Tokyo"],
            ["note", "bob-work", "Likes trains"], ["exclude", "bob-work"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }

        let link = try await cli.run("link", "bob-phone", "bob-work")
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout.contains("remind --days: kept 7 of bob-phone, not 3 of bob-work (still that card's own)"), "\(link.stdout)")
        #expect(link.stdout.split(separator: "\n").count == 4, "two cards and one conflict: \(link.stdout)")

        let json = try CLIProcess.object(try await cli.run("show", "bob-phone", "--json").stdout)
        #expect(json["reminder_days"] as? [Int] == [7])
        #expect(json["zone"] as? String == "Asia/Tokyo")
        #expect(json["note"] as? String == "Likes trains")
        #expect(json["excluded"] as? Bool == true)
        #expect(json["groups"] as? [String] == ["Work"])
        let inWork = try #require(try await cli.json(["people", "--group", "Work"]) as? [[String: Any]])
        #expect(inWork.compactMap { $0["id"] as? String } == ["bob-phone"])

        // Unlinked, each card has its own choices again: bob-work its 3 days, bob-phone its 7 and what bob-work brought.
        #expect(try await cli.run("unlink", "bob-phone").status == 0)
        let work = try CLIProcess.object(try await cli.run("show", "bob-work", "--json").stdout)
        #expect(work["reminder_days"] as? [Int] == [3])
        #expect(work["note"] as? String == "Likes trains")
        let phone = try CLIProcess.object(try await cli.run("show", "bob-phone", "--json").stdout)
        #expect(phone["reminder_days"] as? [Int] == [7])
        #expect(phone["note"] as? String == "Likes trains", "the person keeps what the card brought")
    }

    /// A note carried over from a card and then cleared on the person does not come back when the cards are linked again.
    @Test func aChoiceClearedOnThePersonDoesNotComeBackFromACard() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write("two.vcf", Self.card("bob-phone", "Bob Babbage", "1971-12-26") + Self.card("bob-work", "Bob Babbage", "1971-12-26"))
        #expect(try await cli.run("import", file).status == 0)
        for arguments in [
            ["note", "bob-work", "Likes trains"], ["zone", "bob-work", "Asia/Tokyo"], ["link", "bob-phone", "bob-work"],
            ["note", "bob", "--clear"], ["zone", "bob", "--default"], ["unlink", "bob"], ["link", "bob-phone", "bob-work"],
        ] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let json = try CLIProcess.object(try await cli.run("show", "bob", "--json").stdout)
        #expect(json["id"] as? String == "bob-phone")
        #expect(json["note"] == nil || json["note"] is NSNull, "\(json)")
        #expect(json["zone"] == nil || json["zone"] is NSNull, "\(json)")
    }

    @Test func greetingsChosenDifferentlyOnTwoCardsAreAConflictLinkSays() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "two.vcf",
            Self.card("bob-phone", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@home.example\r\n")
                + Self.card("bob-work", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["greet", "add", "bob-phone", "--message", "Hi {first}"], ["greet", "add", "bob-work"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let link = try await cli.run("link", "bob-phone", "bob-work")
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout.contains("greet: kept email 'Hi {first}' of bob-phone, not email of bob-work (still that card's own)"), "\(link.stdout)")
    }

    /// A person whose shown card has no birthday and whose linked card has
    /// one is greeted on that card's birthday, as they are reminded: `greet
    /// add` takes them, `greet list` and `pending` have that day.
    @Test func aPersonIsGreetedOnTheBirthdayOfALinkedCard() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        let file = try cli.write(
            "two.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob-a\r\nFN:Bob Babbage\r\nEMAIL:bob@home.example\r\nEND:VCARD\r\n"
                + Self.card("bob-b", "Bob Babbage", "1971-12-26", extra: "EMAIL:bob@work.example\r\n")
        )
        #expect(try await cli.run("import", file).status == 0)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        for arguments in [["link", "bob-a", "bob-b"], ["greet", "add", "bob-a"]] {
            let ran = try await cli.run(arguments)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let list = try CLIProcess.array(try await cli.run("greet", "list", "--json").stdout)
        let member = try #require((list.first?["people"] as? [[String: Any]])?.first, "\(list)")
        #expect(member["id"] as? String == "bob-a")
        #expect(member["next_day"] as? String == "2026-12-26", "\(member)")
        let pending = try CLIProcess.array(try await cli.run("pending", "--json").stdout).filter { $0["kind"] as? String == "greeting" }
        #expect(pending.map { $0["person_id"] as? String } == ["bob-a"], "\(pending)")
        #expect((pending.first?["fire_at"] as? String)?.hasPrefix("2026-12-26") == true, "\(pending)")
    }

    /// A greeting chosen on a card only greets the person it is shown as.
    @Test func aGreetingChosenOnAHiddenCardGreetsThePerson() async throws {
        let cli = try CLIProcess(now: "2026-12-08T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await PersonLinkCommandTests.adaThreeTimes(cli)
        try await cli.enableNotifications()
        let channel = try await cli.run("channels", "add", "email", "me@example.org", "--sendmail", "/bin/true")
        try #require(channel.status == 0, "\(channel.stderr)")
        let added = try await cli.run("greet", "add", "ada-nextcloud")
        try #require(added.status == 0, "\(added.stderr)")

        let pending = try await cli.run("pending", "--json")
        try #require(pending.status == 0, "\(pending.stderr)")
        let greetings = try CLIProcess.array(pending.stdout).filter { $0["kind"] as? String == "greeting" }
        #expect(greetings.count == 1, "\(greetings.map { $0["id"] ?? "" })")
        #expect(greetings.first?["person_id"] as? String == "ada-icloud")
    }
}
