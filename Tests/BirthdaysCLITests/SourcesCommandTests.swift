import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays sources …` with the real binary: vdir folders on disk, a real
/// Radicale server, and real vdirsyncer syncing Radicale into a vdir that
/// `birthdays run` watches.
@Suite struct SourcesCommandTests {
    static func card(_ uid: String, _ name: String, _ birthday: String) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
    }

    /// Writes `cards` as one file each into `folder` (created).
    static func vdir(_ folder: String, _ cards: [(String, String, String)]) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (uid, name, birthday) in cards {
            try Data(card(uid, name, birthday).utf8).write(to: URL(fileURLWithPath: folder + "/" + uid + ".vcf"))
        }
    }

    // MARK: - Local sources

    @Test func aVdirSourceFromAddToRemoveWithTheDocumentedJSON() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("contacts")
        try Self.vdir(folder, [("ann", "Ann Example", "1990-04-12"), ("bob", "Bob Example", "1985-07-01")])

        let add = try await cli.run("sources", "add", folder)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == "contacts: added; 2 added, 0 updated, 0 removed, 0 unchanged\n")

        let list = try await CLIProcess.array(try cli.run("sources", "list", "--json").stdout)
        #expect(list.count == 1)
        #expect(Set(list[0].keys) == ["name", "kind", "location", "last_sync", "people", "error"])
        #expect(list[0]["name"] as? String == "contacts")
        #expect(list[0]["kind"] as? String == "vdir")
        #expect(list[0]["location"] as? String == folder)
        #expect(list[0]["last_sync"] as? String == "2026-03-10T08:00:00+01:00")
        #expect(list[0]["people"] as? Int == 2)
        #expect(list[0]["error"] is NSNull)

        try FileManager.default.removeItem(atPath: folder + "/bob.vcf")
        try Data(Self.card("ann", "Ann Example", "1990-04-13").utf8).write(to: URL(fileURLWithPath: folder + "/ann.vcf"))
        try Data("not a card".utf8).write(to: URL(fileURLWithPath: folder + "/broken.vcf"))
        let sync = try await cli.run("sources", "sync", "--json")
        #expect(sync.status == 0, "\(sync.stderr)")
        let object = try CLIProcess.object(sync.stdout)
        let reports = try #require(object["sources"] as? [[String: Any]])
        #expect(Set(reports[0].keys) == ["name", "added", "updated", "removed", "unchanged", "problems", "conflicts"])
        #expect(reports[0]["name"] as? String == "contacts")
        #expect([reports[0]["added"], reports[0]["updated"], reports[0]["removed"], reports[0]["unchanged"]].map { $0 as? Int } == [0, 1, 1, 0])
        let problems = try #require(reports[0]["problems"] as? [[String: Any]])
        #expect(problems.contains { ($0["file"] as? String)?.hasSuffix("broken.vcf") == true && $0["line"] as? Int == 1 })

        // No names of people anywhere in list or status.
        let status = try await cli.run("status", "--json")
        let sources = try #require(try CLIProcess.object(status.stdout)["sources"] as? [[String: Any]])
        #expect(Set(sources[0].keys) == ["name", "kind", "last_sync", "next_sync", "error"])
        #expect(sources[0]["next_sync"] is NSNull, "no daemon runs")
        for output in await [status.stdout, try cli.run("sources", "list").stdout, try cli.run("sources", "list", "--json").stdout] {
            #expect(!output.contains("Example"))
        }

        let remove = try await cli.run("sources", "remove", "contacts")
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout == "Removed source 'contacts'; 1 person left the store.\n")
        await #expect(try cli.run("people", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        await #expect(try cli.run("sources", "list").stdout.hasPrefix("No sources."))
    }

    /// The summaries and the list are in the user's language; errors, `--json` and `status` stay English.
    @Test func sourcesSpeakTheUsersLanguage() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        cli.extraEnvironment["LANG"] = "de_DE.UTF-8"
        let folder = cli.path("kontakte")
        try Self.vdir(folder, [("ann", "Ann Example", "1990-04-12"), ("bob", "Bob Example", "1985-07-01")])
        let add = try await cli.run("sources", "add", folder)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == "kontakte: hinzugefügt; neu: 2, geändert: 0, entfernt: 0, unverändert: 0\n")

        try Data("kein Kontakt".utf8).write(to: URL(fileURLWithPath: folder + "/kaputt.vcf"))
        let sync = try await cli.run("sources", "sync")
        #expect(sync.stdout == "kontakte: abgeglichen; neu: 0, geändert: 0, entfernt: 0, unverändert: 2; 2 Probleme\n")
        let list = try await cli.run("sources", "list").stdout.split(separator: "\n")
        #expect(list.first?.split(separator: " ", omittingEmptySubsequences: true) == ["NAME", "ART", "PERSONEN", "LETZTER", "ABGLEICH", "ORT"])
        #expect(list.count == 2)

        let unknown = try await cli.run("sources", "sync", "Nope")
        #expect(unknown.stderr == "Error: there is no source named 'Nope'; see birthdays sources list\n")
        let remove = try await cli.run("sources", "remove", "kontakte")
        #expect(remove.stdout == "Quelle „kontakte“ entfernt; 2 Personen wurden entfernt.\n")
        await #expect(try cli.run("sources", "list").stdout == "Keine Quellen. Eine hinzufügen mit: birthdays sources add FILE|FOLDER|URL\n")
    }

    /// A name a server or a user gives is one line on a terminal.
    @Test func namesAreOneLine() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("book")
        try Self.vdir(folder, [("ann", "Ann", "1990-04-12")])
        let forged = try await cli.run("sources", "add", folder, "--name", "Book\nError: forged")
        #expect(forged.status == 64)
        // Refused before anything was written: not even the database exists.
        let list = try await cli.run("sources", "list", "--json")
        #expect(list.status == 1 && list.stderr.contains("there is no database"), "\(list.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test func failuresExitWithStatusOneInOneLine() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let folder = cli.path("book")
        try Self.vdir(folder, [("ann", "Ann", "1990-04-12"), ("bob", "Bob", "1985-07-01")])
        let missing = try await cli.run("sources", "add", cli.path("nowhere"))
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot follow \(cli.path("nowhere")): no such file or folder\n")
        await #expect(try cli.run("sources", "add", folder, "--name", "Book").status == 0)
        let duplicate = try await cli.run("sources", "add", folder, "--name", "Book")
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("a source named 'Book' exists already"))
        let unknown = try await cli.run("sources", "sync", "Nope")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: there is no source named 'Nope'; see birthdays sources list\n")
        await #expect(try cli.run("sources", "add", folder, "--username", "x").status == 64)

        // Emptied: refused, exit 1, one line; nobody leaves until it is allowed.
        for uid in ["ann", "bob"] { try FileManager.default.removeItem(atPath: folder + "/\(uid).vcf") }
        let refused = try await cli.run("sources", "sync", "Book")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: Book: refusing to remove 2 of the 2 people of 'Book' (the source looks emptied); "
                + "if that is right, run: birthdays sources sync 'Book' --allow-mass-removal\n"
        )
        await #expect(try CLIProcess.array(try cli.run("people", "--json").stdout).count == 2)
        let list = try await CLIProcess.array(try cli.run("sources", "list", "--json").stdout)
        #expect((list[0]["error"] as? String)?.contains("refusing to remove") == true)
        let allowed = try await cli.run("sources", "sync", "Book", "--allow-mass-removal")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        await #expect(try CLIProcess.array(try cli.run("people", "--json").stdout).isEmpty)
    }

    // MARK: - CardDAV

    @Test func aCardDAVServerDiscoveredFromItsRootWithAPasswordCommand() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let password = "Pa55-\(UUID().uuidString.prefix(8))"
        let server = try await RadicaleServer(password: password)
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        try await server.makeBook("work", displayName: "Work")
        try await server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-04-12")
        try await server.put("work", uid: "bob", name: "Bob Example", birthday: "1985-07-01")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let secretFile = try cli.write("dav-password", password + "\n")

        let add = try await cli.run("sources", "add", server.baseURL, "--username", "alice", "--password-command", "cat '\(secretFile)'", "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let added = try #require(try CLIProcess.object(add.stdout)["sources"] as? [[String: Any]])
        #expect(added.map { $0["name"] as? String } == ["Friends", "Work"])
        #expect(added.map { $0["added"] as? Int } == [1, 1])
        let list = try await CLIProcess.array(try cli.run("sources", "list", "--json").stdout)
        #expect(list.map { $0["location"] as? String } == [server.bookURL("friends"), server.bookURL("work")])
        #expect(list.map { $0["kind"] as? String } == ["carddav", "carddav"])

        // Unchanged books: one request each.
        let before = server.requests(userAgent: "birthdays")
        let sync = try await cli.run("sources", "sync", "--json")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(server.requests(userAgent: "birthdays") - before == 2)

        // A password command that now prints the wrong password: 401, exit 1, nothing changes.
        try Data("wrong\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let denied = try await cli.run("sources", "sync", "Friends")
        #expect(denied.status == 1)
        #expect(
            denied.stderr
                == "Error: Friends: \(server.bookURL("friends")) refused the username or password (HTTP 401); check --username and --password-command\n"
        )
        await #expect(try CLIProcess.array(try cli.run("people", "--json").stdout).count == 2)
        let failing = try await CLIProcess.object(try cli.run("status", "--json").stdout)["sources"] as? [[String: Any]]
        #expect((failing?.first?["error"] as? String)?.contains("HTTP 401") == true)

        // The password is in no output and not in the database (only the command is).
        let database = try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))) ?? Data()
        for bytes in [database, wal] { #expect(bytes.range(of: Data(password.utf8)) == nil) }
        for output in [add.stdout, add.stderr, sync.stdout, sync.stderr, denied.stderr] { #expect(!output.contains(password)) }

        // A password in the URL is refused.
        let inURL = try await cli.run("sources", "add", "http://alice:\(password)@127.0.0.1:\(server.port)/")
        #expect(inURL.status == 1)
        #expect(!inURL.stderr.contains(password))
    }

    /// The helper reschedules in its own process, in the caller's language.
    @Test func aCardDAVSyncPlansRemindersInTheUsersLanguage() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Freunde")
        try await server.put("friends", uid: "ada", name: "Ada", birthday: "1990-03-11")
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        cli.extraEnvironment["LANG"] = "de_DE.UTF-8"
        try await cli.enableNotifications()
        let add = try await cli.run("sources", "add", server.bookURL("friends"), "--username", "alice", "--password-command", "echo secret")
        #expect(add.stdout == "Freunde: hinzugefügt; neu: 1, geändert: 0, entfernt: 0, unverändert: 0\n", "\(add.stderr)")
        let pending = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(pending.first?["title"] as? String == "Morgen ist ein Geburtstag")
        #expect(pending.first?["body"] as? String == "Ada wird morgen 36!")
    }

    @Test func theDaemonSyncsACardDAVBookThroughTheHelperAndMapsNoXMLOrTLS() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let password = "Pa55-\(UUID().uuidString.prefix(8))"
        let server = try await RadicaleServer(password: password)
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        try await server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-03-11")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let add = try await cli.run("sources", "add", server.bookURL("friends"), "--username", "alice", "--password-command", "echo \(password)")
        #expect(add.status == 0, "\(add.stderr)")
        try await server.put("friends", uid: "bob", name: "Bob Example", birthday: "1985-05-01")

        // Logging everything it can: still no name and no password.
        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00", extraEnvironment: ["BIRTHDAYS_LOG_LEVEL": "trace"])
        defer { daemon.stop() }
        try await daemon.waitUntil("the start sync") { $0.stderr.contains("source synced") }
        await #expect(try CLIProcess.array(try cli.run("people", "--json").stdout).count == 2)
        let status = try await CLIProcess.object(try cli.run("status", "--json").stdout)
        let sources = try #require(status["sources"] as? [[String: Any]])
        #expect(sources.first?["next_sync"] is String, "a running daemon syncs a CardDAV book on its timer")
        // The HTTP, TLS and XML stacks stayed in the helper.
        let maps = (try? String(contentsOfFile: "/proc/\(daemon.pid)/maps", encoding: .utf8)) ?? ""
        #expect(maps.contains("birthdays"))
        for library in ["libxml2", "libicu", "libssl", "libcrypto"] { #expect(!maps.contains(library), "\(library) is mapped") }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("source synced"))
        #expect(!daemon.stderr.contains("Example"))
        #expect(!daemon.stderr.contains(password))
    }

    @Test func withoutTheHelperACardDAVSourceFailsClearly() async throws {
        var cli = try CLIProcess()
        defer { cli.cleanUp() }
        cli.extraEnvironment["BIRTHDAYS_NETWORK_HELPER"] = cli.path("no-such-helper")
        let add = try await cli.run("sources", "add", "http://127.0.0.1:9/")
        #expect(add.status == 1)
        let missing = cli.path("no-such-helper")
        #expect(
            add.stderr
                == "Error: \(missing), the network helper that syncs CardDAV sources and publishes to CalDAV, is missing: "
                + "install it next to birthdays (make install puts it there)\n"
        )
    }

    // MARK: - vdirsyncer and the daemon

    @Test func vdirsyncerSyncsRadicaleIntoAVdirThatTheDaemonWatches() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let vdirsyncer = try #require(SystemTools.path("vdirsyncer"), "needs vdirsyncer (apt: vdirsyncer)")
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        try await server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-03-11")
        try await server.put("friends", uid: "bob", name: "Bob Example", birthday: "1985-05-01")

        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let vdir = cli.path("contacts")
        try FileManager.default.createDirectory(atPath: vdir, withIntermediateDirectories: true)
        let config = try cli.write(
            "vdirsyncer.conf",
            """
            [general]
            status_path = "\(cli.path("vdirsyncer-status"))/"

            [pair contacts]
            a = "local"
            b = "remote"
            collections = null
            conflict_resolution = "b wins"

            [storage local]
            type = "filesystem"
            path = "\(vdir)/"
            fileext = ".vcf"

            [storage remote]
            type = "carddav"
            url = "\(server.bookURL("friends"))"
            username = "alice"
            password = "secret"

            """
        )
        func runVdirsyncer(_ arguments: String...) async throws {
            let result = try await TestProcess.run(
                [vdirsyncer, "-c", config] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "HOME": cli.directory.path, "LANG": "C.UTF-8"]
            )
            #expect(result.status == 0 && !(result.stdout + result.stderr).contains("critical"), "vdirsyncer \(arguments): \(result.stderr)")
        }
        try await runVdirsyncer("discover")
        try await runVdirsyncer("sync")
        #expect(try FileManager.default.contentsOfDirectory(atPath: vdir).filter { $0.hasSuffix(".vcf") }.count == 2)

        await #expect(try cli.run("sources", "add", vdir).status == 0)
        try await cli.enableNotifications()
        let daemon = try cli.daemon(now: "2026-03-10T08:00:00+01:00")
        defer { daemon.stop() }
        try await daemon.waitUntil("the start sync") { $0.stderr.contains("source synced") }

        // A new card on the server arrives through vdirsyncer and the watch, with its reminders.
        try await server.put("friends", uid: "cy", name: "Cy Example", birthday: "1970-03-12")
        try await runVdirsyncer("sync")
        try await daemon.waitUntil("Cy's reminders", seconds: 60) { _ in
            await (try? cli.run("pending", "--json").stdout.contains("cy-birthday-daybefore")) == true
        }
        // A card deleted on the server leaves the store.
        try await server.delete("friends", file: "bob.vcf")
        try await runVdirsyncer("sync")
        try await daemon.waitUntil("Bob to leave", seconds: 60) { _ in
            await (try? CLIProcess.array(cli.run("people", "--json").stdout).map { $0["id"] as? String }) == ["ann", "cy"]
        }
        // Edited on the server.
        try await server.put("friends", uid: "ann", name: "Ann Example", birthday: "1990-03-12")
        try await runVdirsyncer("sync")
        try await daemon.waitUntil("Ann's new date", seconds: 60) { _ in
            await (try? cli.run("show", "ann").stdout.contains("Birthday: 1990-03-12")) == true
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(!daemon.stderr.contains("Example"))
    }
}
