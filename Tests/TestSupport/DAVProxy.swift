import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP proxy in front of a real DAV server (python3's
/// `http.server`, one thread per connection): every request is passed on
/// unchanged and its answer returned unchanged (redirects are not followed),
/// except those a ``Rule`` answers itself, which never reach the server. It
/// writes one line per request (`METHOD PATH STATUS`), which ``requests``
/// reads, so the tests count what a client sent. The rules are read from a
/// file at every request, so a test changes them between commands.
public final class DAVProxy: @unchecked Sendable {
    /// An answer the proxy gives itself to the requests it matches.
    public struct Rule: Sendable, Encodable {
        public var method: String
        /// The request's path ends with this (percent-encoded as sent); empty: any path.
        public var pathSuffix: String
        /// The `Depth` header it must carry; `nil`: any.
        public var depth: String?
        public var status: Int
        public var body: String
        public var headers: [String: String]
        /// How many requests it answers (the rest are passed on); `nil`: all.
        public var times: Int?

        public init(
            method: String,
            pathSuffix: String = "",
            depth: String? = nil,
            status: Int,
            body: String = "",
            headers: [String: String] = [:],
            times: Int? = nil
        ) {
            self.method = method
            self.pathSuffix = pathSuffix
            self.depth = depth
            self.status = status
            self.body = body
            self.headers = headers
            self.times = times
        }
    }

    /// One request the proxy received.
    public struct Request: Sendable, Equatable {
        public var method: String
        public var path: String
        public var status: Int
    }

    public let port: Int
    private let directory: TemporaryDirectory
    private let process: TestProcess

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    static let script = #"""
        import http.client, http.server, json, sys, threading
        from urllib.parse import urlsplit
        upstream, log, rules_file = sys.argv[1], sys.argv[2], sys.argv[3]
        target = urlsplit(upstream)
        lock = threading.Lock()
        answered = {}

        def record(method, path, status):
            with lock, open(log, "a") as f:
                f.write("%s %s %d\n" % (method, path, status))

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status, headers, data):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                record(self.command, self.path, status)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                try:
                    with open(rules_file) as f:
                        rules = json.load(f)
                except (OSError, ValueError):
                    rules = []
                for rule in rules:
                    if rule["method"] == self.command and self.path.endswith(rule["pathSuffix"]) \
                            and rule.get("depth") in (None, self.headers.get("Depth")):
                        key = json.dumps(rule, sort_keys=True)
                        with lock:
                            used = answered.get(key, 0)
                            if rule.get("times") is not None and used >= rule["times"]:
                                continue
                            answered[key] = used + 1
                        self.answer(rule["status"], list(rule["headers"].items()), rule["body"].encode())
                        return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
                connection = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
                connection.request(self.command, self.path, body=body, headers=headers)
                reply = connection.getresponse()
                data = reply.read()
                connection.close()
                kept = [(k, v) for k, v in reply.getheaders()
                        if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server")]
                self.answer(reply.status, kept, data)

            do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_MKCALENDAR = do_OPTIONS = do_HEAD = do_POST = handle_any

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts a proxy in front of `upstream` (`http://127.0.0.1:PORT`), with no rules.
    public init(upstream: String) async throws {
        directory = try TemporaryDirectory()
        try directory.write("requests.log", "")
        try directory.write("rules.json", "[]")
        process = try TestProcess(
            ["/usr/bin/python3", "-c", Self.script, upstream, directory.file("requests.log"), directory.file("rules.json")],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            name: "dav-proxy"
        )
        guard let port = Int(try await process.firstLine()) else { throw TestSupportError("the DAV proxy did not start: \(process.stderr)") }
        self.port = port
    }

    deinit { stop() }

    /// Answers the requests `rules` match itself, from the next request on (the first rule that matches wins;
    /// a rule with ``Rule/times`` only that many times).
    public func answer(_ rules: [Rule]) throws {
        let data = try JSONEncoder().encode(rules)
        try directory.write("rules.json", String(decoding: data, as: UTF8.self))
    }

    /// Every request received so far, in order.
    public var requests: [Request] {
        ((try? String(contentsOfFile: directory.file("requests.log"), encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let status = Int(parts[2]) else { return nil }
            return Request(method: String(parts[0]), path: String(parts[1]), status: status)
        }
    }

    public func stop() { process.stop(signal: SIGKILL) }

    /// Stops the proxy and removes its folder.
    public func cleanUp() {
        stop()
        directory.cleanup()
    }
}
