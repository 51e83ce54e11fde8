import Foundation
import TestSupport
import Testing

/// `birthdays note PERSON TEXT` and `--clear` through the real binary
/// (issue 34): `show`, `people --json`, `upcoming --json` and the digest
/// carry the note; imports never touch it; the feed carries it only under
/// `notes-on-channels`; ntfy and Gotify likewise; logs never.
@Suite struct PersonNoteCommandTests {
    static let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-17\r\nNOTE:the card's own note\r\nEND:VCARD\r\n"

    private func setUp() async throws -> CLIProcess {
        let cli = try CLIProcess()
        let imported = try await cli.run("import", try cli.write("ada.vcf", Self.card))
        try #require(imported.status == 0, "\(imported.stderr)")
        return cli
    }

    @Test func aNoteIsKeptShownAndClearedAndOutlastsImports() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        #expect(try CLIProcess.object(try await cli.run("show", "ada", "--json").stdout)["note"] is NSNull, "the card's NOTE is not used")
        let kept = try await cli.run("note", "ada", "likes orchids;\nask Ben about the book")
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout == "Note for Ada Lovelace: likes orchids; ask Ben about the book\n")
        #expect(try await cli.run("show", "ada").stdout.contains("\nNote: likes orchids; ask Ben about the book\n"))
        // An import of the same card, edited, keeps the note.
        let edited = Self.card.replacingOccurrences(of: "1990-03-17", with: "1990-03-18")
        #expect((try await cli.json(["import", try cli.write("ada.vcf", edited)]) as? [String: Any])?["updated"] as? Int == 1)
        let people = try CLIProcess.array(try await cli.run("people", "--json").stdout)
        #expect(people.first?["note"] as? String == "likes orchids; ask Ben about the book")
        let upcoming = try CLIProcess.array(try await cli.run("upcoming", "--json").stdout)
        #expect(upcoming.map { $0["note"] as? String } == ["likes orchids; ask Ben about the book"])

        let cleared = try await cli.run("note", "ada", "--clear")
        #expect(cleared.stdout == "Ada Lovelace has no note any more.\n", "\(cleared.stderr)")
        let after = try CLIProcess.array(try await cli.run("upcoming", "--json").stdout)
        #expect(after.count == 1 && after.first?["note"] == nil, "no note, no key")
        #expect(!(try await cli.run("show", "ada").stdout.contains("Note:")))
    }

    @Test func aBadNoteIsRefusedWithASentence() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        let long = try await cli.run("note", "ada", String(repeating: "x", count: 300))
        #expect(long.status != 0)
        #expect(long.stderr.contains("the note has 300 characters; a note holds at most 280"), "\(long.stderr)")
        let both = try await cli.run("note", "ada", "x", "--clear")
        #expect(both.status == 64, "\(both.stderr)")
        let nobody = try await cli.run("note", "zelda", "x")
        #expect(nobody.status != 0 && nobody.stderr.contains("zelda"))
    }

    @Test func theFeedCarriesItOnlyWithNotesOnChannels() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        _ = try await cli.run("note", "ada", "likes orchids")
        let off = try await cli.run("export")
        #expect(off.status == 0 && off.stdout.contains("Ada Lovelace"), "\(off.stderr)")
        #expect(!off.stdout.contains("orchids"))
        try await cli.set("notes-on-channels", "on")
        let on = try await cli.run("export")
        #expect(on.stdout.contains("DESCRIPTION:born 1990\\nlikes orchids"), "\(on.stdout)")
    }

    @Test func theDigestCarriesIt() async throws {
        let cli = try await setUp()
        defer { cli.cleanUp() }
        _ = try await cli.run("note", "ada", "likes orchids")
        try await cli.set("digest", "weekly")
        let preview = try await cli.run("digest")
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("Ada Lovelace") && preview.stdout.contains("Note: likes orchids"), "\(preview.stdout)")
    }
}

extension PushChannelTests {
    /// Ada's note: ntfy and Gotify do not get it the day before (the
    /// setting is off, the default); after `settings set notes-on-channels
    /// on` the day-of message ends with it. The log never holds it.
    @Test func theNoteReachesNtfyAndGotifyOnlyWithNotesOnChannels() async throws {
        let (base, server) = try await Self.setUp()
        var cli = base
        cli.now = "2026-03-08T08:00:00+01:00"
        cli.extraEnvironment["BIRTHDAYS_LOG_LEVEL"] = "trace"
        defer { cli.cleanUp() }
        defer { server.stop() }
        try await cli.set("reminders", "1,0")
        let kept = try await cli.run("note", "ada", "likes orchids")
        #expect(kept.status == 0, "\(kept.stderr)")
        let ntfy = try await cli.run(
            "channels",
            "add",
            "ntfy",
            "\(server.server)/\(Self.topic)",
            "--token-command",
            "cat '\(cli.path("ntfy-token"))'"
        )
        #expect(ntfy.status == 0, "\(ntfy.stderr)")
        let gotify = try await cli.run("channels", "add", "gotify", server.server, "--token-command", "cat '\(cli.path("gotify-token"))'")
        #expect(gotify.status == 0, "\(gotify.stderr)")
        func messages(from start: Int) throws -> [String] {
            let requests = Array(server.requests.dropFirst(start))
            try #require(requests.count == 2, "\(requests)")
            return try requests.map { request in
                let body = try #require(request["body"] as? String)
                return try #require(try CLIProcess.object(body)["message"] as? String)
            }
        }

        let dayBefore = try await cli.run(at: "2026-03-09T09:00:05+01:00", "deliver", "--once")
        #expect(dayBefore.status == 0, "\(dayBefore.stderr)")
        #expect(try messages(from: 0).allSatisfy { !$0.contains("orchids") })

        try await cli.set("notes-on-channels", "on")
        let dayOf = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(dayOf.status == 0, "\(dayOf.stderr)")
        #expect(try messages(from: 2).allSatisfy { $0.hasSuffix("\nNote: likes orchids") }, "\(server.requests)")
        #expect(!(dayBefore.stdout + dayBefore.stderr + dayOf.stdout + dayOf.stderr).contains("orchids"), "never in the log")
    }
}
