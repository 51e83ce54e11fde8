import Foundation
import TestSupport
import Testing

@Suite struct FeedCommandTests {
    @Test func exportIsByteIdenticalAndTheSameInAFile() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/contacts.vcf", CLIProcess.samples + "/google-contacts.csv"])
        let first = try await cli.run(["export"])
        let second = try await cli.run(["export"])
        #expect(first.status == 0)
        #expect(!first.stdout.isEmpty)
        #expect(first.stdout == second.stdout, "identical data gives identical bytes")
        let file = cli.path("feed.ics")
        let written = try await cli.run(["export", "--output", file])
        #expect(written.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == first.stdout)
    }

    @Test(.enabled(if: ExternalTool.hasPythonICalendar, "needs /usr/bin/python3 with icalendar (apt-get install python3-icalendar)"))
    func pythonIcalendarReadsTheExport() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/contacts.vcf", CLIProcess.samples + "/google-contacts.csv"])
        let aged = cli.path("aged.ics")
        #expect(try await cli.run(["export", "--output", aged]).status == 0)
        #expect(try await cli.run(["settings", "set", "calendar-ages", "off"]).status == 0)
        let file = cli.path("feed.ics")
        #expect(try await cli.run(["export", "--output", file]).status == 0)

        // With ages (the default): the same UIDs and three more, 2026 to 2028, per date with a known year.
        let uids = try await ExternalTool.run(
            ExternalTool.python,
            [
                "-c",
                """
                import sys, icalendar
                for path in sys.argv[1:]:
                    cal = icalendar.Calendar.from_ical(open(path, 'rb').read())
                    print(' '.join(sorted(str(c['UID']) for c in cal.walk('VEVENT'))))
                """, aged, file,
            ]
        )
        try #require(uids.status == 0, "python3-icalendar could not read the feeds")
        let lines = uids.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(lines.count == 2)
        let years = lines[0].filter { $0.contains("-y202") }
        #expect(lines[0].filter { !$0.contains("-y202") } == lines[1])
        #expect(!years.isEmpty && years.count % 3 == 0)
        for year in ["2026", "2027", "2028"] { #expect(years.filter { $0.contains("-y" + year + "@") }.count == years.count / 3) }

        // Under calendar-ages off, one yearly event per Gregorian date of the living (`deceased skip`),
        // and ten, one per year, for a date in another calendar (`calendar-rules expanded`).
        let people = try await #require(try cli.json(["people"]) as? [[String: Any]])
        let living = people.filter { $0["deceased"] as? Bool != true }
        let gregorian = living.reduce(0) { $0 + ($1["birthday"] is NSNull ? 0 : 1) + ($1["anniversary"] is NSNull ? 0 : 1) }
        let lunar = living.reduce(0) { $0 + (($1["calendar_dates"] as? [Any])?.count ?? 0) }
        #expect(living.count == people.count - 1 && lunar == 1, "the samples hold one person who has died and one lunar birthday")
        let dated = gregorian + lunar * 10
        let python = try await ExternalTool.run(
            ExternalTool.python,
            [
                "-c",
                """
                import sys, icalendar
                cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
                events = [c for c in cal.walk('VEVENT')]
                alarms = [c for c in cal.walk('VALARM')]
                print(len(events), len(alarms))
                """, file,
            ]
        )
        try #require(python.status == 0, "python3-icalendar could not read the feed")
        let counts = python.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(counts == [dated, dated * 2], "one event per date, two alarms each")
    }

    @Test func serveAnswersRevalidatesAndRotationCutsOffTheOldURL() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/google-contacts.csv"])
        let (server, portText) = try await Self.serve(cli)
        defer { server.stop() }
        let urls = try await #require(try cli.json(["feed", "url", "--port", portText]) as? [String: String])
        let url = try #require(urls["http"])
        #expect(urls["webcal"] == url.replacingOccurrences(of: "http://", with: "webcal://"))

        let ok = try await curl(["-D", "-", "-o", "/dev/null", url])
        #expect(ok.contains("HTTP/1.1 200"))
        #expect(ok.lowercased().contains("content-type: text/calendar; charset=utf-8"))
        let etag = try #require(Self.etag(of: ok))
        await #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)", url]) == "304")

        _ = try await cli.run(["feed", "rotate"])
        await #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", url]) == "404", "the old URL stops working at once")
        let rotated = try await #require((try cli.json(["feed", "url", "--port", portText]) as? [String: String])?["http"])
        #expect(rotated != url)
        await #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", rotated]) == "200")

        // The token never reaches the log.
        server.stop()
        let buffer = server.stdout + server.stderr
        for token in [url, rotated].compactMap({ $0.split(separator: "/").last?.replacingOccurrences(of: ".ics", with: "") }) {
            #expect(!buffer.contains(token))
        }
        #expect(buffer.contains("<redacted>"))
    }

    /// The server keeps the database's stamp until its folder changes
    /// (`FileStampWatch`): a write by another command ends the revalidations
    /// of the old tag with the very next request, on the fast path's connection
    /// as on a new one.
    @Test func aWriteByAnotherCommandIsSeenByTheNextRevalidation() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/google-contacts.csv"])
        let (server, portText) = try await Self.serve(cli)
        defer { server.stop() }
        let url = try #require((try await cli.json(["feed", "url", "--port", portText]) as? [String: String])?["http"])
        let first = try #require(Self.etag(of: try await curl(["-D", "-", "-o", "/dev/null", url])))
        // Three revalidations on one connection, then on a new one: 304 each time.
        let codes = try await curl(["-o", "/dev/null", "-w", "%{http_code} ", "-H", "If-None-Match: \(first)", url, url, url])
        #expect(codes == "304 304 304 ")

        var current = first
        for (step, command) in [["import", CLIProcess.samples + "/contacts.vcf"], ["settings", "set", "emoji", "off"]].enumerated() {
            #expect(try await cli.run(command).status == 0)
            let head = try await curl(["-D", "-", "-o", "/dev/null", "-H", "If-None-Match: \(current)", url])
            #expect(head.hasPrefix("HTTP/1.1 200"), "step \(step): \(head)")
            let tag = try #require(Self.etag(of: head))
            #expect(tag != current)
            let again = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(tag)", url])
            #expect(again == "304", "step \(step)")
            current = tag
        }
    }

    /// The feed's JSON twin over the real server: the same list `upcoming
    /// --days 365 --json` prints (pretend time reaches the server too), with a
    /// strong tag and 304, gzip, 404 for a wrong token, and no token in the log.
    @Test func theJSONTwinIsUpcomingAsJSONWithTheFeedsRules() async throws {
        let cli = try CLIProcess(now: "2026-11-21T08:00:00Z", timeZone: "UTC")
        defer { cli.cleanUp() }
        _ = try await cli.json(["import", CLIProcess.samples + "/contacts.vcf", CLIProcess.samples + "/google-contacts.csv"])
        let (server, port) = try await Self.serve(cli)
        defer { server.stop() }
        let urls = try await #require(try cli.json(["feed", "url", "--port", port]) as? [String: String])
        let json = try #require(urls["json"])
        #expect(json == urls["http"]?.replacingOccurrences(of: ".ics", with: ".json"))

        let expected = try await cli.run("upcoming", "--days", "365", "--json").stdout
        let body = try await curl([json])
        #expect(body == expected)
        let list = try CLIProcess.array(body)
        #expect(list.count > 20, "a year of the samples")
        #expect(list.contains { $0["round"] as? Bool == true }, "a round birthday is marked")
        #expect(list.allSatisfy { $0["round"] is Bool })

        let head = try await curl(["-D", "-", "-o", "/dev/null", json])
        #expect(head.lowercased().contains("content-type: application/json; charset=utf-8"), "\(head)")
        let etag = try #require(Self.etag(of: head))
        await #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)", json]) == "304")
        let gzip = try await curl(["--compressed", "-D", "-", json])
        #expect(gzip.lowercased().contains("content-encoding: gzip"))
        #expect(gzip.hasSuffix(expected), "the same list, compressed on the wire")
        let token = try #require(json.split(separator: "/").last?.replacingOccurrences(of: ".json", with: ""))
        let wrong = String(json.dropLast(6)) + (token.hasSuffix("0") ? "1" : "0") + ".json"
        await #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", wrong]) == "404")

        server.stop()
        let buffer = server.stdout + server.stderr
        #expect(!buffer.contains(token))
        #expect(buffer.contains("/calendar/<redacted>.json"))
    }

    func curl(_ arguments: [String]) async throws -> String {
        try await TestProcess.run(["/usr/bin/curl", "-s", "--max-time", "10"] + arguments).stdout
    }

    /// `birthdays serve` on a free port over `cli`'s database, and the port
    /// it logged as bound (`listening on 127.0.0.1:PORT`).
    static func serve(_ cli: CLIProcess) async throws -> (server: TestProcess, port: String) {
        let server = try TestProcess(
            [try CLIProcess.binary(), "serve", "--port", String(try Loopback.freePort())],
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        do {
            let listening = #"listening on 127\.0\.0\.1:(\d+)"#
            try await server.waitUntil("the server to listen") {
                $0.stderr.range(of: listening, options: .regularExpression) != nil || $0.poll() != nil
            }
            let line = try #require(
                server.stderr.range(of: listening, options: .regularExpression).map { server.stderr[$0] },
                "server exited before listening: \(server.stderr)"
            )
            return (server, String(try #require(Int(line.split(separator: ":").last ?? ""))))
        } catch {
            server.stop()
            throw error
        }
    }

    /// The `ETag` of a `curl -D -` answer's head.
    static func etag(of head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5).trimmingCharacters(in: .whitespaces)
    }
}
