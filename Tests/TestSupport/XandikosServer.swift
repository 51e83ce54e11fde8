import Foundation

/// A second real CalDAV server for the publish tests: Xandikos (apt
/// `xandikos`) on a free loopback port, with a calendar home for its one
/// user (`--defaults`: principal `/user/`, home `/user/calendars/`) and no
/// authentication, storing in a temporary folder. Under `eatmydata` when
/// installed, as Radicale, so the syncs of the git repositories it keeps
/// each collection in cost nothing beside a full test run's disk load.
public final class XandikosServer: @unchecked Sendable {
    public static let executable = "/usr/bin/xandikos"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let missing = "needs Xandikos (apt: xandikos), the second CalDAV server the publish tests write to"

    public let directory: TemporaryDirectory
    public let port: Int
    private let process: TestProcess

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server and waits until it answers.
    public init() async throws {
        directory = try TemporaryDirectory()
        port = try Loopback.freePort()
        var argv = [Self.executable, "--defaults", "-d", directory.file("storage"), "-l", "127.0.0.1", "-p", String(port)]
        if let eatmydata = SystemTools.path("eatmydata") { argv.insert(eatmydata, at: 0) }
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"]
        let process = try TestProcess(argv, environment: environment, directory: directory.url, name: "xandikos")
        self.process = process
        let url = "http://127.0.0.1:\(port)/"
        try await process.waitUntil("Xandikos to answer", seconds: 180) { process in
            if process.poll() != nil { return true }
            let probe = try? await TestProcess.run(
                ["/usr/bin/curl", "-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", url],
                environment: ["PATH": "/usr/bin:/bin"]
            )
            return probe.map { $0.status == 0 && $0.stdout != "000" } ?? false
        }
        guard process.poll() == nil else { throw TestSupportError("Xandikos exited: \(process.stderr)") }
    }

    deinit { stop() }

    public func stop() { process.stop() }

    public func cleanUp() {
        stop()
        directory.cleanup()
    }

    /// Runs curl against the server; the status code and the body.
    @discardableResult
    public func curl(_ method: String, _ url: String, headers: [String] = [], body: String? = nil) async throws -> (status: Int, body: String) {
        var argv = ["/usr/bin/curl", "-s", "-X", method, "-w", "\n%{http_code}", "-A", "test-fixture"]
        for header in headers { argv += ["-H", header] }
        if body != nil { argv += ["--data-binary", "@-"] }
        argv.append(url)
        let result = try await TestProcess.run(argv, environment: ["PATH": "/usr/bin:/bin"], stdin: body ?? "")
        guard result.status == 0 else { throw TestSupportError("curl \(method) \(url) failed: \(result.stderr)") }
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}
