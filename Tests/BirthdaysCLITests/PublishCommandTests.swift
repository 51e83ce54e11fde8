import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

/// What the read-back helpers need of a server: curl and its address.
protocol DAVTestServer {
    var baseURL: String { get }
    func curl(_ method: String, _ url: String, headers: [String], body: String?) async throws -> (status: Int, body: String)
}

extension RadicaleServer: DAVTestServer {}
extension XandikosServer: DAVTestServer {}

/// `birthdays publish` against a real CalDAV server (Radicale on loopback,
/// with a password): what it writes is read back with plain WebDAV requests
/// (curl) and compared with `birthdays export`.
@Suite struct PublishCommandTests {
    /// The `UID`, `DTSTART`, `RRULE` and `TRIGGER` lines of every event in `text`, by UID.
    static func eventLines(_ text: String) -> [String: [String]] {
        var events: [String: [String]] = [:]
        var uid: String?
        var lines: [String] = []
        for line in PublishPlan.unfolded(text) {
            if line == "BEGIN:VEVENT" {
                uid = nil
                lines = []
            } else if line == "END:VEVENT" {
                if let uid { events[uid] = lines.sorted() }
            } else if line.hasPrefix("UID:") {
                uid = String(line.dropFirst(4))
                lines.append(line)
            } else if line.hasPrefix("DTSTART") || line.hasPrefix("RRULE") || line.hasPrefix("TRIGGER") {
                lines.append(line)
            }
        }
        return events
    }

    /// The hrefs of the calendar's members (not the calendar itself).
    static func members(_ server: some DAVTestServer, _ calendar: String) async throws -> [String] {
        let (status, body) = try await server.curl(
            "PROPFIND",
            calendar,
            headers: ["Depth: 1", "Content-Type: application/xml"],
            body: #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#
        )
        try #require(status == 207, "PROPFIND \(calendar): \(status) \(body)")
        let regex = try NSRegularExpression(pattern: "<(?:[A-Za-z0-9]+:)?href>([^<]+)</(?:[A-Za-z0-9]+:)?href>")
        func trimmed(_ path: String) -> String {
            var path = path.removingPercentEncoding ?? path
            while path.hasSuffix("/") { path.removeLast() }
            return path
        }
        let collection = trimmed(URL(string: calendar)?.path ?? calendar)
        return regex.matches(in: body, range: NSRange(body.startIndex..., in: body)).compactMap { match in
            Range(match.range(at: 1), in: body).map { String(body[$0]) }
        }.filter { trimmed($0) != collection }
    }

    /// Every event of the calendar, read back one resource at a time.
    static func readBack(_ server: some DAVTestServer, _ calendar: String) async throws -> [String: [String]] {
        var events: [String: [String]] = [:]
        for href in try await members(server, calendar) {
            let (status, body) = try await server.curl("GET", server.baseURL + href, headers: [], body: nil)
            try #require(status == 200, "GET \(href): \(status)")
            events.merge(eventLines(body)) { first, _ in first }
        }
        return events
    }

    /// `publish add URL` as alice, her password read by `--password-command` from a file, with `extra` arguments.
    static func add(_ cli: CLIProcess, _ server: RadicaleServer, _ url: String, _ extra: String...) async throws -> TestProcess.Result {
        let secretFile = try cli.write("dav-password", server.password + "\n")
        return try await cli.run(["publish", "add", url, "--username", "alice", "--password-command", "cat '\(secretFile)'"] + extra)
    }

    /// Makes a calendar named `name` at `url` on the server, as another client would.
    static func makeCalendar(_ server: RadicaleServer, _ url: String, name: String) async throws {
        let made = try await server.curl(
            "MKCALENDAR",
            url,
            body:
                #"<?xml version="1.0"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>"#
                + name + #"</d:displayname></d:prop></d:set></c:mkcalendar>"#
        )
        try #require(made.status == 201, "\(made)")
    }

    static func report(_ output: TestProcess.Result) throws -> [String: Any] {
        let reports = try CLIProcess.array(output.stdout)
        try #require(reports.count == 1, "\(output.stdout) \(output.stderr)")
        return reports[0]
    }

    @Test func addMakesTheCalendarPublishesWhatExportWritesAndLaterSyncsWriteOnlyWhatChanged() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let password = "Pa55-\(UUID().uuidString.prefix(8))"
        let server = try await RadicaleServer(password: password)
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01"), ("lea", "Lea Leap", "2000-02-29")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        try await cli.set("leap-day", "mar1")
        let secretFile = try cli.write("dav-password", password + "\n")

        let add = try await cli.run(
            "publish",
            "add",
            server.baseURL,
            "--username",
            "alice",
            "--password-command",
            "cat '\(secretFile)'",
            "--name",
            "radicale",
            "--json"
        )
        #expect(add.status == 0, "\(add.stderr)")
        let exported = Self.eventLines(try await cli.run("export").stdout)
        // Ada, Bob and Lea's four mar1 series.
        #expect(exported.count == 6)
        #expect(try Self.report(add)["put"] as? Int == 6)
        let listed = try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout)
        #expect(listed.count == 1)
        let calendar = try #require(listed.first?["calendar"] as? String)
        #expect(calendar == server.baseURL + "/alice/birthdays/")
        #expect(listed.first?["events"] as? Int == 6)
        #expect(listed.first?["error"] == nil || listed.first?["error"] is NSNull)
        #expect(try await Self.readBack(server, calendar) == exported)
        // Made with a display name, for events only, in a birthday colour (Apple's calendar-color), as the server stored them.
        let (described, properties) = try await server.curl(
            "PROPFIND",
            calendar,
            headers: ["Depth: 0", "Content-Type: application/xml"],
            body: #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:i="http://apple.com/ns/ical/">"#
                + "<d:prop><d:displayname/><i:calendar-color/><c:supported-calendar-component-set/></d:prop></d:propfind>"
        )
        #expect(described == 207)
        #expect(properties.contains(">#E0467CFF</"), "\(properties)")
        #expect(properties.contains(">Birthdays</"), "\(properties)")
        #expect(properties.contains(#"name="VEVENT""#) && !properties.contains(#"name="VTODO""#), "\(properties)")

        // Another client's event in the same calendar.
        let foreign =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:foreign@test\r\nDTSTAMP:20260101T000000Z\r\n"
            + "DTSTART;VALUE=DATE:20260401\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let (putStatus, _) = try await server.curl("PUT", calendar + "foreign.ics", headers: ["Content-Type: text/calendar"], body: foreign)
        #expect(putStatus == 201)

        // Nothing changed: one request (the listing of tags), nothing written.
        var before = server.requests(userAgent: "birthdays")
        let unchanged = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(unchanged["put"] as? Int == 0 && unchanged["deleted"] as? Int == 0 && unchanged["unchanged"] as? Int == 6)
        #expect((unchanged["requests"] as? Int ?? 99) <= 2)
        #expect(server.requests(userAgent: "birthdays") - before <= 2)

        // A changed person: one PUT, between the listing (what changed since the last publish's
        // sync-token) and one more sync-collection that takes the token past our own write.
        // A day later, so the store's last change (every event's DTSTAMP) moves too.
        let remind = try await cli.run(at: "2026-03-11T08:00:00+01:00", "remind", "ada", "--days", "7,0")
        #expect(remind.status == 0, "\(remind.stderr)")
        before = server.requests(userAgent: "birthdays")
        let changed = try await cli.run("publish", "sync", "radicale", "--json")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try Self.report(changed)["put"] as? Int == 1)
        #expect(try Self.report(changed)["deleted"] as? Int == 0)
        #expect(server.log.split(separator: "\n").filter { $0.contains("PUT request for") && $0.contains("using 'birthdays") }.count == 7)
        #expect(server.requests(userAgent: "birthdays") - before == 3)
        #expect(try await Self.readBack(server, calendar).filter { $0.key != "foreign@test" } == Self.eventLines(try await cli.run("export").stdout))

        // Another client (iOS) acknowledges an alarm: the event is still ours, its tag is adopted, nothing is rewritten.
        let adaHref = calendar + PublishPlan.resourceName(uid: "ada-birthday@birthdays")
        let (_, adaText) = try await server.curl("GET", adaHref)
        let acknowledged = adaText.replacingOccurrences(of: "END:VALARM", with: "ACKNOWLEDGED:20260310T090000Z\r\nEND:VALARM")
        #expect(acknowledged != adaText)
        let (ackStatus, _) = try await server.curl("PUT", adaHref, headers: ["Content-Type: text/calendar"], body: acknowledged)
        #expect(ackStatus == 201 || ackStatus == 204)
        let converged = try await cli.run("publish", "sync", "--json")
        #expect(converged.status == 0, "\(converged.stderr)")
        #expect(try Self.report(converged)["put"] as? Int == 0)
        #expect(try await server.curl("GET", adaHref).body.contains("ACKNOWLEDGED"))
        let settled = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect((settled["requests"] as? Int ?? 99) <= 2)

        // A removed person: one DELETE.
        let exclude = try await cli.run("exclude", "bob")
        #expect(exclude.status == 0, "\(exclude.stderr)")
        let removed = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(removed["deleted"] as? Int == 1 && removed["put"] as? Int == 0)
        let left = try await Self.readBack(server, calendar)
        #expect(left["bob-birthday@birthdays"] == nil)
        #expect(left["foreign@test"] != nil)
        #expect(left.count == 6)

        // The password is in no output and not in the database (only the command is).
        let database = try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))) ?? Data()
        for bytes in [database, wal] { #expect(bytes.range(of: Data(password.utf8)) == nil) }
        for output in [add.stdout, add.stderr, changed.stdout, changed.stderr] { #expect(!output.contains(password)) }

        // The calendar publish add made is deleted on request; the foreign event with it.
        let remove = try await cli.run("publish", "remove", "radicale", "--delete-calendar")
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(try await server.curl("GET", calendar + "foreign.ics").status == 404)
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)
    }

    /// A publish that wrote but stopped before recording (a crash, a server
    /// gone mid-publish) is completed by the next one without duplicates; an
    /// event of ours deleted by someone else comes back.
    @Test func aPublishThatStoppedBeforeRecordingIsCompletedWithoutDuplicates() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01"), ("cy", "Cy Example", "1970-01-02")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        let add = try await Self.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let calendar = server.baseURL + "/alice/birthdays/"
        #expect(try await Self.members(server, calendar).count == 3)

        // Written, never recorded: what a publish stopped between a PUT and its record leaves, the
        // record of the create it was about to make. The create is answered 412, and the event, ours, is adopted.
        let store = try AppDatabase.openFile(at: cli.databasePath, create: false)
        for (uid, event) in try await store.publishedEvents(targetId: 1) where uid != "cy-birthday@birthdays" {
            try await store.recordPublished(targetId: 1, PublishedEvent(uid: uid, href: event.href, etag: nil, hash: PublishedEvent.pending))
        }
        let resumed = try await cli.run("publish", "sync", "--json")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Self.report(resumed)["put"] as? Int == 0)
        #expect(try Self.report(resumed)["unchanged"] as? Int == 3)
        #expect(try await Self.members(server, calendar).count == 3)
        let listed = try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout)
        #expect(listed.first?["events"] as? Int == 3)

        // Deleted by another client while Ada is still here: written again.
        let (deleted, _) = try await server.curl("DELETE", calendar + PublishPlan.resourceName(uid: "ada-birthday@birthdays"))
        #expect(deleted == 200 || deleted == 204)
        let again = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(again["put"] as? Int == 1 && again["unchanged"] as? Int == 2)
        #expect(try await Self.members(server, calendar).count == 3)
        let settled = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(settled["put"] as? Int == 0 && (settled["requests"] as? Int ?? 99) <= 2)
    }

    /// An event at the address a create chooses that birthdays never wrote (the feed imported into
    /// that calendar once) is left alone, not adopted or rewritten, and the report says so.
    @Test func anEventBirthdaysDidNotWriteIsNeverTakenOver() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        let add = try await Self.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let calendar = server.baseURL + "/alice/birthdays/"
        // Someone's own event at the address Zoë's birthday will take.
        let foreign =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\nUID:zoe-birthday@birthdays\r\n"
            + "DTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20260412\r\nSUMMARY:Mine\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let address = calendar + PublishPlan.resourceName(uid: "zoe-birthday@birthdays")
        let (made, _) = try await server.curl("PUT", address, headers: ["Content-Type: text/calendar"], body: foreign)
        #expect(made == 201 || made == 204, "the foreign event was written: \(made)")
        try await cli.seed([("zoe", "Zoë Ñúñez", "1989-04-12")])

        let sync = try await cli.run("publish", "sync", "--json")
        #expect(sync.status == 0, "\(sync.stderr)")
        let report = try Self.report(sync)
        #expect((report["foreign"] as? [String])?.count == 1, "\(report)")
        let (status, body) = try await server.curl("GET", address, headers: [], body: nil)
        #expect(status == 200)
        #expect(body.contains("SUMMARY:Mine"), "left as it was")
        // Not ours: a later removal of Zoë deletes nothing there.
        let events = try await AppDatabase.openFile(at: cli.databasePath, create: false).publishedEvents(targetId: 1)
        #expect(events["zoe-birthday@birthdays"] == nil)
        #expect(try await cli.run("publish", "sync").stdout.contains("left alone"))
    }

    /// The second server: Xandikos, without authentication, makes the calendar in its home set.
    @Test func xandikosGetsTheSameEventsAndThenOnlyWhatChanged() async throws {
        try #require(XandikosServer.isAvailable, Comment(rawValue: XandikosServer.missing))
        let server = try await XandikosServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")

        let add = try await cli.run("publish", "add", server.baseURL, "--name", "xandikos", "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Self.report(add)["put"] as? Int == 2)
        let listed = try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout)
        let calendar = try #require(listed.first?["calendar"] as? String)
        #expect(calendar == server.baseURL + "/user/calendars/birthdays/")
        let table = try await cli.run("publish")
        #expect(table.status == 0 && table.stdout.contains("xandikos") && table.stdout.contains(calendar), "\(table.stdout)")
        #expect(try CLIProcess.array(try await cli.run("publish", "--json").stdout).first?["events"] as? Int == 2)
        #expect(try await Self.readBack(server, calendar) == Self.eventLines(try await cli.run("export").stdout))

        let unchanged = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(unchanged["put"] as? Int == 0 && unchanged["unchanged"] as? Int == 2 && (unchanged["requests"] as? Int ?? 99) <= 2)

        #expect(try await cli.run("remind", "ada", "--days", "7,0").status == 0)
        let changed = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(changed["put"] as? Int == 1 && changed["requests"] as? Int == 3)
        #expect(try await Self.readBack(server, calendar) == Self.eventLines(try await cli.run("export").stdout))

        #expect(try await cli.run("exclude", "bob").status == 0)
        let removed = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(removed["deleted"] as? Int == 1 && removed["put"] as? Int == 0)
        #expect(try await Self.members(server, calendar).count == 1)
    }

    @Test func aWrongPasswordExitsWithOneLineAndStoresNothing() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer(password: "right")
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let secretFile = try cli.write("dav-password", "wrong\n")

        let add = try await cli.run("publish", "add", server.baseURL, "--username", "alice", "--password-command", "cat '\(secretFile)'")
        #expect(add.status == 1)
        #expect(add.stderr.hasPrefix("Error: ") && add.stderr.contains("HTTP 401") && add.stderr.split(separator: "\n").count == 1, "\(add.stderr)")
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: server.storage + "/collection-root/alice/birthdays"))

        // Another user's account: 403, one line, status 1, nothing stored.
        try Data("right\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let forbidden = try await cli.run(
            "publish",
            "add",
            server.baseURL + "/mallory/",
            "--username",
            "alice",
            "--password-command",
            "cat '\(secretFile)'"
        )
        #expect(forbidden.status == 1)
        #expect(forbidden.stderr.hasPrefix("Error: ") && forbidden.stderr.split(separator: "\n").count == 1, "\(forbidden.stderr)")
        #expect(forbidden.stderr.contains("HTTP 403"), "\(forbidden.stderr)")
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)

        // Unreachable: one line, status 1, nothing stored.
        server.stop()
        let unreachable = try await cli.run("publish", "add", server.baseURL, "--username", "alice")
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.split(separator: "\n").count == 1, "\(unreachable.stderr)")
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)
    }

    /// A trial at pretend time works on a copy of the database, but could not take back what it wrote to a server.
    @Test func publishingRefusesPretendTime() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        var trial = cli
        trial.extraEnvironment["BIRTHDAYS_NOW_WRITES"] = ""
        for arguments in [["publish", "sync"], ["publish", "add", "http://127.0.0.1:1/"]] {
            let result = try await trial.run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr.contains("does not run at a pretend time"), "\(result.stderr)")
        }
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)
    }

    @Test(arguments: [
        ["publish", "add", "not-a-url"], ["publish", "add", "ftp://example.org/"], ["publish", "add", "http://u:p@example.org/"],
        ["publish", "add", "http://example.org/", "--name", ""], ["publish", "sync", "--bogus"], ["publish", "remove"],
        ["publish", "remove", "x", "--all"], ["publish", "remove", "--delete-calendar"],
    ])
    func badArgumentsAreUsageErrorsThatStoreNothing(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)
    }

    @Test func aCalendarThatWasThereIsUsedAsItIsNeverDeletedAndMassRemovalNeedsForce() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let calendar = server.baseURL + "/alice/family/"
        try await Self.makeCalendar(server, calendar, name: "Family")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed((0..<12).map { (String(format: "p%02d", $0), "Person \($0)", String(format: "1980-05-%02d", $0 + 1)) })
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        let add = try await Self.add(cli, server, calendar, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Self.report(add)["put"] as? Int == 12)
        #expect(try await Self.members(server, calendar).count == 12)

        for index in 0..<7 { _ = try await cli.run("exclude", String(format: "p%02d", index)) }
        let refused = try await cli.run("publish", "sync")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: 127.0.0.1: refusing to delete 7 of the 12 events published to '127.0.0.1'; "
                + "if that is right, run: birthdays publish sync '127.0.0.1' --force\n"
        )
        #expect(try await Self.members(server, calendar).count == 12)
        let forced = try await cli.run("publish", "sync", "--force", "--json")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try Self.report(forced)["deleted"] as? Int == 7)
        #expect(try await Self.members(server, calendar).count == 5)

        let keep = try await cli.run("publish", "remove", "127.0.0.1", "--delete-calendar")
        #expect(keep.status == 1)
        #expect(keep.stderr.contains("not deleted"))
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).count == 1)
        #expect(try await server.curl("PROPFIND", calendar, headers: ["Depth: 0"]).status == 207)
    }

    /// `remove --all`: every target goes; with --delete-calendar the calendars publish add made are
    /// deleted, and one that was there before stays, without the events publish wrote.
    @Test func removeAllForgetsEveryTargetAndDeletesOnlyTheCalendarsItMade() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let family = server.baseURL + "/alice/family/"
        try await Self.makeCalendar(server, family, name: "Family")
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        let secretFile = try cli.write("dav-password", server.password + "\n")
        for (url, name) in [(server.baseURL, "made"), (family, "family")] {
            let add = try await cli.run("publish", "add", url, "--username", "alice", "--password-command", "cat '\(secretFile)'", "--name", name)
            #expect(add.status == 0, "\(add.stderr)")
        }
        let birthdays = server.baseURL + "/alice/birthdays/"
        #expect(try await Self.members(server, birthdays).count == 1)
        #expect(try await Self.members(server, family).count == 1)

        let removed = try await cli.run("publish", "remove", "--all", "--delete-calendar")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("Removed made and deleted its calendar."), "\(removed.stdout)")
        #expect(
            removed.stdout.contains("Removed family and deleted the 1 event it wrote from \(family) (the calendar was there before"),
            "\(removed.stdout)"
        )
        #expect(try await server.curl("PROPFIND", birthdays, headers: ["Depth: 0"]).status == 404)
        #expect(try await server.curl("PROPFIND", family, headers: ["Depth: 0"]).status == 207)
        #expect(try await Self.members(server, family).isEmpty)
        #expect(try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).isEmpty)

        // With --keep-events every calendar keeps its events; with no target left, nothing to do.
        let again = try await cli.run("publish", "add", family, "--username", "alice", "--password-command", "cat '\(secretFile)'")
        #expect(again.status == 0, "\(again.stderr)")
        let kept = try await cli.run("publish", "remove", "--all", "--keep-events")
        #expect(kept.status == 0 && kept.stdout.contains("its events stay in \(family)"), "\(kept.stdout) \(kept.stderr)")
        #expect(try await Self.members(server, family).count == 1)
        let none = try await cli.run("publish", "remove", "--all")
        #expect(none.status == 0 && none.stdout.contains("No publish targets"), "\(none.stdout)")
    }

    /// A server killed in the middle of a publish of many events: the publish fails with one line,
    /// `status` shows the target failing, and the next publish, once the server is back, completes
    /// it: every event once (same UIDs, as many as the feed has), no error.
    @Test func aServerThatGoesAwayMidPublishIsCompletedByTheNextPublishWithoutDuplicates() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])
        // The events of today's feed, one per date (ages have their own test below).
        try await cli.set("calendar-ages", "off")
        let add = try await Self.add(cli, server, server.baseURL)
        #expect(add.status == 0, "\(add.stderr)")
        let calendar = server.baseURL + "/alice/birthdays/"
        var many: [(uid: String, name: String, birthday: String)] = []
        for index in 0..<400 {
            let year = 1940 + index % 50
            let month = 1 + index % 12
            let day = 1 + index % 28
            many.append((String(format: "m%03d", index), "Many \(index)", String(format: "%04d-%02d-%02d", year, month, day)))
        }
        try await cli.seed(many)
        let puts = { server.log.split(separator: "\n").filter { $0.contains("PUT request for") && $0.contains("using 'birthdays") }.count }
        let before = puts()

        let publishing = Task { try await cli.run("publish", "sync") }
        try await eventually("the publish to be under way", seconds: 120) { puts() >= before + 40 }
        server.stop(signal: SIGKILL)
        let interrupted = try await publishing.value
        #expect(interrupted.status == 1, "\(interrupted.stdout)")
        #expect(interrupted.stderr.split(separator: "\n").count == 1, "\(interrupted.stderr)")
        let failing = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        let failingTarget = try #require((failing["publish_targets"] as? [[String: Any]])?.first)
        #expect(failingTarget["state"] as? String == "failing", "\(failingTarget)")
        #expect(failingTarget["failures"] as? Int == 1)
        #expect(failingTarget["error"] is String)
        #expect(try await cli.run("status").stdout.contains("Publish targets: 1"))

        try await server.start()
        let resumed = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(resumed["error"] == nil || resumed["error"] is NSNull, "\(resumed)")
        let hrefs = try await Self.members(server, calendar)
        let exported = Self.eventLines(try await cli.run("export").stdout)
        #expect(exported.count == 401)
        #expect(hrefs.count == exported.count)
        #expect(Set(hrefs).count == hrefs.count)
        #expect(try await Self.readBack(server, calendar) == exported)
        let settled = try Self.report(try await cli.run("publish", "sync", "--json"))
        #expect(settled["put"] as? Int == 0 && settled["unchanged"] as? Int == 401 && (settled["requests"] as? Int ?? 99) <= 2)
        let healthy = try CLIProcess.object(try await cli.run("status", "--json").stdout)
        let target = try #require((healthy["publish_targets"] as? [[String: Any]])?.first)
        #expect(target["state"] as? String == "ok" && target["failures"] as? Int == 0 && target["events"] as? Int == 401, "\(target)")
    }

    /// With ages (the default) each person's three years are resources of their own beside the
    /// recurring event; at the new year a publish adds the new third year, deletes the past one and
    /// rewrites only the recurring event, whose start moved; the two years in between stay.
    @Test func withAgesTheNewYearAddsOneYearRemovesThePastOneAndMovesTheRecurringEvent() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01")])
        let add = try await Self.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Self.report(add)["put"] as? Int == 8)
        let calendar = server.baseURL + "/alice/birthdays/"
        let first = try await Self.readBack(server, calendar)
        #expect(first == Self.eventLines(try await cli.run("export").stdout))
        #expect(
            Set(first.keys.filter { $0.hasPrefix("ada-") }) == [
                "ada-birthday-y2026@birthdays", "ada-birthday-y2027@birthdays", "ada-birthday-y2028@birthdays", "ada-birthday@birthdays",
            ]
        )
        #expect(first["ada-birthday@birthdays"]?.contains("DTSTART;VALUE=DATE:20290310") == true)
        let (_, adaThisYear) = try await server.curl("GET", calendar + PublishPlan.resourceName(uid: "ada-birthday-y2026@birthdays"))
        #expect(adaThisYear.contains("SUMMARY:🎂 Ada Lovelace (36)"))

        // New Year's Eve: nothing to write.
        let eve = try Self.report(try await cli.run(at: "2026-12-31T23:30:00+01:00", "publish", "sync", "--json"))
        #expect(eve["put"] as? Int == 0 && eve["deleted"] as? Int == 0 && eve["unchanged"] as? Int == 8)

        // January 2: per person one create (2029) and one delete (2026), and the recurring event moved to 2030.
        let before = server.requests(userAgent: "birthdays")
        let newYear = try await cli.run(at: "2027-01-02T08:00:00+01:00", "publish", "sync", "--json")
        #expect(newYear.status == 0, "\(newYear.stderr)")
        let report = try Self.report(newYear)
        #expect(report["put"] as? Int == 4 && report["deleted"] as? Int == 2 && report["unchanged"] as? Int == 4, "\(report)")
        // The listing, 4 PUTs and 2 DELETEs, and the sync-collection that moves the token past them.
        #expect(server.requests(userAgent: "birthdays") - before == 8)
        let moved = try await Self.readBack(server, calendar)
        #expect(moved == Self.eventLines(try await cli.run(at: "2027-01-02T08:00:00+01:00", "export").stdout))
        #expect(moved["ada-birthday-y2026@birthdays"] == nil && moved["ada-birthday-y2029@birthdays"] != nil)
        #expect(moved["ada-birthday@birthdays"]?.contains("DTSTART;VALUE=DATE:20300310") == true)
        #expect(moved["ada-birthday-y2027@birthdays"] == first["ada-birthday-y2027@birthdays"])
        let (_, adaNew) = try await server.curl("GET", calendar + PublishPlan.resourceName(uid: "ada-birthday-y2029@birthdays"))
        #expect(adaNew.contains("SUMMARY:🎂 Ada Lovelace (39)"))
    }
}
