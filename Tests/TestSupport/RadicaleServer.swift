import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real CardDAV server for the tests: Radicale (apt `radicale`) on an
/// ephemeral loopback port, with htpasswd authentication (user `alice`,
/// password `secret` unless told otherwise), its own configuration (Debian's default one uses
/// another authentication and would break the tests) and storage in a
/// temporary folder. Under `eatmydata` when installed, so its fsyncs cost
/// nothing, and `nice`, so it yields to the tests beside it. It logs one
/// line per request at info level, with the client's User-Agent, which
/// ``requests(userAgent:)`` counts.
public final class RadicaleServer: @unchecked Sendable {
    public static let executable = "/usr/bin/radicale"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let missing = "needs Radicale (apt: radicale), the CardDAV server the tests sync from"

    public let user = "alice"
    public let password: String
    public let directory: TemporaryDirectory
    public let port: Int
    private let lock = NSLock()
    private var process: TestProcess
    /// The logs of the processes stopped by ``restart()``.
    private var earlierLogs = ""

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var storage: String { directory.file("storage") }
    /// The URL of alice's collection `name`.
    public func bookURL(_ name: String) -> String { "\(baseURL)/\(user)/\(name)/" }
    /// Where Radicale keeps the book's cards (one file per href).
    public func bookFolder(_ name: String) -> String { "\(storage)/collection-root/\(user)/\(name)" }

    /// Starts a server and waits until it answers; alice's password is `password`.
    public init(password: String = "secret") async throws {
        self.password = password
        directory = try TemporaryDirectory()
        try directory.write("users", "alice:\(password)\n")
        (process, port) = try await Self.start(in: directory, port: 0)
    }

    /// Writes the configuration (`port` 0: any free one) and starts Radicale; its process and port.
    private static func start(in directory: TemporaryDirectory, port: Int) async throws -> (TestProcess, Int) {
        try directory.write(
            "config",
            """
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            type = htpasswd
            htpasswd_filename = \(directory.file("users"))
            htpasswd_encryption = plain
            delay = 0
            [rights]
            type = owner_only
            [storage]
            filesystem_folder = \(directory.file("storage"))
            [web]
            type = none
            [logging]
            level = info
            mask_passwords = True

            """
        )
        var argv = [Self.executable, "--config", directory.file("config")]
        if let eatmydata = SystemTools.path("eatmydata") { argv.insert(eatmydata, at: 0) }
        // Niced: building its cache for a 10,000-card book takes Radicale a minute
        // of CPU, which must not starve the tests that run beside it.
        if let nice = SystemTools.path("nice") { argv = [nice, "-n", "10"] + argv }
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"]
        let process = try TestProcess(argv, environment: environment, directory: directory.url, name: "radicale")
        var found: Int?
        try await process.waitUntil("Radicale to listen", seconds: 180) { process in
            let log = process.stderr
            if log.contains("Radicale server ready"), let port = Self.port(in: log) {
                found = port
                return true
            }
            return process.poll() != nil
        }
        guard let found else { throw TestSupportError("Radicale exited: \(process.stderr)") }
        return (process, found)
    }

    deinit { stop() }

    private var current: TestProcess { lock.withLock { process } }

    /// Stops the server (the folder stays until ``cleanUp()``); SIGKILL stops it in the middle of a request.
    public func stop(signal: Int32 = SIGTERM) { current.stop(signal: signal) }

    /// Stops the server, abruptly with `signal` (SIGKILL: no request is finished), and starts it
    /// again on the same port with the same storage: a server that went away and came back.
    public func restart(signal: Int32 = SIGTERM) async throws {
        current.stop(signal: signal)
        try await eventually("port \(port) to be free again", seconds: 30) { Self.portIsFree(port) }
        let (process, _) = try await Self.start(in: directory, port: port)
        lock.withLock {
            earlierLogs += self.process.stderr
            self.process = process
        }
    }

    /// Starts the server again after ``stop()``, on the same port.
    public func start() async throws {
        try await restart()
    }

    private static func portIsFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Stops the server and removes its folder.
    public func cleanUp() {
        stop()
        directory.cleanup()
    }

    private static func port(in log: String) -> Int? {
        guard let range = log.range(of: "Listening on '[127.0.0.1]:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }

    /// The server's log so far (of every process ``restart()`` started).
    public var log: String { lock.withLock { earlierLogs + process.stderr } }

    /// How many requests the server received from clients whose User-Agent starts with `userAgent`.
    public func requests(userAgent: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(" request for ") && $0.contains("using '\(userAgent)") }.count
    }

    // MARK: - Changing the books over HTTP

    /// Runs curl against the server as alice; the status code and the body.
    @discardableResult
    public func curl(_ method: String, _ url: String, headers: [String] = [], body: String? = nil) async throws -> (status: Int, body: String) {
        var argv = ["/usr/bin/curl", "-s", "-u", "\(user):\(password)", "-X", method, "-w", "\n%{http_code}", "-A", "test-fixture"]
        for header in headers { argv += ["-H", header] }
        var input = ""
        if let body {
            argv += ["--data-binary", "@-"]
            input = body
        }
        argv.append(url)
        let result = try await TestProcess.run(argv, environment: ["PATH": "/usr/bin:/bin"], stdin: input)
        guard result.status == 0 else { throw TestSupportError("curl \(method) \(url) failed: \(result.stderr)") }
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Creates the address book `name` (extended MKCOL, RFC 5689).
    public func makeBook(_ name: String, displayName: String? = nil) async throws {
        let display = displayName.map { "<d:displayname>\($0)</d:displayname>" } ?? ""
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:mkcol xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav">
              <d:set><d:prop>
                <d:resourcetype><d:collection/><card:addressbook/></d:resourcetype>\(display)
              </d:prop></d:set>
            </d:mkcol>
            """
        let (status, answer) = try await curl("MKCOL", bookURL(name), body: body)
        guard status == 201 else { throw TestSupportError("MKCOL \(name): \(status) \(answer)") }
    }

    /// PUTs a vCard 3.0 with this UID, name and BDAY as `FILE` (default `UID.vcf`) into the book.
    public func put(_ book: String, uid: String, name: String, birthday: String?, file: String? = nil) async throws {
        var card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\n"
        if let birthday { card += "BDAY:\(birthday)\r\n" }
        card += "END:VCARD\r\n"
        try await put(book, file: file ?? uid + ".vcf", card: card)
    }

    /// PUTs `card` as `file` into the book.
    public func put(_ book: String, file: String, card: String) async throws {
        let (status, answer) = try await curl("PUT", bookURL(book) + file, headers: ["Content-Type: text/vcard; charset=utf-8"], body: card)
        guard status == 201 || status == 204 else { throw TestSupportError("PUT \(file): \(status) \(answer)") }
    }

    /// DELETEs `file` from the book.
    public func delete(_ book: String, file: String) async throws {
        let (status, answer) = try await curl("DELETE", bookURL(book) + file)
        guard status == 200 || status == 204 else { throw TestSupportError("DELETE \(file): \(status) \(answer)") }
    }

    /// Writes `count` cards straight into the book's folder (`c00000.vcf` …,
    /// UID `uid-00000` …, every one with a birthday), creating the book:
    /// thousands of PUTs would take Radicale half an hour. Radicale reads
    /// them on the next request (the first one builds its cache, which takes
    /// a while for big books).
    public func seed(_ book: String, displayName: String, count: Int) throws {
        let folder = bookFolder(book)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(#"{"tag": "VADDRESSBOOK", "D:displayname": "\#(displayName)"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/.Radicale.props"))
        for index in 0..<count {
            let card = Self.seedCard(index)
            try Data(card.utf8).write(to: URL(fileURLWithPath: folder + "/" + String(format: "c%05d.vcf", index)))
        }
    }

    /// The card ``seed(_:displayName:count:)`` writes at `index`.
    public static func seedCard(_ index: Int, name: String? = nil) -> String {
        let id = String(format: "%05d", index)
        let birthday = String(format: "19%02d-%02d-%02d", 40 + index % 60, 1 + index % 12, 1 + index % 28)
        return "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:uid-\(id)\r\nFN:\(name ?? "Person \(id)")\r\nBDAY:\(birthday)\r\nEND:VCARD\r\n"
    }
}
