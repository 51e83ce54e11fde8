import BirthdayCalendar
import BirthdayCore
import BirthdayServer
import BirthdayStore
import Foundation
import HummingbirdTesting
import Logging
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `test` against the real feed server over `source`, live on an
/// ephemeral loopback port, logging into `recorder`.
func withServer(
    _ source: some PageSource & InvitationSource,
    recorder: LogRecorder = LogRecorder(),
    idleTimeout: Duration = .seconds(30),
    logLevel: Logger.Level = .trace,
    _ test: @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    var logger = recorder.logger
    logger.logLevel = logLevel
    let app = buildFeedApplication(source: source, invitations: source, host: "127.0.0.1", port: 0, logger: logger, idleTimeout: idleTimeout)
    try await app.test(.live) { client in try await test(client) }
}

/// A feed source under the test's control that counts how often the body is built.
/// Every invitation's token is unknown to it (404).
actor TestFeedSource: PageSource, InvitationSource {
    static let firstToken = "00112233445566778899aabbccddeeff"

    private(set) var currentRevision: Int64 = 1
    private(set) var currentToken = TestFeedSource.firstToken
    private(set) var body: String
    private(set) var lastModified = Date(timeIntervalSince1970: 1_795_239_000)  // 2026-11-21T05:30:00Z
    private(set) var feedCalls = 0
    /// How often the route asked for the token or the revision; the fast path never does.
    private(set) var routeCalls = 0
    /// ``routeCalls`` made by the request that ``noteRouteCallsSince(_:)`` last measured.
    private(set) var routeCallsOfLastRevalidation = -1
    private var failing = false

    func noteRouteCallsSince(_ calls: Int) { routeCallsOfLastRevalidation = routeCalls - calls }
    /// What ``cachedValidators()`` answers: the token and revision, or `nil`
    /// when the source does not offer them (every request takes the route).
    private nonisolated let validators: Mutex<(token: String, revision: Int64)?>
    private nonisolated let offersValidators: Bool
    /// Whether the JSON twin and the page are served (else they are the generic 404).
    private nonisolated let servesPages: Bool

    init(offersValidators: Bool = true, servesPages: Bool = false) throws {
        body = try Self.export(names: ["Ada Lovelace"])
        self.offersValidators = offersValidators
        self.servesPages = servesPages
        validators = Mutex(offersValidators ? (Self.firstToken, 1) : nil)
    }

    nonisolated func cachedValidators() -> (token: String, revision: Int64)? {
        validators.withLock { $0 }
    }

    /// The list's and the page's revision is the feed's here.
    nonisolated func cachedListValidators() -> (token: String, revision: Int64)? {
        servesPages ? validators.withLock { $0 } : nil
    }

    func listRevision() throws -> Int64 {
        try revision()
    }

    func list() throws -> FeedSnapshot {
        guard servesPages else { throw FeedSourceNoList() }
        feedCalls += 1
        return FeedSnapshot(body: "[{\"name\":\"Ada Lovelace\"}]\n", lastModified: lastModified, revision: currentRevision)
    }

    /// A page that names the host it was made for, so each host's has its own tag.
    func page(_ request: PageRequest) throws -> FeedSnapshot {
        guard servesPages else { throw FeedSourceNoList() }
        feedCalls += 1
        let body = "<!doctype html><title>\(request.host ?? "no host")</title><p>Ada Lovelace \(currentRevision)</p>\n"
        return FeedSnapshot(body: body, lastModified: lastModified, revision: currentRevision)
    }

    private func publishValidators() {
        let current = offersValidators && !failing ? (currentToken, currentRevision) : nil
        validators.withLock { $0 = current }
    }

    static func export(names: [String]) throws -> String {
        let people = names.enumerated().map { index, name in
            Person(
                id: "p\(index)",
                name: name,
                source: ContactSource(file: "book.vcf", index: index, line: 1),
                birthday: EventDate(year: 1815, month: 12, day: 10)
            )
        }
        return try CalendarExporter(settings: Settings()).export(people, lastChange: Date(timeIntervalSince1970: 1_795_239_000))
    }

    func revision() throws -> Int64 {
        routeCalls += 1
        if failing { throw TestFailure() }
        return currentRevision
    }

    func feed() throws -> FeedSnapshot {
        if failing { throw TestFailure() }
        feedCalls += 1
        return FeedSnapshot(body: body, lastModified: lastModified, revision: currentRevision)
    }

    func token() -> String {
        routeCalls += 1
        return currentToken
    }

    func change(body: String, lastModified: Date) {
        self.body = body
        self.lastModified = lastModified
        currentRevision += 1
        publishValidators()
    }

    func rotate(to token: String) {
        currentToken = token
        publishValidators()
    }

    func fail() {
        failing = true
        publishValidators()
    }

    nonisolated func inviteForm(token: String) -> InviteResponse? { nil }
    nonisolated func inviteAnswer(token: String, body: [UInt8]) -> InviteResponse? { nil }
    nonisolated func inviteBusy(token: String, body: [UInt8]) -> InviteResponse? { nil }
    nonisolated func trustedProxy() -> TrustedProxy? { nil }
    nonisolated var now: @Sendable () -> Date { { Date(timeIntervalSince1970: 1_795_239_000) } }

    struct TestFailure: Error {}
}

/// Plain-socket HTTP for what a full client hides: bytes after a HEAD
/// response, a server that closes mid-request, a client that sends nothing.
enum RawHTTP {
    /// Connects to 127.0.0.1:`port`, sends `request`, and reads until the
    /// server closes the connection, or with `headOnly` until the end of the
    /// response's head (for an answer without a body on a connection the
    /// server keeps open). A 60-second receive timeout only guards against
    /// hanging the suite; no assertion depends on time.
    ///
    /// The blocking socket calls run on a thread of their own: on a
    /// cooperative thread they could starve the server's own tasks.
    static func exchange(port: Int, _ request: String, headOnly: Bool = false) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, request, headOnly: headOnly) })
            }
            thread.start()
        }
    }

    private static func blockingExchange(port: Int, _ request: String, headOnly: Bool) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)  // reached only when the server fails to answer
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        guard bytes.isEmpty || send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EIO) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
                if headOnly, received.count >= 4, received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                    return String(decoding: received, as: UTF8.self)
                }
            } else if count == 0 || errno == ECONNRESET {
                return String(decoding: received, as: UTF8.self)
            } else if errno != EINTR {
                throw RawHTTPTimeout(received: String(decoding: received, as: UTF8.self))
            }
        }
    }
}

/// The server kept the connection open past the receive timeout.
struct RawHTTPTimeout: Error, CustomStringConvertible {
    var received: String
    var description: String { "no close within the receive timeout; received: \(received.debugDescription)" }
}
