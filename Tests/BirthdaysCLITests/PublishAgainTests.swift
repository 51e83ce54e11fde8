import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

/// A calendar published again never goes stale (issue 31), through the real
/// binaries against a real Radicale on loopback, some behind a proxy
/// (``DAVProxy``) that answers what Radicale never would and counts requests:
/// `publish remove` deletes what it wrote (or keeps it for a later `publish
/// add` to adopt), events left alone are shown, a listing that fails is an
/// error, one event refused again and again does not stop the others, and
/// an emptied calendar costs one request per event.
@Suite struct PublishAgainTests {
    typealias Helpers = PublishCommandTests

    static let calendarPath = "/alice/birthdays/"

    /// Ada, Bob and Cy, one event each (no ages).
    static func cli() async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01"), ("cy", "Cy Example", "1970-01-02")])
        try await cli.set("calendar-ages", "off")
        return cli
    }

    static func target(_ cli: CLIProcess) async throws -> [String: Any] {
        let listed = try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout)
        return try #require(listed.first, "no target")
    }

    /// The file name of a resource (its last path segment, decoded).
    static func fileName(_ href: String) -> String {
        let name = href.split(separator: "/").last.map(String.init) ?? href
        return name.removingPercentEncoding ?? name
    }

    static func status(_ cli: CLIProcess) async throws -> [String: Any] {
        let status = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        return try #require((status["publish_targets"] as? [[String: Any]])?.first, "\(status)")
    }

    // MARK: - Removing and adding again

    /// `publish add`, `publish remove`, `publish add`: the events the first target wrote are deleted by
    /// the removal, the second add writes them all (none is taken for someone else's), and a changed
    /// birthday reaches the calendar.
    @Test func aCalendarPublishedAgainAfterRemoveIsWrittenAndFollowsChanges() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let calendar = server.baseURL + Self.calendarPath
        let first = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Helpers.report(first)["put"] as? Int == 3)

        let remove = try await cli.run("publish", "remove", "127.0.0.1")
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout.contains("Removed 127.0.0.1 and deleted the 3 events it wrote from \(calendar)"), "\(remove.stdout)")
        #expect(try await Helpers.members(server, calendar).isEmpty)

        let again = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(again.status == 0, "\(again.stderr)")
        let report = try Helpers.report(again)
        #expect(report["put"] as? Int == 3 && (report["foreign"] as? [String])?.isEmpty == true, "\(report)")
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))

        // Bob's birthday changes: the next publish writes it.
        try await cli.seed([("bob", "Bob Example", "1985-07-04")])
        let changed = try await cli.run("publish", "sync", "--json")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try Helpers.report(changed)["put"] as? Int == 1)
        let events = try await Helpers.readBack(server, calendar)
        #expect(events["bob-birthday@birthdays"]?.contains("DTSTART;VALUE=DATE:19850704") == true, "\(events)")
        let state = try await Self.status(cli)
        #expect(state["state"] as? String == "ok" && state["events"] as? Int == 3 && state["left_alone"] as? Int == 0, "\(state)")
    }

    /// `publish remove --keep-events` leaves the events; a later `publish add` of that calendar
    /// adopts them (a GET each: same PRODID and UID, so ours), rewrites only the one that changed,
    /// and then follows the calendar as if it had never been removed.
    @Test func eventsKeptByRemoveAreAdoptedByTheNextAdd() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let calendar = server.baseURL + Self.calendarPath
        #expect(try await Helpers.add(cli, server, server.baseURL).status == 0)

        let remove = try await cli.run("publish", "remove", "127.0.0.1", "--keep-events")
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout.contains("its events stay in \(calendar)"), "\(remove.stdout)")
        #expect(try await Helpers.members(server, calendar).count == 3)

        #expect(try await cli.run("remind", "ada", "--days", "7,0").status == 0)
        let again = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(again.status == 0, "\(again.stderr)")
        let report = try Helpers.report(again)
        #expect(report["put"] as? Int == 1 && report["unchanged"] as? Int == 2, "\(report)")
        #expect((report["foreign"] as? [String])?.isEmpty == true, "\(report)")
        // The listing, a GET of each of the three, one PUT (Ada's), the sync-collection after it.
        #expect(report["requests"] as? Int == 6, "\(report)")
        #expect(try await Helpers.members(server, calendar).count == 3)
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
        let target = try await Self.target(cli)
        #expect(target["events"] as? Int == 3 && target["left_alone"] as? Int == 0, "\(target)")
        let settled = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(settled["put"] as? Int == 0 && settled["unchanged"] as? Int == 3 && settled["requests"] as? Int == 1, "\(settled)")
    }

    // MARK: - Events left alone

    /// An event of the feed whose address holds someone else's event is left alone, and `publish
    /// list` and `status` say how many and why; a first publish that can write none of its events
    /// keeps nothing.
    @Test func eventsLeftAloneAreShownInListAndStatus() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let family = server.baseURL + "/alice/family/"
        try await Helpers.makeCalendar(server, family, name: "Family")
        // Another program's event at the address of Bob's birthday (its own PRODID).
        let theirs =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\nUID:bob-birthday@birthdays\r\n"
            + "DTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:19850701\r\nSUMMARY:Bob\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let bobAddress = family + PublishPlan.resourceName(uid: "bob-birthday@birthdays")
        #expect(try await server.curl("PUT", bobAddress, headers: ["Content-Type: text/calendar"], body: theirs).status == 201)
        let cli = try await Self.cli()
        defer { cli.cleanUp() }

        let add = try await Helpers.add(cli, server, family, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Helpers.report(add)["put"] as? Int == 2)
        let target = try await Self.target(cli)
        #expect(target["events"] as? Int == 2 && target["left_alone"] as? Int == 1, "\(target)")
        let table = try await cli.run("publish", "list")
        #expect(table.stdout.contains("2 (+1 left alone)"), "\(table.stdout)")
        #expect(table.stdout.contains("1 event left alone: their address holds an event birthdays did not write"), "\(table.stdout)")
        let state = try await Self.status(cli)
        #expect(state["state"] as? String == "partial" && state["left_alone"] as? Int == 1, "\(state)")
        let text = try await cli.run("status")
        #expect(text.stdout.contains("partial, 2 events, 1 left alone (their address holds an event birthdays did not write"), "\(text.stdout)")
        #expect(try await server.curl("GET", bobAddress).body.contains("PRODID:-//someone//EN"))

        // A calendar where every event's address is taken: nothing written, nothing kept.
        #expect(try await cli.run("publish", "remove", "127.0.0.1").status == 0)
        let other = try CLIProcess()
        defer { other.cleanUp() }
        try await other.seed([("bob", "Bob Example", "1985-07-01")])
        try await other.set("calendar-ages", "off")
        let refused = try await Helpers.add(other, server, family)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("1 event left alone") && refused.stderr.contains("nothing was kept"), "\(refused.stderr)")
        #expect(try CLIProcess.array(try await other.run("publish", "list", "--json").stdout).isEmpty)
        #expect(try await server.curl("GET", bobAddress).body.contains("PRODID:-//someone//EN"))
    }

    // MARK: - A listing that fails

    /// What a server may answer the calendar's listing (the sync-collection REPORT, and PROPFIND
    /// Depth 1 where that is refused), and whether the publish must then fail: only 405, 501 or a
    /// multistatus without tags say "this server does not list".
    struct Listing: Sendable, CustomTestStringConvertible {
        var status: Int
        var body = ""
        var headers: [String: String] = [:]
        var fails: Bool
        var testDescription: String { "\(status)\(body.isEmpty ? "" : " with a body")\(fails ? " fails" : " publishes from the records")" }
    }

    static let listings: [Listing] = [
        Listing(status: 500, fails: true),
        Listing(status: 503, fails: true),
        Listing(status: 301, headers: ["Location": "http://127.0.0.1:1/elsewhere/"], fails: true),
        Listing(status: 200, body: "<html><body>Welcome to the proxy</body></html>", headers: ["Content-Type": "text/html"], fails: true),
        Listing(status: 405, fails: false),
        Listing(status: 501, fails: false),
        Listing(
            status: 207,
            body: #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/alice/birthdays/ada-birthday@birthdays.ics</d:href>"#
                + #"<d:propstat><d:prop/><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>"#,
            headers: ["Content-Type": "application/xml"],
            fails: false
        ),
    ]

    @Test(arguments: listings)
    func aListingThatFailsIsAnErrorNotNothingToDo(_ listing: Listing) async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let proxy = try await DAVProxy(upstream: server.baseURL)
        defer { proxy.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let add = try await Helpers.add(cli, server, proxy.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let published = try await Self.target(cli)["last_publish"] as? String

        try proxy.answer(
            [("PROPFIND", "1"), ("REPORT", "0")].map { method, depth in
                DAVProxy.Rule(
                    method: method,
                    pathSuffix: Self.calendarPath,
                    depth: depth,
                    status: listing.status,
                    body: listing.body,
                    headers: listing.headers
                )
            }
        )
        let sync = try await cli.run(at: "2026-03-10T09:00:00+01:00", "publish", "sync", "--json")
        let report = try Helpers.report(sync)
        if listing.fails {
            #expect(sync.status == 1, "\(sync.stdout)")
            let error = try #require(report["error"] as? String, "\(report)")
            #expect(error.contains("HTTP \(listing.status)") || error.contains("cannot be used"), "\(error)")
            #expect(try await Self.target(cli)["last_publish"] as? String == published)
            let state = try await Self.status(cli)
            #expect(state["state"] as? String == "failing" && state["failures"] as? Int == 1, "\(state)")
        } else {
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(report["unchanged"] as? Int == 3 && report["put"] as? Int == 0, "\(report)")
            #expect(try await Self.status(cli)["state"] as? String == "ok")
        }
    }

    // MARK: - One event refused again and again

    /// A server that answers every PUT of Bob's event with 412: the others are written, on the
    /// first publish and the next; Bob's is named by its resource, never by his name; once the
    /// server takes it, the next publish writes it.
    @Test func oneEventRefusedAgainAndAgainIsSkippedAndTheOthersWritten() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let proxy = try await DAVProxy(upstream: server.baseURL)
        defer { proxy.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let calendar = server.baseURL + Self.calendarPath
        let bob = PublishPlan.resourceName(uid: "bob-birthday@birthdays")
        try proxy.answer([DAVProxy.Rule(method: "PUT", pathSuffix: "/" + bob, status: 412)])

        let add = try await Helpers.add(cli, server, proxy.baseURL, "--json")
        #expect(add.status == 1)
        let first = try Helpers.report(add)
        #expect(first["put"] as? Int == 2 && first["skipped"] as? [String] == [bob], "\(first)")
        #expect(add.stderr.contains(bob) && add.stderr.contains("412"), "\(add.stderr)")
        #expect(!add.stderr.contains("Bob Example") && !add.stdout.contains("Bob Example"))
        let written = try await Helpers.members(server, calendar).map { Self.fileName($0) }
        #expect(Set(written) == ["ada-birthday@birthdays.ics", "cy-birthday@birthdays.ics"], "\(written)")
        // Kept (it wrote events), failing, and the next publish still writes what it can.
        #expect(try await Self.target(cli)["events"] as? Int == 2)
        #expect(try await cli.run("remind", "cy", "--days", "7,0").status == 0)
        let again = try await cli.run("publish", "sync", "--json")
        #expect(again.status == 1)
        let second = try Helpers.report(again)
        #expect(second["put"] as? Int == 1 && second["skipped"] as? [String] == [bob], "\(second)")

        try proxy.answer([])
        let healed = try await cli.run("publish", "sync", "--json")
        #expect(healed.status == 0, "\(healed.stderr)")
        #expect(try Helpers.report(healed)["put"] as? Int == 1)
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
    }

    // MARK: - An emptied calendar

    /// Someone emptied the calendar: each event is created again with one PUT (`If-None-Match: *`),
    /// not updated with a tag that can only fail: 175 requests for 173 events (the listing, what
    /// changed since the last publish's sync-token, and one more sync-collection after the PUTs),
    /// counted by Radicale.
    @Test func anEmptiedCalendarCostsOneRequestPerEvent() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        var people: [(uid: String, name: String, birthday: String)] = []
        for index in 0..<173 {
            let birthday = String(format: "19%02d-%02d-%02d", 40 + index % 60, 1 + index % 12, 1 + index % 28)
            people.append((String(format: "p%03d", index), "Person \(index)", birthday))
        }
        try await cli.seed(people)
        try await cli.set("calendar-ages", "off")
        let add = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Helpers.report(add)["put"] as? Int == 173)
        let calendar = server.baseURL + Self.calendarPath

        // Emptied behind the server's back, as another client deleting every event would.
        let folder = server.storage + "/collection-root/alice/birthdays"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".ics") {
            try FileManager.default.removeItem(atPath: folder + "/" + file)
        }
        #expect(try await Helpers.members(server, calendar).isEmpty)

        let before = server.requests(userAgent: "birthdays")
        let sync = try await cli.run("publish", "sync", "--json")
        #expect(sync.status == 0, "\(sync.stderr)")
        let report = try Helpers.report(sync)
        #expect(report["put"] as? Int == 173 && report["requests"] as? Int == 175, "\(report)")
        #expect(server.requests(userAgent: "birthdays") - before == 175)
        #expect(try await Helpers.members(server, calendar).count == 173)
    }
}
