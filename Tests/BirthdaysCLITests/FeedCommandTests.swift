import Foundation
import Testing

@Suite struct FeedCommandTests {
    @Test func exportIsByteIdenticalAndReadableByPythonIcalendar() throws {
        let cli = try CLI()
        defer { cli.cleanup() }
        _ = try cli.json(["import", CLI.samples + "/contacts.vcf", CLI.samples + "/google-contacts.csv"])
        let first = try cli.run(["export"])
        let second = try cli.run(["export"])
        #expect(first.status == 0)
        #expect(!first.stdout.isEmpty)
        #expect(first.stdout == second.stdout, "identical data gives identical bytes")
        let file = cli.path("feed.ics")
        let written = try cli.run(["export", "--output", file])
        #expect(written.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == first.stdout)

        let people = try #require(try cli.json(["people"]) as? [[String: Any]])
        let dated = people.reduce(0) { $0 + ($1["birthday"] is NSNull ? 0 : 1) + ($1["anniversary"] is NSNull ? 0 : 1) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            events = [c for c in cal.walk('VEVENT')]
            alarms = [c for c in cal.walk('VALARM')]
            print(len(events), len(alarms))
            """, file]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "python3-icalendar could not read the feed (is python3-icalendar installed?)")
        let counts = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(counts == [dated, dated * 2], "one event per date, two alarms each")
    }

    @Test func serveAnswersRevalidatesAndRotationCutsOffTheOldURL() throws {
        let cli = try CLI()
        defer { cli.cleanup() }
        _ = try cli.json(["import", CLI.samples + "/google-contacts.csv"])
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CLI.binary)
        server.arguments = ["serve", "--port", "0", "--database", cli.database]
        server.environment = cli.environment
        let log = Pipe()
        server.standardOutput = log
        server.standardError = log
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        // The server logs the port it bound; read lines until it does.
        var buffer = ""
        var port: Int?
        let reader = log.fileHandleForReading
        while port == nil {
            let chunk = reader.availableData
            try #require(!chunk.isEmpty, "server exited before listening: \(buffer)")
            buffer += String(decoding: chunk, as: UTF8.self)
            if let range = buffer.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(buffer[range].split(separator: ":").last ?? "")
            }
        }
        let portText = String(try #require(port))
        let urls = try #require(try cli.json(["feed", "url", "--port", portText]) as? [String: String])
        let url = try #require(urls["http"])
        #expect(urls["webcal"] == url.replacingOccurrences(of: "http://", with: "webcal://"))

        let ok = try curl(["-D", "-", "-o", "/dev/null", url])
        #expect(ok.contains("HTTP/1.1 200"))
        #expect(ok.lowercased().contains("content-type: text/calendar; charset=utf-8"))
        let etag = try #require(ok.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5).trimmingCharacters(in: .whitespaces))
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)", url]) == "304")

        _ = try cli.run(["feed", "rotate"])
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", url]) == "404", "the old URL stops working at once")
        let rotated = try #require((try cli.json(["feed", "url", "--port", portText]) as? [String: String])?["http"])
        #expect(rotated != url)
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", rotated]) == "200")

        // The token never reaches the log.
        server.terminate()
        server.waitUntilExit()
        buffer += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        for token in [url, rotated].compactMap({ $0.split(separator: "/").last?.replacingOccurrences(of: ".ics", with: "") }) {
            #expect(!buffer.contains(token))
        }
        #expect(buffer.contains("<redacted>"))
    }

    func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
