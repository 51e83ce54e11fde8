import BirthdayCore
import Foundation
import TestSupport
import Testing

/// A republish asks the calendar only for what changed since the last one
/// (issue 33): a `sync-collection` REPORT (RFC 6578) from the sync-token the
/// target keeps, against real Radicale and Xandikos; what another client
/// changed or deleted meanwhile is still seen, a token the server no longer
/// knows starts over with a full listing, and a server that refuses
/// `sync-collection` (a proxy answering 501) is listed with `PROPFIND` as
/// before, which `publish list` says.
@Suite struct PublishSyncTokenTests {
    typealias Helpers = PublishCommandTests

    /// Ada, Bob and Cy, one event each (no ages).
    static func cli() async throws -> CLIProcess {
        let cli = try CLIProcess()
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10"), ("bob", "Bob Example", "1985-07-01"), ("cy", "Cy Example", "1970-01-02")])
        try await cli.set("calendar-ages", "off")
        return cli
    }

    /// The methods of the requests Radicale logged from birthdays since `skip` of them.
    static func methods(_ server: RadicaleServer, after skip: Int) -> [String] {
        let lines = server.log.split(separator: "\n").filter { $0.contains(" request for ") && $0.contains("using 'birthdays") }
        return lines.dropFirst(skip).compactMap { line in
            guard let range = line.range(of: " request for ") else { return nil }
            return line[..<range.lowerBound].split(separator: " ").last.map(String.init)
        }
    }

    static func listing(_ cli: CLIProcess) async throws -> String? {
        try CLIProcess.array(try await cli.run("publish", "list", "--json").stdout).first?["listing"] as? String
    }

    @Test func radicaleAnswersAnUnchangedRepublishWithOneReportAndAnotherClientsChangesAreStillSeen() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let add = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let calendar = server.baseURL + "/alice/birthdays/"
        // The first listing (every member, with a token), three PUTs, and the sync-collection after them.
        #expect(Self.methods(server, after: 0).suffix(5) == ["REPORT", "PUT", "PUT", "PUT", "REPORT"])
        #expect(try await Self.listing(cli) == "sync-collection")

        // Nothing changed: one REPORT, no PROPFIND of every tag.
        var before = server.requests(userAgent: "birthdays")
        let unchanged = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(unchanged["unchanged"] as? Int == 3 && unchanged["put"] as? Int == 0 && unchanged["requests"] as? Int == 1, "\(unchanged)")
        #expect(Self.methods(server, after: before) == ["REPORT"])

        // Another client deletes Ada's event, retitles Bob's (still ours: our PRODID and UID) and adds its own.
        let ada = calendar + PublishPlan.resourceName(uid: "ada-birthday@birthdays")
        let bob = calendar + PublishPlan.resourceName(uid: "bob-birthday@birthdays")
        #expect([200, 204].contains(try await server.curl("DELETE", ada).status))
        let bobText = try await server.curl("GET", bob).body
        let retitled = bobText.replacingOccurrences(of: "SUMMARY:", with: "SUMMARY:Not ")
        #expect(retitled != bobText)
        #expect([201, 204].contains(try await server.curl("PUT", bob, headers: ["Content-Type: text/calendar"], body: retitled).status))
        let foreign =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:foreign@test\r\nDTSTAMP:20260101T000000Z\r\n"
            + "DTSTART;VALUE=DATE:20260401\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(try await server.curl("PUT", calendar + "foreign.ics", headers: ["Content-Type: text/calendar"], body: foreign).status == 201)
        before = server.requests(userAgent: "birthdays")
        let repaired = try await cli.run("publish", "sync", "--json")
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let report = try Helpers.report(repaired)
        #expect(report["put"] as? Int == 2 && report["unchanged"] as? Int == 1 && report["deleted"] as? Int == 0, "\(report)")
        // The delta, Ada created again, Bob fetched and written with its tag, the sync-collection after them.
        // PUTs are in flight together (4 by default), so Ada's PUT and Bob's GET come in either order.
        let methods = Self.methods(server, after: before)
        #expect(methods.first == "REPORT" && methods.last == "REPORT", "\(methods)")
        #expect(methods.dropFirst().dropLast().sorted() == ["GET", "PUT", "PUT"], "\(methods)")
        #expect(methods.firstIndex(of: "GET").map { methods[$0...].contains("PUT") } == true, "Bob's PUT after its GET: \(methods)")
        let exported = Helpers.eventLines(try await cli.run("export").stdout)
        #expect(try await Helpers.readBack(server, calendar).filter { $0.key != "foreign@test" } == exported)
        #expect(try await server.curl("GET", calendar + "foreign.ics").body.contains("SUMMARY:Dentist"))
        let settled = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(settled["put"] as? Int == 0 && settled["requests"] as? Int == 1, "\(settled)")

        // Radicale forgets every token it gave: the next publish starts over with a full listing and still
        // sees Cy's event deleted by someone.
        try FileManager.default.removeItem(atPath: server.storage + "/collection-root/alice/birthdays/.Radicale.cache/sync-token")
        let cy = calendar + PublishPlan.resourceName(uid: "cy-birthday@birthdays")
        #expect([200, 204].contains(try await server.curl("DELETE", cy).status))
        before = server.requests(userAgent: "birthdays")
        let restarted = try await cli.run("publish", "sync", "--json")
        #expect(restarted.status == 0, "\(restarted.stderr)")
        #expect(try Helpers.report(restarted)["put"] as? Int == 1)
        #expect(Self.methods(server, after: before) == ["REPORT", "REPORT", "PUT", "REPORT"])
        #expect(try await Helpers.readBack(server, calendar).filter { $0.key != "foreign@test" } == exported)
        let quiet = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(quiet["put"] as? Int == 0 && quiet["requests"] as? Int == 1, "\(quiet)")
    }

    @Test func xandikosAnswersFromItsSyncTokenToo() async throws {
        try #require(XandikosServer.isAvailable, Comment(rawValue: XandikosServer.missing))
        let server = try await XandikosServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let add = try await cli.run("publish", "add", server.baseURL, "--name", "xandikos", "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Helpers.report(add)["put"] as? Int == 3)
        #expect(try await Self.listing(cli) == "sync-collection")
        let calendar = server.baseURL + "/user/calendars/birthdays/"

        let unchanged = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(unchanged["unchanged"] as? Int == 3 && unchanged["requests"] as? Int == 1, "\(unchanged)")

        // Deleted by another client: the delta since the token says so, and it is written again.
        let ada = calendar + PublishPlan.resourceName(uid: "ada-birthday@birthdays")
        #expect([200, 204].contains(try await server.curl("DELETE", ada).status))
        let again = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(again["put"] as? Int == 1 && again["unchanged"] as? Int == 2 && again["requests"] as? Int == 3, "\(again)")
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
        let settled = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(settled["put"] as? Int == 0 && settled["requests"] as? Int == 1, "\(settled)")
    }

    @Test func aServerThatRefusesSyncCollectionIsListedWithPropfindAndPublishListSaysSo() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let proxy = try await DAVProxy(upstream: server.baseURL)
        defer { proxy.cleanUp() }
        try proxy.answer([DAVProxy.Rule(method: "REPORT", status: 501)])
        let cli = try await Self.cli()
        defer { cli.cleanUp() }
        let add = try await Helpers.add(cli, server, proxy.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Helpers.report(add)["put"] as? Int == 3)
        #expect(try await Self.listing(cli) == "propfind")
        let table = try await cli.run("publish", "list")
        #expect(table.stdout.contains("127.0.0.1: the server refuses sync-collection (RFC 6578)"), "\(table.stdout)")

        // Remembered: the next publishes list with PROPFIND at once, and still write what changed.
        let reports = proxy.requests.filter { $0.method == "REPORT" }.count
        #expect(reports == 1)
        let unchanged = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(unchanged["unchanged"] as? Int == 3 && unchanged["requests"] as? Int == 1, "\(unchanged)")
        #expect(try await cli.run("remind", "ada", "--days", "7,0").status == 0)
        let changed = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(changed["put"] as? Int == 1 && changed["requests"] as? Int == 2, "\(changed)")
        #expect(proxy.requests.filter { $0.method == "REPORT" }.count == reports)
        #expect(proxy.requests.suffix(3).map(\.method) == ["PROPFIND", "PROPFIND", "PUT"])
        let calendar = server.baseURL + "/alice/birthdays/"
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
    }
}
