import BirthdayCore
import BirthdayText
import Foundation
import TestSupport
import Testing

/// The manual's command recipes (ntfy, Gotify, msmtp), taken from docs/channels.md
/// itself and run by `birthdays deliver --once` against a local server, with
/// names that try to make curl upload a file (`@file`, `<file`) or to add a
/// header (line breaks). Each reminder must arrive with exactly its title
/// and body, and nothing else.
@Suite struct ChannelRecipeTests {
    enum Recipe: String, CaseIterable, Sendable {
        case ntfy, gotify, msmtp
    }

    /// Hostile names, as vCard 3.0 FN values (escaped), with what the name is.
    static func hostileCards(secret: String) -> [(fn: String, name: String)] {
        [
            ("@\(secret)\\;type=text/plain", "@\(secret);type=text/plain"),
            ("<\(secret)\\;type=text/plain", "<\(secret);type=text/plain"),
            ("Eve\\nX-Injected: yes", "Eve\nX-Injected: yes"),
            ("Mallory\\nBcc: victim@example.org", "Mallory\nBcc: victim@example.org"),
        ]
    }

    static let secretText = "TOP-SECRET-CONTENT"

    @Test(.enabled(if: SystemTools.path("curl") != nil, "needs curl (apt-get install curl)"), arguments: [Recipe.ntfy, .gotify])
    func theHTTPRecipesDeliverHostileNamesAsText(recipe: Recipe) async throws {
        try await check(recipe)
    }

    @Test(.enabled(if: SystemTools.path("msmtp") != nil, "needs msmtp (apt-get install msmtp)"))
    func theEmailRecipeDeliversHostileNamesAsText() async throws {
        try await check(.msmtp)
    }

    func check(_ recipe: Recipe) async throws {
        // Everyone was born on 1990-03-10: scheduled at 08:00, at 09:00:30 all
        // day-of reminders are due, none late.
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        defer { cli.cleanUp() }
        let secret = try cli.write("secret.txt", Self.secretText)
        let cards = Self.hostileCards(secret: secret)
        let vcf = cards.enumerated().map { index, card in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:h\(index)\r\nFN:\(card.fn)\r\nBDAY:1990-03-10\r\nEND:VCARD\r\n"
        }.joined()
        let imported = try await cli.run("import", try cli.write("hostile.vcf", vcf))
        try #require(imported.status == 0, "\(imported.stderr)")
        let people = try await CLIProcess.array(try cli.run("people", "--json").stdout).compactMap { $0["name"] as? String }
        try #require(Set(people) == Set(cards.map(\.name)), "the names read back: \(people)")

        let records = cli.path("received.jsonl")
        let listener = try TestProcess(
            [SystemTools.python, "-c", recipe == .msmtp ? Self.smtpSink : Self.httpRecorder, records],
            environment: ["PATH": "/usr/bin:/bin"],
            directory: cli.directory,
            name: "listener"
        )
        defer { listener.stop() }
        let port = try #require(Int(try await listener.firstLine()), "the listener's port: \(listener.stderr)")
        try await cli.set("channels", "command")
        try await cli.set("day-before", "off")
        try await cli.set("command", try Self.command(recipe, port: port, cli: cli))
        try await cli.enableNotifications()

        let pass = try await cli.run(at: "2026-03-10T09:00:30+01:00", "deliver", "--once", "--json")
        #expect(pass.status == 0, "\(pass.stdout) \(pass.stderr)")
        let counts = try CLIProcess.object(pass.stdout.split(separator: "\n").last.map(String.init) ?? "")
        #expect(counts["delivered"] as? Int == cards.count, "\(pass.stdout)")

        let received = try String(contentsOfFile: records, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(received.count == cards.count)
        let expected = Set(
            cards.map { card in
                let text = NotificationContent.make(name: card.name, kind: .birthday, timing: .dayOf, age: 36)
                return Message(title: text.title, body: text.body)
            }
        )
        let messages = try received.map { try Self.message(in: $0, recipe: recipe) }
        #expect(Set(messages) == expected, "received exactly the titles and bodies")
        for record in received {
            let raw = String(describing: record)
            #expect(!raw.contains(Self.secretText), "a local file was sent: \(raw)")
            #expect(!raw.contains("X-Injected: yes\\r\\n") && !raw.lowercased().contains("\"x-injected\""), "a header was added: \(raw)")
        }
    }

    struct Message: Hashable, CustomStringConvertible {
        var title: String
        var body: String
        var description: String { "\(title.debugDescription) / \(body.debugDescription)" }
    }

    /// The title and body in what the listener recorded, and checks that nothing else came with them.
    static func message(in record: [String: Any], recipe: Recipe) throws -> Message {
        switch recipe {
        case .ntfy:
            let headers = try #require(record["headers"] as? [[String]])
            #expect(!headers.contains { $0.first?.lowercased() == "x-injected" }, "\(headers)")
            let titles = headers.filter { $0.first?.lowercased() == "title" }.compactMap { $0.last }
            #expect(titles.count == 1)
            return Message(title: titles.first ?? "", body: try #require(record["body"] as? String))
        case .gotify:
            let body = try #require(record["body"] as? String)
            #expect(!body.contains("filename="), "a file was uploaded: \(body)")
            return Message(title: try #require(part("title", of: body)), body: try #require(part("message", of: body)))
        case .msmtp:
            let rcpt = try #require(record["rcpt"] as? [String])
            #expect(rcpt.count == 1 && rcpt[0].contains("you@example.org"), "\(rcpt)")
            let data = try #require(record["data"] as? String).replacingOccurrences(of: "\r\n", with: "\n")
            let (head, body) = try #require(data.range(of: "\n\n").map { (String(data[..<$0.lowerBound]), String(data[$0.upperBound...])) })
            let fields = head.split(separator: "\n").map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
            #expect(!fields.contains { ["bcc", "x-injected"].contains($0.first?.lowercased() ?? "") }, "a header was added: \(head)")
            let subjects = fields.filter { $0.first?.lowercased() == "subject" }.compactMap { $0.last }
            #expect(subjects.count == 1)
            return Message(title: subjects.first ?? "", body: body.trimmingCharacters(in: .newlines))
        }
    }

    /// The value of form field `name` in a multipart body.
    static func part(_ name: String, of body: String) -> String? {
        guard let start = body.range(of: "name=\"\(name)\"\r\n\r\n") else { return nil }
        let rest = body[start.upperBound...]
        return rest.range(of: "\r\n--").map { String(rest[..<$0.lowerBound]) }
    }

    /// The recipe's command as docs/channels.md gives it, pointed at the local listener.
    static func command(_ recipe: Recipe, port: Int, cli: CLIProcess) throws -> String {
        let page = try String(contentsOf: Repository.root.appendingPathComponent("docs/channels.md"), encoding: .utf8)
        let lines = page.split(separator: "\n").map(String.init)
        func quoted(_ line: String) throws -> String {
            let start = try #require(line.firstIndex(of: "'"))
            let end = try #require(line.lastIndex(of: "'"))
            return String(line[line.index(after: start)..<end])
        }
        switch recipe {
        case .ntfy:
            let line = try #require(lines.first { $0.hasPrefix("birthdays settings set command 'curl") && $0.contains("ntfy.sh") })
            return try quoted(line).replacingOccurrences(of: "https://ntfy.sh/YOUR-SECRET-TOPIC", with: "http://127.0.0.1:\(port)/topic")
        case .gotify:
            let line = try #require(lines.first { $0.hasPrefix("Gotify: `") })
            let command = try #require(line.split(separator: "`").dropFirst().first.map(String.init))
            return command.replacingOccurrences(of: "https://gotify.example/message", with: "http://127.0.0.1:\(port)/message")
        case .msmtp:
            let line = try #require(lines.first { $0.hasPrefix("birthdays settings set command '") && $0.contains("msmtp") })
            let rc = "defaults\nauth off\ntls off\naccount default\nhost 127.0.0.1\nport \(port)\nfrom birthdays@example.org\n"
            let path = try cli.write(".msmtprc", rc)
            chmod(path, 0o600)
            return try quoted(line)
        }
    }

    /// Records each POST (path, headers, body) as a JSON line in argv[1]; prints its port first.
    static let httpRecorder = """
        import http.server, json, sys
        out = sys.argv[1]
        class Recorder(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
                utf8 = lambda text: text.encode('latin-1', 'replace').decode('utf-8', 'replace')
                record = {'path': self.path, 'headers': [[k, utf8(v)] for k, v in self.headers.items()], 'body': body.decode('utf-8', 'replace')}
                with open(out, 'a') as f:
                    f.write(json.dumps(record) + '\\n')
                self.send_response(200)
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'{}')
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Recorder)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// A minimal SMTP server that records each message (sender, recipients,
    /// data) as a JSON line in argv[1]; prints its port first.
    static let smtpSink = """
        import json, socketserver, sys
        out = sys.argv[1]
        class Sink(socketserver.StreamRequestHandler):
            def handle(self):
                def say(text):
                    self.wfile.write(text.encode() + b'\\r\\n')
                    self.wfile.flush()
                say('220 localhost ESMTP sink')
                sender, recipients = None, []
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    command = line.decode('utf-8', 'replace').strip()
                    verb = command.upper()
                    if verb.startswith('EHLO'):
                        say('250-localhost')
                        say('250 8BITMIME')
                    elif verb.startswith('MAIL FROM'):
                        sender = command
                        say('250 OK')
                    elif verb.startswith('RCPT TO'):
                        recipients.append(command)
                        say('250 OK')
                    elif verb == 'DATA':
                        say('354 End data with <CR><LF>.<CR><LF>')
                        data = []
                        while True:
                            chunk = self.rfile.readline()
                            if not chunk or chunk in (b'.\\r\\n', b'.\\n'):
                                break
                            data.append(chunk[1:] if chunk.startswith(b'..') else chunk)
                        with open(out, 'a') as f:
                            f.write(json.dumps({'from': sender, 'rcpt': recipients, 'data': b''.join(data).decode('utf-8', 'replace')}) + '\\n')
                        recipients = []
                        say('250 OK')
                    elif verb == 'QUIT':
                        say('221 Bye')
                        return
                    else:
                        say('250 OK')
        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
        server = Server(('127.0.0.1', 0), Sink)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """
}
