import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The network helper against a server that misbehaves on purpose (issue 24),
/// a loopback server of the test's own (`python3`, `http.server`): an answer
/// without end, an answer that drips a byte a second, and a command killed
/// while its helper waits.
@Suite struct HostileCardDAVTests {
    /// Answers every request with a 207 whose body never ends: `endless`
    /// writes as fast as the client reads, `drip` one byte a second. Prints
    /// its port, then serves until killed.
    static let server = """
        import http.server, socketserver, sys, time
        mode = sys.argv[1]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length: self.rfile.read(length)
                self.send_response(207)
                self.send_header("Content-Type", "application/xml; charset=utf-8")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.flush()
                chunk = b"<d:response><d:href>/x/</d:href></d:response>" * 1400
                try:
                    while True:
                        if mode == "endless":
                            self.wfile.write(chunk)
                        else:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            time.sleep(1)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            do_PROPFIND = do_REPORT = do_GET = do_OPTIONS = answer
            def log_message(self, *args): pass
        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// A helper that runs the real one and writes its peak resident size
    /// (KB: the kernel's `ru_maxrss`, which `/usr/bin/time -v` reports) to `peak`.
    static func measuringHelper(real: String, peak: String) -> String {
        """
        #!/usr/bin/python3
        import resource, subprocess, sys
        status = subprocess.call(["\(real)"] + sys.argv[1:])
        open("\(peak)", "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        sys.exit(status)

        """
    }

    struct Setup {
        let cli: CLIProcess
        let server: TestProcess
        let url: String

        func cleanUp() {
            server.stop(signal: SIGKILL)
            cli.cleanUp()
        }
    }

    static func start(_ mode: String) async throws -> Setup {
        try #require(FileManager.default.isExecutableFile(atPath: SystemTools.python), "needs python3 for the misbehaving server")
        let cli = try CLIProcess()
        let script = try cli.write("server.py", server)
        let process = try TestProcess([SystemTools.python, "-u", script, mode], environment: ["PATH": "/usr/bin:/bin"], name: "server")
        let port = try await process.firstLine()
        return Setup(cli: cli, server: process, url: "http://127.0.0.1:\(port)/dav/")
    }

    /// The real helper next to the binary under test.
    static func helper() throws -> String {
        URL(fileURLWithPath: try CLIProcess.binary()).deletingLastPathComponent().appendingPathComponent("birthdays-network").path
    }

    @Test func anEndlessAnswerFailsWithASentenceAndLittleMemory() async throws {
        let setup = try await Self.start("endless")
        defer { setup.cleanUp() }
        var cli = setup.cli
        let peak = cli.path("peak-kb")
        // Written by a child of its own: a file this process had open for writing
        // could be held by a process another test forks meanwhile, and exec
        // would then fail with ETXTBSY.
        let source = try cli.write("helper.py", Self.measuringHelper(real: try Self.helper(), peak: peak))
        let wrapper = cli.path("helper")
        let copied = try await TestProcess.run(["/bin/cp", source, wrapper])
        try #require(copied.status == 0, "\(copied.stderr)")
        chmod(wrapper, 0o755)
        cli.extraEnvironment["BIRTHDAYS_NETWORK_HELPER"] = wrapper
        let started = ContinuousClock.now
        let add = try await cli.run("sources", "add", setup.url, "--name", "Endless")
        #expect(add.status == 1)
        #expect(
            add.stderr.hasPrefix("Error: the server sent more than 4 MB for one request to \(setup.url); "),
            "\(add.stderr)"
        )
        #expect(!add.stderr.contains("NIO") && !add.stderr.contains("Error("), "no type names: \(add.stderr)")
        #expect(ContinuousClock.now - started < .seconds(60))
        let kilobytes = try #require(Int(try String(contentsOfFile: peak, encoding: .utf8)), "the wrapper wrote no peak")
        #expect(kilobytes > 0 && kilobytes < 100_000, "the helper's peak RSS was \(kilobytes) KB")
        await #expect(try !cli.run("sources", "list").stdout.contains("Endless"), "nothing was added")
    }

    @Test func aDripEndsAtTheDeadline() async throws {
        let setup = try await Self.start("drip")
        defer { setup.cleanUp() }
        var cli = setup.cli
        cli.extraEnvironment["BIRTHDAYS_HTTP_DEADLINE"] = "3"
        let add = try TestProcess(
            [try CLIProcess.binary(), "sources", "add", setup.url, "--name", "Drip"],
            environment: cli.environment,
            directory: cli.directory,
            name: "sources-add"
        )
        defer { add.stop(signal: SIGKILL) }
        let started = ContinuousClock.now
        // Without a total deadline, a byte a second never trips the 120 s read timeout.
        let status = try await add.waitForExit(seconds: 60)
        let took = ContinuousClock.now - started
        #expect(status == 1)
        #expect(add.stderr == "Error: cannot reach \(setup.url): the answer did not arrive within 3 s\n", "\(add.stderr)")
        #expect(took >= .seconds(3) && took < .seconds(30), "\(took)")
    }

    @Test func noHelperOutlivesAKilledCommand() async throws {
        let setup = try await Self.start("drip")
        defer { setup.cleanUp() }
        let add = try TestProcess(
            [try CLIProcess.binary(), "sources", "add", setup.url, "--name", "Drip"],
            environment: setup.cli.environment,
            directory: setup.cli.directory,
            name: "sources-add"
        )
        defer { add.stop(signal: SIGKILL) }
        var helpers: [pid_t] = []
        try await add.waitUntil("the helper to start", seconds: 60) { process in
            helpers = Self.children(of: process.pid)
            return !helpers.isEmpty || process.poll() != nil
        }
        try #require(!helpers.isEmpty, "sources add ended before its helper was seen: \(add.stderr)")
        add.signal(SIGKILL)
        _ = try await add.waitForExit()
        try await eventually("the helper to end with its parent") {
            helpers.allSatisfy { !Self.isRunning($0) }
        }
    }

    /// The processes whose parent is `pid`, from /proc.
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { parent(of: $0) == pid }
    }

    /// Field 4 of /proc/PID/stat (after the command name, which may hold spaces and parentheses).
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// Whether `pid` still runs: it exists and is not a zombie waiting for whoever adopted it.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return false
        }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
