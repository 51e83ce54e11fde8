import BirthdayCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The invitation form against strangers (issue 41), through the real
/// `birthdays serve` on loopback: answers sent a byte at a time, posts from
/// other sites, a reverse proxy in front, names and dates that are not, and
/// the rough edges a real visitor meets (the limit's answer, a double submit).
@Suite struct InviteStrangersTests {
    typealias Served = PageCommandTests.Served

    // MARK: - Slow answers

    /// The descriptor limit the server runs under (a bound of 192 connections),
    /// and the slow answers sent against it from 60 addresses, 5 each: within
    /// the per-address limit, as in the issue (950 from 190 addresses against 896).
    static let descriptorLimit = 256
    static let slowAnswers = 300

    static var mayHoldTheConnections: Bool { Descriptors.mayHold(slowAnswers + 200) }

    @Test(.enabled(if: mayHoldTheConnections, "the test needs a hard descriptor limit (ulimit -Hn) of at least \(slowAnswers + 200)"))
    func answersSentAByteAtATimeNeitherFillTheServerNorHoldUpItsEnd() async throws {
        Descriptors.raise(toHold: Self.slowAnswers + 200)
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-11")])
        let port = try Loopback.freePort()
        let server = try TestProcess(
            ["/bin/sh", "-c", "ulimit -n \(Self.descriptorLimit) && exec \"$@\"", "sh", try CLIProcess.binary(), "serve", "--port", String(port)],
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        defer { server.stop() }
        let healthz = "http://127.0.0.1:\(port)/healthz"
        try await server.waitUntil("the server") { _ in await (try? HostileFeedTests.curl(healthz))?.stdout == "200" }
        let url = try await cli.run("feed", "url", "--port", String(port)).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let page = String(url.dropLast(4))

        // A made-up token: the body is read before the token is looked up.
        let path = "/invite/" + String(repeating: "5", count: 32)
        let slow = try await offThread { try Self.slowAnswers(count: Self.slowAnswers, port: port, path: path) }
        defer { for fd in slow { close(fd) } }
        #expect(slow.count == Self.slowAnswers, "every connection was made")

        await #expect(try HostileFeedTests.curl(healthz).stdout == "200", "/healthz answers while the slow answers are open")
        await #expect(try HostileFeedTests.curl(page).stdout == "200", "and the owner's page")
        #expect(try await offThread { HostileFeedTests.closedByServer(slow[slow.count - 1]) }, "a slow answer is closed by the server")
        #expect(server.poll() == nil, "the server lives: \(server.stderr.suffix(2000))")

        // SIGTERM with slow answers open again: the server ends at once, not when they stop.
        let more = try await offThread { try Self.slowAnswers(count: 20, port: port, path: path, firstAddress: 200) }
        defer { for fd in more { close(fd) } }
        server.signal(SIGTERM)
        let status = try await server.waitForExit(seconds: 60)
        #expect(status == 0, "\(server.stderr.suffix(2000))")
    }

    /// `count` connections to 127.0.0.1:`port`, each from 127.0.0.`N` (5 per
    /// address, from `firstAddress` on), each sending the head of a `POST` to
    /// `path` that announces 300 bytes, and one byte of them; held open.
    static func slowAnswers(count: Int, port: Int, path: String, firstAddress: Int = 2) throws -> [Int32] {
        var sockets: [Int32] = []
        let head = Array(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 300\r\n\r\nn".utf8
        )
        for index in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var source = sockaddr_in()
            source.sin_family = sa_family_t(AF_INET)
            source.sin_addr.s_addr = inet_addr("127.0.0.\(firstAddress + index / 5)")
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, connected == 0 else {
                close(fd)
                throw TestSupportError("connect: \(String(cString: strerror(errno)))")
            }
            _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            sockets.append(fd)
        }
        return sockets
    }

    // MARK: - Other sites

    @Test func anAnswerPostedByAnotherSiteIs403AndStoresNothing() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends")
        let url = InviteCommandTests.url(served, token)
        for header in ["Origin: https://evil.example", "Origin: null", "Sec-Fetch-Site: cross-site"] {
            let nonce = try await InviteCommandTests.formNonce(served, token)
            let refused = try await InviteCommandTests.fetch(["-H", header, "--data-raw", "nonce=\(nonce)&name=Mallory&day=1&month=1", url])
            #expect(refused.status == 403, "\(header)")
            #expect(refused.fields["connection"] == "close")
        }
        #expect(try await InviteCommandTests.answers(served.cli).isEmpty, "nothing stored")
        let nonce = try await InviteCommandTests.formNonce(served, token)
        let own = try await InviteCommandTests.fetch([
            "-H", "Origin: http://127.0.0.1:\(served.port)", "-H", "Sec-Fetch-Site: same-origin",
            "--data-raw", "nonce=\(nonce)&name=Grace&day=9&month=12", url,
        ])
        #expect(own.status == 200, "the form's own page")
        #expect(try await InviteCommandTests.post(served, token, "name=Curl&day=1&month=2").status == 200, "no Origin: curl, old browsers")
        #expect(try await InviteCommandTests.answers(served.cli).count == 2)
    }

    // MARK: - The trusted proxy

    /// Six answers from one connection address: without a trusted proxy the
    /// sixth is over the limit whatever `X-Forwarded-For` says; from the
    /// trusted proxy each client it names has its own budget, and junk sent
    /// to a made-up token costs that client, not the link.
    @Test(arguments: ["option", "setting"])
    func behindTheTrustedProxyEachClientHasItsOwnBudget(way: String) async throws {
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-11")])
        if way == "setting" { try await cli.set("trusted-proxy", "127.0.0.2") }
        let port = try Loopback.freePort()
        var arguments = [try CLIProcess.binary(), "serve", "--port", String(port)]
        if way == "option" { arguments += ["--trusted-proxy", "127.0.0.2"] }
        let server = try TestProcess(arguments, environment: cli.environment, directory: cli.directory, name: "serve")
        let served = Served(cli: cli, server: server, port: port, token: "")
        defer { served.stop() }
        try await server.waitUntil("the server") { _ in
            await (try? HostileFeedTests.curl("http://127.0.0.1:\(port)/healthz"))?.stdout == "200"
        }
        let token = try await InviteCommandTests.invite(served, "Friends")
        let url = InviteCommandTests.url(served, token)
        func post(from address: String, client: String, to target: String = url) async throws -> Int {
            let nonce = try await InviteCommandTests.formNonce(served, token)
            return try await InviteCommandTests.fetch([
                "--interface", address, "-H", "X-Forwarded-For: \(client)",
                "--data-raw", "nonce=\(nonce)&name=Guest&day=1&month=1", target,
            ]).status
        }
        // The proxy: a stranger's junk to a made-up token uses up the stranger's budget only.
        let junk = "http://127.0.0.1:\(port)/invite/" + String(repeating: "7", count: 32)
        var junkStatuses: [Int] = []
        for _ in 0..<6 { junkStatuses.append(try await post(from: "127.0.0.2", client: "203.0.113.66", to: junk)) }
        #expect(junkStatuses == [404, 404, 404, 404, 404, 429], "\(junkStatuses)")
        var real: [Int] = []
        for index in 0..<6 { real.append(try await post(from: "127.0.0.2", client: "198.51.100.\(index + 1)")) }
        #expect(real == Array(repeating: 200, count: 6), "six visitors, one answer each: \(real)")
        // Anyone else: the header is ignored, the connection's address counts.
        var direct: [Int] = []
        for index in 0..<6 { direct.append(try await post(from: "127.0.0.3", client: "198.51.100.\(index + 100)")) }
        #expect(direct == [200, 200, 200, 200, 200, 429], "\(direct)")
        #expect(try await InviteCommandTests.answers(cli).count == 11)
    }

    @Test func theTrustedProxyMustBeAnAddressAndIsInServesHelp() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let wrong = try await cli.run("serve", "--trusted-proxy", "proxy.example")
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("--trusted-proxy must be an IP address"))
        #expect(try await cli.run("settings", "set", "trusted-proxy", "10.0.0.0/8").status == 64)
        let help = try await cli.run("serve", "--help")
        #expect(help.stdout.contains("--trusted-proxy"))
        #expect(help.stdout.contains("X-Forwarded-For"))
    }

    // MARK: - Names, dates, and the rough edges

    @Test func namesThatLookEmptyAndDatesAfterTodayAreRefusedInWords() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends")
        for name in ["%E2%80%8B", "%C2%A0%C2%A0", "e" + String(repeating: "%CC%81", count: 600)] {
            let answer = try await InviteCommandTests.post(served, token, "name=\(name)&day=1&month=1")
            #expect(answer.status == 400)
            #expect(answer.body.contains("problem"))
        }
        // Today is 10 March 2026 in the owner's zone.
        let future = try await InviteCommandTests.post(served, token, "name=Kid&day=31&month=12&year=2026")
        #expect(future.status == 400)
        #expect(future.body.contains("after today"), "in words")
        #expect(future.body.contains("max=\"2026\""), "the form's own limit agrees")
        let next = try await InviteCommandTests.post(served, token, "name=Kid&day=1&month=1&year=2027")
        #expect(next.status == 400 && next.body.contains("after today"))
        // Five answers from this address so far: today's from another one.
        let nonce = try await InviteCommandTests.formNonce(served, token)
        let today = try await InviteCommandTests.fetch([
            "--interface", "127.0.0.2", "--data-raw", "nonce=\(nonce)&name=Kid&day=10&month=3&year=2026", InviteCommandTests.url(served, token),
        ])
        #expect(today.status == 200, "today is fine")
        #expect(try await InviteCommandTests.answers(served.cli).count == 1)
    }

    @Test func overTheLimitTheFormComesBackInTheOwnersLanguageWithWhatWasTyped() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        try await served.cli.set("language", "de")
        let token = try await InviteCommandTests.invite(served, "Friends")
        for index in 0..<5 { #expect(try await InviteCommandTests.post(served, token, "name=Guest\(index)&day=1&month=1").status == 200) }
        let refused = try await InviteCommandTests.post(served, token, "name=Zo%C3%AB+Late&day=17&month=8&year=1991")
        #expect(refused.status == 429)
        #expect(refused.fields["retry-after"] == "60")
        #expect(refused.body.contains("<html lang=\"de\">"), "the form page, in the owner's language")
        #expect(refused.body.contains("value=\"Zoë Late\""), "what was typed is kept")
        #expect(refused.body.contains("<option value=\"8\" selected>"))
        #expect(refused.body.contains("value=\"1991\""))
        #expect(refused.body.contains("Minute"), "it says why, in German")
        #expect(try await InviteCommandTests.answers(served.cli).count == 5, "nothing stored")
    }

    @Test func aFormSentTwiceShowsTheThanksAgainAndStoresOnce() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        let token = try await InviteCommandTests.invite(served, "Friends")
        let nonce = try await InviteCommandTests.formNonce(served, token)
        let first = try await InviteCommandTests.post(served, token, "name=Once&day=5&month=5", nonce: nonce)
        let second = try await InviteCommandTests.post(served, token, "name=Once&day=5&month=5", nonce: nonce)
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(second.body == first.body, "the thank-you page, not an empty form")
        #expect(!second.body.contains("<form"))
        #expect(try await InviteCommandTests.answers(served.cli).count == 1)
    }

    @Test func anAutoAcceptingLinkTakesTwentyUnlessToldAndTheOwnerHearsWhenItIsUsedUp() async throws {
        let served = try await InviteCommandTests.served()
        defer { served.stop() }
        let outfile = served.cli.path("command.out")
        try await served.cli.set("channels", "command")
        try await served.cli.set("command", "env | grep ^BIRTHDAYS_BODY >> '\(outfile)'")
        try await served.cli.enableNotifications()
        _ = try await InviteCommandTests.invite(served, "Team", "--auto-accept")
        _ = try await InviteCommandTests.invite(served, "Open")
        let pair = try await InviteCommandTests.invite(served, "Pair", "--auto-accept", "--uses", "2")
        let listed = try CLIProcess.array(try await served.cli.run("invite", "list", "--json").stdout)
        #expect(listed.map { $0["uses"] as? Int } == [20, nil, 2])
        #expect(try await InviteCommandTests.post(served, pair, "name=One&day=1&month=1").status == 200)
        #expect(try await InviteCommandTests.post(served, pair, "name=Two&day=2&month=2").status == 200)
        #expect(try await InviteCommandTests.fetch([InviteCommandTests.url(served, pair)]).status == 410)
        let pass = try await served.cli.run(at: "2026-03-10T08:05:00+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        let told = (try? String(contentsOfFile: outfile, encoding: .utf8)) ?? ""
        #expect(told.contains("The invitation Pair has taken its 2 answers and takes no more"), "\(told)")
        #expect(!told.contains("One") && !told.contains("Two"), "no names")
    }
}
