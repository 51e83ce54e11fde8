import BirthdayCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The feed server of the real binary against clients that want it down,
/// and `run` when the feed cannot be served (issue 16).
@Suite struct HostileFeedTests {
    /// The descriptor limit the server runs under, and how many idle
    /// connections the test holds against it: more than the limit.
    static let descriptorLimit = 256
    static let idleConnections = 400

    /// More idle connections than `ulimit -n` allows: the server (alone, or
    /// inside `run`) keeps answering real requests, does not die and does not
    /// spin, and stays below its descriptor limit.
    /// Whether this process may open enough descriptors to hold the connections.
    static var mayHoldTheConnections: Bool { Descriptors.mayHold(idleConnections + 200) }

    @Test(
        .enabled(if: mayHoldTheConnections, "the test needs a hard descriptor limit (ulimit -Hn) of at least \(idleConnections + 200)"),
        arguments: ["serve", "run"]
    )
    func theFeedSurvivesMoreIdleConnectionsThanDescriptors(command: String) async throws {
        Descriptors.raise(toHold: Self.idleConnections + 200)
        let cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        defer { cli.cleanUp() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-11")])
        let port = try Loopback.freePort()
        var arguments = [try CLIProcess.binary(), "serve", "--port", String(port)]
        if command == "run" {
            try await cli.set("channels", "log")
            try await cli.set("serve", "127.0.0.1:\(port)")
            arguments = [try CLIProcess.binary(), "run"]
        }
        // `ulimit -n` lowers both limits for the server only; exec keeps them.
        let server = try TestProcess(
            ["/bin/sh", "-c", "ulimit -n \(Self.descriptorLimit) && exec \"$@\"", "sh"] + arguments,
            environment: cli.environment,
            directory: cli.directory,
            name: command
        )
        defer { server.stop() }
        let healthz = "http://127.0.0.1:\(port)/healthz"
        try await server.waitUntil("the feed server") { _ in await (try? Self.curl(healthz))?.stdout == "200" }
        let feed = try await #require(try cli.run("feed", "url", "--port", String(port)).stdout.split(separator: "\n").first.map(String.init))

        let flood = try await offThread { try Self.connect(count: Self.idleConnections, port: port) }
        #expect(flood.count == Self.idleConnections, "every connection was accepted or queued")

        await #expect(try Self.curl(healthz).stdout == "200", "a real request is answered at the bound")
        await #expect(try Self.curl(feed).stdout == "200", "and the feed, which opens the database")
        #expect(server.poll() == nil, "the server lives: \(server.stderr.suffix(2000))")
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd").count
        #expect(descriptors < Self.descriptorLimit, "below the limit: \(descriptors)")
        #expect(try await offThread { Self.closedByServer(flood[0]) }, "the connection idle the longest was dropped")

        // Spinning would burn a core: measure its CPU time over two seconds
        // of idle connections (a measurement window, not a wait for an event).
        let before = try Self.cpuTicks(server.pid)
        try await Task.sleep(for: .seconds(2))
        let used = try Self.cpuTicks(server.pid) - before
        #expect(used < Int(sysconf(Int32(_SC_CLK_TCK))) / 2, "\(used) ticks of CPU in 2 s of idle connections")
        await #expect(try Self.curl(healthz).stdout == "200")
        #expect(server.poll() == nil)
        #expect(server.stderr.contains("connection limit reached"))
        for fd in flood { close(fd) }
    }

    /// `run` with a `serve` address it cannot bind delivers anyway, says
    /// why the feed is missing, and serves it once the port is free.
    @Test func runDeliversWhenTheFeedCannotBindAndServesItLater() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: true)
        defer { cli.cleanUp() }
        let taken = try Loopback.Listener()
        try await cli.set("channels", "log")
        try await cli.set("serve", "127.0.0.1:\(taken.port)")
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        defer { daemon.stop() }
        try await daemon.waitUntil("the delivery") { $0.stdout.contains("reminder delivered") }
        try await daemon.waitUntil("the bind error") { $0.stderr.contains("the calendar feed cannot be served") }
        #expect(daemon.poll() == nil, "run keeps running")
        taken.close()
        try await daemon.waitUntil("the feed once the port is free", seconds: 90) { _ in
            await (try? Self.curl("http://127.0.0.1:\(taken.port)/healthz"))?.stdout == "200"
        }
        #expect(daemon.stdout.occurrences(of: "reminder delivered") == 1)
    }

    @Test(arguments: [["serve", "--port", "99999"], ["serve", "--port", "0"], ["feed", "url", "--port", "65536"]])
    func portsOutsideTheRangeAreRejected(arguments: [String]) async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--port must be between 1 and 65535"))
        let setting = try await cli.run("settings", "set", "serve", "127.0.0.1:99999")
        #expect(setting.status == 64)
    }

    // MARK: - Helpers

    static func curl(_ url: String) async throws -> CLIProcess.Output {
        try await TestProcess.run(["/usr/bin/env", "curl", "-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", url])
    }

    /// `count` connections to 127.0.0.1:`port`, opened one after another and held.
    static func connect(count: Int, port: Int) throws -> [Int32] {
        var sockets: [Int32] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                break
            }
            sockets.append(fd)
        }
        return sockets
    }

    /// Whether the server closed `fd` (an end of file or a reset within the receive timeout).
    static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// User plus system CPU time of `pid` in clock ticks, from /proc/<pid>/stat.
    static func cpuTicks(_ pid: pid_t) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}

/// Runs `body` on a new thread, off the cooperative pool, and returns what it returned or threw.
func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
