import Foundation
import TestSupport
import Testing

/// ntfy and Gotify channels with the real binary and the real helper
/// (`birthdays-network post`) against a loopback HTTP server of the test's
/// own that answers as the two servers' documentation says:
///
/// - ntfy, https://docs.ntfy.sh/publish/ ("Publish as JSON": `POST` to the
///   root URL with `topic`, `title`, `message`, `tags`, `priority`;
///   "Access tokens": `Authorization: Bearer tk_…`; errors as
///   `{"code":40101,"http":401,"error":"unauthorized","link":…}`, server/errors.go).
/// - Gotify, https://gotify.net/docs/pushmsg (`POST /message` with the
///   application token in `X-Gotify-Key`, JSON `title`, `message`, `priority`;
///   a wrong token gets 401 `{"error":"Unauthorized","errorCode":401,"errorDescription":…}`).
///
/// No real server can be installed here (no Debian or PyPI package), so the
/// contract is checked by the fake: the path, the headers, the JSON.
@Suite(.timeLimit(.minutes(10)))
struct PushChannelTests {
    /// The fake ntfy and Gotify server. Each request is recorded as one JSON
    /// line (`path`, `headers`, `body`); the answer depends on the mode in its
    /// control file: `normal` (ntfy or Gotify, checking the token), `429`,
    /// `slow` (answers after 30 s), `redirect` (302 to `/moved`).
    final class PushServer: Sendable {
        let process: TestProcess
        let port: Int
        let log: String
        let control: String

        init(in cli: CLIProcess, ntfyToken: String?, gotifyToken: String) async throws {
            log = cli.path("requests.log")
            control = cli.path("mode.txt")
            let script = """
                import http.server, json, os, sys, time
                log, control, ntfy_token, gotify_token = sys.argv[1:5]
                class Handler(http.server.BaseHTTPRequestHandler):
                    def answer(self, code, body, extra={}):
                        data = json.dumps(body).encode()
                        self.send_response(code)
                        self.send_header('Content-Type', 'application/json')
                        self.send_header('Content-Length', str(len(data)))
                        for k, v in extra.items():
                            self.send_header(k, v)
                        self.end_headers()
                        self.wfile.write(data)
                    def do_POST(self):
                        raw = self.rfile.read(int(self.headers.get('Content-Length', '0')))
                        with open(log, 'a') as f:
                            f.write(json.dumps({'path': self.path, 'headers': dict(self.headers), 'body': raw.decode()}) + '\\n')
                        mode = open(control).read().strip() if os.path.exists(control) else 'normal'
                        if mode == '429':
                            return self.answer(429, {'code': 42901, 'http': 429, 'error': 'limit reached: too many requests'}, {'Retry-After': '120'})
                        if mode == 'slow':
                            time.sleep(600)
                        if mode == 'redirect':
                            self.send_response(302)
                            self.send_header('Location', '/moved')
                            self.send_header('Content-Length', '0')
                            self.end_headers()
                            return
                        if self.path == '/message':
                            if self.headers.get('X-Gotify-Key') != gotify_token:
                                return self.answer(401, {'error': 'Unauthorized', 'errorCode': 401,
                                    'errorDescription': 'you need to provide a valid access token or user credentials to access this api'})
                            m = json.loads(raw)
                            return self.answer(200, {'id': 1, 'appid': 1, 'title': m['title'], 'message': m['message'], 'priority': m['priority']})
                        if self.path == '/':
                            if ntfy_token and self.headers.get('Authorization') != 'Bearer ' + ntfy_token:
                                return self.answer(401, {'code': 40101, 'http': 401, 'error': 'unauthorized',
                                    'link': 'https://ntfy.sh/docs/publish/#authentication'})
                            m = json.loads(raw)
                            return self.answer(200, {'id': 'abc', 'event': 'message', 'topic': m['topic'], 'message': m['message']})
                        self.answer(404, {'code': 40401, 'http': 404, 'error': 'page not found'})
                    def log_message(self, *args):
                        pass
                server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
                server.daemon_threads = True
                print(server.server_port, flush=True)
                server.serve_forever()
                """
            let started = try TestProcess(
                ["/usr/bin/python3", "-c", script, log, control, ntfyToken ?? "", gotifyToken],
                environment: ["PATH": "/usr/bin:/bin"],
                name: "push-server"
            )
            process = started
            port = try #require(Int(try await started.firstLine()))
        }

        var server: String { "http://127.0.0.1:\(port)" }

        func mode(_ mode: String) throws { try Data("\(mode)\n".utf8).write(to: URL(fileURLWithPath: control)) }

        /// The requests received so far.
        var requests: [[String: Any]] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func stop() { process.stop(signal: SIGKILL) }
    }

    static let ntfyToken = "tk_ntfysecret4711"
    static let gotifyToken = "AgotifySecret0815"
    static let topic = "birthdays-topic-9ab3"

    /// Ada's day, with the log channel on, the helper behind a wrapper that
    /// records its arguments and environment, and the tokens in files the token commands read.
    static func setUp() async throws -> (CLIProcess, PushServer) {
        var cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        let helper = URL(fileURLWithPath: try CLIProcess.binary()).deletingLastPathComponent().appendingPathComponent("birthdays-network").path
        // Installed by another process, never written by this one (TemporaryDirectory.writeProgram says why: ETXTBSY).
        let source = try cli.write(
            "helper.sh.text",
            "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" >> '\(cli.path("argv.log"))'\nenv >> '\(cli.path("env.log"))'\nexec '\(helper)' \"$@\"\n"
        )
        let wrapper = cli.path("helper.sh")
        let installed = try await TestProcess.run(["/usr/bin/install", "-m", "700", source, wrapper], environment: ["PATH": "/usr/bin:/bin"])
        try #require(installed.status == 0, "\(installed.stderr)")
        cli.extraEnvironment["BIRTHDAYS_NETWORK_HELPER"] = wrapper
        // A minute, not the 10 s default: the helper's own start counts towards it on a loaded machine.
        cli.extraEnvironment["BIRTHDAYS_HTTP_DEADLINE"] = "60"
        try cli.write("ntfy-token", ntfyToken + "\n")
        try cli.write("gotify-token", gotifyToken + "\n")
        let server = try await PushServer(in: cli, ntfyToken: ntfyToken, gotifyToken: gotifyToken)
        return (cli, server)
    }

    static func channel(_ cli: CLIProcess, _ name: String) async throws -> [String: Any]? {
        try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout).first { $0["name"] as? String == name }
    }

    @Test func aReminderReachesNtfyAndGotifyAndNoTokenIsKept() async throws {
        let (base, server) = try await Self.setUp()
        var cli = base
        cli.extraEnvironment["BIRTHDAYS_LOG_LEVEL"] = "trace"
        defer { cli.cleanUp() }
        defer { server.stop() }
        let ntfyURL = "\(server.server)/\(Self.topic)"
        let addedNtfy = try await cli.run("channels", "add", "ntfy", ntfyURL, "--token-command", "cat '\(cli.path("ntfy-token"))'", "--name", "phone")
        #expect(addedNtfy.status == 0, "\(addedNtfy.stderr)")
        #expect(!addedNtfy.stdout.contains(Self.topic), "the topic is not echoed: \(addedNtfy.stdout)")
        let addedGotify = try await cli.run("channels", "add", "gotify", server.server, "--token-command", "cat '\(cli.path("gotify-token"))'")
        #expect(addedGotify.status == 0, "\(addedGotify.stderr)")
        let urlFile = cli.secretsFolder + "/phone.ntfy"
        #expect(try String(contentsOfFile: urlFile, encoding: .utf8) == ntfyURL + "\n")
        #expect(try FileManager.default.attributesOfItem(atPath: urlFile)[.posixPermissions] as? Int == 0o600)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try await cli.ledgerStates() == ["delivered"], "\(pass.stdout)\(pass.stderr)")
        let requests = server.requests
        #expect(requests.count == 2)

        let ntfy = try #require(requests.first { $0["path"] as? String == "/" }, "\(requests)")
        let ntfyHeaders = try #require(ntfy["headers"] as? [String: String])
        #expect(ntfyHeaders["Authorization"] == "Bearer \(Self.ntfyToken)")
        #expect(ntfyHeaders["Content-Type"] == "application/json")
        let ntfyBody = try CLIProcess.object(try #require(ntfy["body"] as? String))
        #expect(ntfyBody["topic"] as? String == Self.topic)
        #expect((ntfyBody["title"] as? String)?.contains("Ada") == true, "\(ntfyBody)")
        #expect((ntfyBody["message"] as? String)?.contains("Ada Lovelace") == true, "\(ntfyBody)")
        #expect(ntfyBody["tags"] as? [String] == ["birthday"])
        #expect(ntfyBody["priority"] as? Int == 3)

        let gotify = try #require(requests.first { $0["path"] as? String == "/message" }, "\(requests)")
        #expect((gotify["headers"] as? [String: String])?["X-Gotify-Key"] == Self.gotifyToken)
        let gotifyBody = try CLIProcess.object(try #require(gotify["body"] as? String))
        #expect((gotifyBody["message"] as? String)?.contains("Ada Lovelace") == true)
        #expect(gotifyBody["priority"] as? Int == 5)
        #expect(gotifyBody["title"] is String)

        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        let phone = try #require(listed.first { $0["name"] as? String == "phone" })
        #expect(phone["kind"] as? String == "ntfy")
        #expect(phone["target"] as? String == "\(server.server)/…")
        #expect(phone["last_success"] is String)
        let gotifyListed = try #require(listed.first { $0["name"] as? String == "gotify" })
        #expect(gotifyListed["target"] as? String == server.server + "/")

        let tested = try await cli.run("channels", "test", "phone")
        #expect(tested.stdout.contains("phone: OK"), "\(tested.stdout)\(tested.stderr)")
        #expect(server.requests.count == 3)
        _ = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(server.requests.count == 3, "delivered once")

        // No token anywhere but on the wire: not the database, the lists, the log (at trace level), the helper's arguments or environment.
        let database =
            try Data(contentsOf: URL(fileURLWithPath: cli.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: cli.databasePath + "-wal"))) ?? Data())
        let argv = try String(contentsOfFile: cli.path("argv.log"), encoding: .utf8)
        let environment = try String(contentsOfFile: cli.path("env.log"), encoding: .utf8)
        #expect(argv.contains("post"), "the helper ran: \(argv)")
        let listedText = try await cli.run("channels", "list", "--json").stdout + (try await cli.run("channels")).stdout
        for secret in [Self.ntfyToken, Self.gotifyToken, Self.topic] {
            #expect(database.range(of: Data(secret.utf8)) == nil, "\(secret) in the database")
            #expect(!listedText.contains(secret), "\(secret) in the lists")
            #expect(!(pass.stdout + pass.stderr + tested.stdout + tested.stderr).contains(secret), "\(secret) in the log")
            #expect(!argv.contains(secret), "\(secret) in the helper's arguments")
            #expect(!environment.contains(secret), "\(secret) in the helper's environment")
        }

        #expect(try await cli.run("channels", "remove", "phone").status == 0)
        #expect(!FileManager.default.fileExists(atPath: urlFile), "the URL file goes with the channel")
    }

    /// Ada's card gives her address and phone: the day before (contact-links
    /// off, the default) ntfy and Gotify get neither; after `settings set
    /// contact-links on` the day-of carries ntfy's view button and Gotify's
    /// click URL with her preferred address, and the phone number never.
    @Test func theContactLinkReachesNtfyAndGotifyOnlyWithContactLinksOn() async throws {
        let (base, server) = try await Self.setUp()
        var cli = base
        // Two days ahead, so the day before is still to come.
        cli.now = "2026-03-08T08:00:00+01:00"
        defer { cli.cleanUp() }
        defer { server.stop() }
        let card = try cli.write(
            "ada.vcf",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nBDAY:1990-03-10\r\nTEL;TYPE=cell:+44 20 7946 0000\r\n"
                + "EMAIL;TYPE=pref:ada@example.org\r\nEND:VCARD\r\n"
        )
        let imported = try await cli.run("import", card)
        #expect(imported.status == 0, "\(imported.stderr)")
        try await cli.set("reminders", "1,0")
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
        let mailto = "mailto:ada@example.org?subject=Happy%20birthday%21"
        func bodies(from start: Int) throws -> (ntfy: [String: Any], gotify: [String: Any], text: String) {
            let requests = Array(server.requests.dropFirst(start))
            try #require(requests.count == 2, "\(requests)")
            let ntfy = try #require(requests.first { $0["path"] as? String == "/" }?["body"] as? String)
            let gotify = try #require(requests.first { $0["path"] as? String == "/message" }?["body"] as? String)
            return (try CLIProcess.object(ntfy), try CLIProcess.object(gotify), ntfy + gotify)
        }

        let dayBefore = try await cli.run(at: "2026-03-09T09:00:05+01:00", "deliver", "--once")
        #expect(dayBefore.status == 0, "\(dayBefore.stderr)")
        #expect(try await cli.ledgerStates() == ["delivered"], "\(dayBefore.stdout)\(dayBefore.stderr)")
        let off = try bodies(from: 0)
        #expect(off.ntfy["actions"] == nil)
        #expect(off.gotify["extras"] == nil)
        #expect(!off.text.contains("example.org") && !off.text.contains("7946"), "\(off.text)")

        try await cli.set("contact-links", "on")
        let dayOf = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(dayOf.status == 0, "\(dayOf.stderr)")
        let on = try bodies(from: 2)
        #expect(on.ntfy["actions"] as? [[String: String]] == [["action": "view", "label": "Write to Ada Lovelace", "url": mailto]])
        let extras = try #require(on.gotify["extras"] as? [String: Any])
        #expect((extras["client::notification"] as? [String: Any])?["click"] as? [String: String] == ["url": mailto])
        #expect(!on.text.contains("7946"), "the preferred address only: \(on.text)")
        // And never in the log.
        #expect(!(dayBefore.stdout + dayBefore.stderr + dayOf.stdout + dayOf.stderr).contains("example.org"))
    }

    @Test func ntfyRefusingTheTokenIsNotRetriedAndItsWordsAreListed() async throws {
        let (cli, server) = try await Self.setUp()
        defer { cli.cleanUp() }
        defer { server.stop() }
        try cli.write("ntfy-token", "tk_wrong\n")
        let added = try await cli.run(
            "channels",
            "add",
            "ntfy",
            "\(server.server)/\(Self.topic)",
            "--token-command",
            "cat '\(cli.path("ntfy-token"))'",
            "--name",
            "phone"
        )
        #expect(added.status == 0, "\(added.stderr)")

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.stdout.contains("reminder delivered"), "the log took it: \(pass.stdout)")
        #expect(try await cli.ledgerStates() == ["delivered"], "the log took it; the refusal is noted, not retried")
        let phone = try await Self.channel(cli, "phone")
        #expect(phone?["state"] as? String == "refused")
        #expect((phone?["last_error"] as? String)?.contains("401 40101: unauthorized") == true, "\(String(describing: phone))")
        _ = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(server.requests.count == 1, "not retried")
    }

    /// The weekly digest reaches ntfy and Gotify beside Ada's reminder: its
    /// title, one line per event, ntfy's `calendar` tag; once.
    @Test func theDigestReachesNtfyAndGotifyAsLines() async throws {
        let (cli, server) = try await Self.setUp()
        defer { cli.cleanUp() }
        defer { server.stop() }
        try await cli.seed([("zoe", "Zoë Ñúñez", "1989-03-12")])
        try await cli.set("digest", "weekly")
        try await cli.set("digest-day", "tuesday")
        let ntfy = try await cli.run(
            "channels",
            "add",
            "ntfy",
            "\(server.server)/\(Self.topic)",
            "--token-command",
            "cat '\(cli.path("ntfy-token"))'",
            "--name",
            "phone"
        )
        #expect(ntfy.status == 0, "\(ntfy.stderr)")
        let gotify = try await cli.run("channels", "add", "gotify", server.server, "--token-command", "cat '\(cli.path("gotify-token"))'")
        #expect(gotify.status == 0, "\(gotify.stderr)")

        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(try await cli.ledgerStates() == ["delivered", "delivered"])
        let bodies = try server.requests.map { request in
            try CLIProcess.object(try #require(request["body"] as? String))
        }
        #expect(bodies.count == 4, "two reminders, two channels")
        let digests = bodies.filter { ($0["title"] as? String)?.hasPrefix("Birthdays in the week ahead: Ada Lovelace, Zoë Ñúñez") == true }
        #expect(digests.count == 2, "\(bodies)")
        for digest in digests {
            #expect(
                digest["message"] as? String == "Tue 10 Mar (today): Ada Lovelace, birthday, turns 36\nThu 12 Mar: Zoë Ñúñez, birthday, turns 37",
                "\(digest)"
            )
        }
        #expect(digests.compactMap { $0["tags"] as? [String] } == [["calendar"]], "ntfy's tag; Gotify has none")
        _ = try await cli.run(at: "2026-03-10T09:10:00+01:00", "deliver", "--once")
        #expect(server.requests.count == 4, "once")
    }

    /// A 429 is retried, and not before its Retry-After (120 s here, longer than the first back-off of 30 s).
    @Test func tooManyRequestsIsRetriedAfterTheWaitTheServerAskedFor() async throws {
        let (cli, server) = try await Self.setUp()
        defer { cli.cleanUp() }
        defer { server.stop() }
        try server.mode("429")
        let added = try await cli.run(
            "channels",
            "add",
            "ntfy",
            "\(server.server)/\(Self.topic)",
            "--token-command",
            "cat '\(cli.path("ntfy-token"))'",
            "--name",
            "phone"
        )
        #expect(added.status == 0, "\(added.stderr)")

        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(try await cli.ledgerStates() == ["retrying"])
        let phone = try await Self.channel(cli, "phone")
        #expect(phone?["state"] as? String == "retrying")
        let error = try #require(phone?["last_error"] as? String)
        #expect(error.contains("429") && error.contains("42901") && error.contains("120 s (Retry-After)"), "\(error)")

        try server.mode("normal")
        // The back-off alone would try at 09:00:35; the server asked for 09:02:05.
        _ = try await cli.run(at: "2026-03-10T09:01:00+01:00", "deliver", "--once")
        #expect(try await cli.ledgerStates() == ["retrying"])
        #expect(server.requests.count == 1, "not asked again before its Retry-After")
        _ = try await cli.run(at: "2026-03-10T09:02:10+01:00", "deliver", "--once")
        #expect(try await cli.ledgerStates() == ["delivered"])
        #expect(server.requests.count == 2)
    }

    @Test func aSlowServerIsGivenUpAtTheDeadlineAndRetried() async throws {
        let (base, server) = try await Self.setUp()
        var cli = base
        defer { cli.cleanUp() }
        defer { server.stop() }
        cli.extraEnvironment["BIRTHDAYS_HTTP_DEADLINE"] = "2"
        try server.mode("slow")
        #expect(
            try await cli.run("channels", "add", "gotify", server.server, "--token-command", "cat '\(cli.path("gotify-token"))'").status == 0
        )

        let started = ContinuousClock.now
        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        let took = ContinuousClock.now - started
        // The server holds the answer 600 s: well under that is the 2 s deadline (starting the binary and
        // the helper on a loaded machine took 11.5 s once, so the bound leaves room for that many times over).
        #expect(took < .seconds(120), "given up at the deadline, not after the server's 600 s: \(took)")
        #expect(try await cli.ledgerStates() == ["retrying"])
        let gotify = try await Self.channel(cli, "gotify")
        #expect(gotify?["state"] as? String == "retrying")
        #expect((gotify?["last_error"] as? String)?.contains("did not answer within 2 s") == true, "\(String(describing: gotify))")
    }

    @Test func aRedirectIsNotFollowed() async throws {
        let (cli, server) = try await Self.setUp()
        defer { cli.cleanUp() }
        defer { server.stop() }
        try server.mode("redirect")
        #expect(
            try await cli.run("channels", "add", "gotify", server.server, "--token-command", "cat '\(cli.path("gotify-token"))'").status == 0
        )

        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(server.requests.map { $0["path"] as? String } == ["/message"], "the redirect's target received nothing")
        #expect(try await cli.ledgerStates() == ["delivered"], "the log took it; the redirect is a refusal, not retried")
        let gotify = try await Self.channel(cli, "gotify")
        #expect((gotify?["last_error"] as? String)?.contains("302") == true, "\(String(describing: gotify))")
    }

    @Test(arguments: [
        ["channels", "add", "ntfy", "ftp://ntfy.example/topic"],
        ["channels", "add", "ntfy", "https://ntfy.sh/"],
        ["channels", "add", "ntfy", "https://ntfy.sh/bad.topic"],
        ["channels", "add", "ntfy", "https://user:secret@ntfy.sh/topic"],
        ["channels", "add", "ntfy", "https://ntfy.sh/topic?auth=abc"],
        ["channels", "add", "gotify", "https://gotify.example"],
        ["channels", "add", "gotify", "gotify.example", "--token-command", "cat token"],
        ["channels", "add", "ntfy", "https://ntfy.sh/topic", "--from", "a@example.org"],
        ["channels", "add", "email", "ada@example.org", "--token-command", "cat token"],
    ])
    func aBadPushArgumentIsAUsageErrorAndStoresNothing(_ arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        try await cli.seed([("grace", "Grace Hopper", "1906-12-09")])
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(!result.stderr.contains("secret"), "\(result.stderr)")
        let listed = try CLIProcess.array(try await cli.run("channels", "list", "--json").stdout)
        #expect(listed.count == 3, "only the built-in channels")
        let folder = cli.secretsFolder
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] == [], "no secret file")
    }
}
