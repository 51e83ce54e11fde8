import BirthdayCore
import Foundation
import TestSupport
import Testing

/// A first publish with several PUTs in flight at once (issue 33,
/// `BIRTHDAYS_PUBLISH_IN_FLIGHT`), against real Radicale and Xandikos: every
/// event is written once and recorded, the calendar reads back as `export`
/// writes it, and the next publish writes nothing. A server that answers
/// 503 (a proxy in front of Radicale) is waited for and asked again, and the
/// events are still each written once.
@Suite struct PublishInFlightTests {
    typealias Helpers = PublishCommandTests

    /// Twelve people with ages in the titles: 48 events.
    static func cli(inFlight: Int) async throws -> CLIProcess {
        var cli = try CLIProcess()
        cli.extraEnvironment["BIRTHDAYS_PUBLISH_IN_FLIGHT"] = String(inFlight)
        try await cli.seed((1...12).map { ("p\($0)", "Person \($0)", "19\(60 + $0)-0\($0 % 9 + 1)-1\($0 % 9)") })
        return cli
    }

    @Test func radicaleGetsEveryEventOnceWithFourInFlight() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli(inFlight: 4)
        defer { cli.cleanUp() }
        let add = try await Helpers.add(cli, server, server.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let report = try Helpers.report(add)
        // The listing, one PUT per event, the sync-collection after them.
        #expect(report["put"] as? Int == 48 && report["requests"] as? Int == 50, "\(report)")
        let calendar = server.baseURL + "/alice/birthdays/"
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
        let again = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(again["put"] as? Int == 0 && again["unchanged"] as? Int == 48 && again["requests"] as? Int == 1, "\(again)")
    }

    @Test func xandikosGetsEveryEventOnceWithEightInFlight() async throws {
        try #require(XandikosServer.isAvailable, Comment(rawValue: XandikosServer.missing))
        let server = try await XandikosServer()
        defer { server.cleanUp() }
        let cli = try await Self.cli(inFlight: 8)
        defer { cli.cleanUp() }
        let add = try await cli.run("publish", "add", server.baseURL, "--name", "xandikos", "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let report = try Helpers.report(add)
        #expect(report["put"] as? Int == 48 && report["requests"] as? Int == 50, "\(report)")
        let calendar = server.baseURL + "/user/calendars/birthdays/"
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
        let again = try Helpers.report(try await cli.run("publish", "sync", "--json"))
        #expect(again["put"] as? Int == 0 && again["unchanged"] as? Int == 48 && again["requests"] as? Int == 1, "\(again)")
    }

    @Test func aBusyServerIsAskedAgainAndEveryEventIsStillWrittenOnce() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        let proxy = try await DAVProxy(upstream: server.baseURL)
        defer { proxy.cleanUp() }
        let cli = try await Self.cli(inFlight: 4)
        defer { cli.cleanUp() }
        try proxy.answer([DAVProxy.Rule(method: "PUT", status: 503, headers: ["Retry-After": "0"], times: 3)])
        let add = try await Helpers.add(cli, server, proxy.baseURL, "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let report = try Helpers.report(add)
        #expect(report["put"] as? Int == 48 && report["requests"] as? Int == 53, "\(report)")
        let puts = proxy.requests.filter { $0.method == "PUT" }
        #expect(puts.filter { $0.status == 503 }.count == 3)
        #expect(puts.filter { $0.status == 201 }.count == 48)
        #expect(Set(puts.map(\.path)).count == 48)
        let calendar = server.baseURL + "/alice/birthdays/"
        #expect(try await Helpers.readBack(server, calendar) == Helpers.eventLines(try await cli.run("export").stdout))
    }
}
