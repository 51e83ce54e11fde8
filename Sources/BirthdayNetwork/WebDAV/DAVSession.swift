import AsyncHTTPClient
import BirthdayCore
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One conversation with a CardDAV server: an `HTTPClient` of its own,
/// made for a sync or a discovery and shut down after it, so no idle
/// connection (and no timer that closes it) outlives the sync.
///
/// - HTTP and HTTPS through AsyncHTTPClient, with the system's trust store;
///   redirects are followed (at most 5, keeping method and body;
///   `Authorization` is dropped when a redirect leaves the origin).
/// - A connection that cannot be made fails at once (no retries inside the
///   client; the daemon has its own backoff), after at most 5 s.
/// - Basic authentication is sent with every request (servers such as
///   Radicale do not answer an unauthenticated PROPFIND with a challenge).
/// - Every request has ``DAVLimits``: the most one answer may hold (a larger
///   one is ``RemoteError/tooLarge(url:megabytes:)``, and no more of it is
///   read), and a total deadline from sending the request to the last byte
///   of its answer, which a server that sends a byte now and then cannot
///   extend.
/// - Errors become ``RemoteError`` sentences with the URL (never with the
///   password or the `Authorization` header).
final class DAVSession: Sendable {
    struct Reply: Sendable {
        var status: Int
        var body: Data
        /// Where the answer came from, after redirects.
        var url: URL
        /// The answer's `ETag` header, if any.
        var etag: String? = nil
        /// The answer's `Retry-After` header, if any.
        var retryAfter: String? = nil
    }

    /// How long to wait for a connection, and for the next bytes of an answer
    /// (a first sync of a large book makes the server work for a while).
    struct Timeouts: Sendable {
        var connect: Duration = .seconds(5)
        var read: Duration = .seconds(120)
    }

    /// The request's deadline passed before its answer was read to the end.
    private struct DeadlinePassed: Error {}

    private let client: HTTPClient
    private let authorization: String?
    private let userAgent: String
    private let limits: DAVLimits
    private let counter = Atomic<Int>(0)
    private let busy = Atomic<Bool>(false)

    /// - Parameter followsRedirects: `false` for a session that writes (a
    ///   publish): a PUT or DELETE that is redirected would write or delete at
    ///   an address never recorded; the 3xx is then an answer like any other.
    init(
        username: String?,
        password: String?,
        userAgent: String,
        limits: DAVLimits,
        timeouts: Timeouts = Timeouts(),
        followsRedirects: Bool = true
    ) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: followsRedirects ? .follow(max: 5, allowCycles: false) : .disallow
        )
        configuration.timeout = .init(
            connect: .nanoseconds(Int64(timeouts.connect.components.seconds) * 1_000_000_000),
            read: .nanoseconds(Int64(timeouts.read.components.seconds) * 1_000_000_000)
        )
        // A refused connection fails the request at once: the daemon retries
        // with its own backoff, and `sources sync` should not hang.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        if let username {
            authorization = "Basic " + Data((username + ":" + (password ?? "")).utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        self.userAgent = userAgent
        self.limits = limits
    }

    /// Requests sent so far.
    var requests: Int { counter.load(ordering: .relaxed) }

    /// Whether the server answered any request with 429 or 503 (busy): a
    /// publish then has one request in flight at a time.
    var crowded: Bool { busy.load(ordering: .relaxed) }

    /// Closes the connections; call once, after the last request.
    func shutdown() async {
        try? await client.shutdown()
    }

    /// Sends `method` to `url` with an XML body and returns the answer, whatever its status.
    ///
    /// - Throws: ``RemoteError/network(url:reason:)`` when there is no answer.
    func send(_ method: String, _ url: URL, depth: String?, body: String?) async throws(RemoteError) -> Reply {
        try await send(method, url, depth: depth, headers: [], body: body.map { Array($0.utf8) }, contentType: "application/xml; charset=utf-8")
    }

    /// Sends `method` to `url` with an XML body; a `207 Multi-Status` answer
    /// is read into `stream` piece by piece as it arrives (its reply's `body`
    /// is then empty), any other answer whole, as ``send(_:_:depth:body:)`` does.
    ///
    /// - Throws: ``RemoteError/network(url:reason:)`` when there is no answer,
    ///   ``RemoteError/badResponse(url:reason:)`` when the multistatus cannot be read.
    func send(_ method: String, _ url: URL, depth: String?, body: String?, streamingTo stream: MultistatusStream) async throws(RemoteError) -> Reply {
        try await send(
            method,
            url,
            depth: depth,
            headers: [],
            body: body.map { Array($0.utf8) },
            contentType: "application/xml; charset=utf-8",
            stream: stream
        )
    }

    /// Sends `method` to `url` with these extra headers (`If-Match` …) and
    /// a body of `contentType`, and returns the answer, whatever its status.
    ///
    /// - Throws: ``RemoteError/network(url:reason:)`` when there is no answer.
    func send(
        _ method: String,
        _ url: URL,
        depth: String?,
        headers: [(String, String)],
        body: [UInt8]?,
        contentType: String,
        stream: MultistatusStream? = nil
    ) async throws(RemoteError) -> Reply {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "User-Agent", value: userAgent)
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        if let depth { request.headers.add(name: "Depth", value: depth) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        counter.add(1, ordering: .relaxed)
        let limits = self.limits
        let client = self.client
        let prepared = request
        do {
            // The client's deadline ends when the head of the answer arrives;
            // the race with a timer holds the body to the same deadline.
            return try await withThrowingTaskGroup(of: Reply.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, deadline: .now() + .seconds(limits.deadline.components.seconds))
                    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limits.answerBytes {
                        throw NIOTooManyBytesError(maxBytes: limits.answerBytes)
                    }
                    if let stream, response.status.code == 207 {
                        // Read as it arrives: each piece is parsed while the next is on its way.
                        var received = 0
                        for try await piece in response.body {
                            received += piece.readableBytes
                            if received > limits.answerBytes { throw NIOTooManyBytesError(maxBytes: limits.answerBytes) }
                            try piece.withUnsafeReadableBytes { bytes in try stream.feed(bytes) }
                        }
                        try stream.finish()
                        return Reply(status: 207, body: Data(), url: response.url ?? url, etag: response.headers.first(name: "ETag"))
                    }
                    let buffer = try await response.body.collect(upTo: limits.answerBytes)
                    return Reply(
                        status: Int(response.status.code),
                        body: Data(buffer.readableBytesView),
                        url: response.url ?? url,
                        etag: response.headers.first(name: "ETag"),
                        retryAfter: response.headers.first(name: "Retry-After")
                    )
                }
                group.addTask {
                    try await Task.sleep(for: limits.deadline)
                    throw DeadlinePassed()
                }
                defer { group.cancelAll() }
                // The first to end decides: an answer read in time, or the deadline
                // (whatever a cancelled read then returns is never used).
                guard let first = try await group.next() else { throw DeadlinePassed() }
                if first.status == 429 || first.status == 503 { busy.store(true, ordering: .relaxed) }
                return first
            }
        } catch {
            if let failure = error as? WebDAVXML.Failure {
                throw .badResponse(url: DAVSession.display(url), reason: failure.description)
            }
            if error is NIOTooManyBytesError {
                throw .tooLarge(url: DAVSession.display(url), megabytes: limits.answerBytes / 1_000_000)
            }
            if error is DeadlinePassed || (error as? HTTPClientError) == .deadlineExceeded {
                throw .network(url: DAVSession.display(url), reason: "the answer did not arrive within " + DAVSession.duration(limits.deadline))
            }
            throw .network(url: DAVSession.display(url), reason: DAVSession.reason(error))
        }
    }

    /// "2 minutes", "90 s".
    static func duration(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds % 60 == 0 { return seconds == 60 ? "1 minute" : "\(seconds / 60) minutes" }
        return "\(seconds) s"
    }

    /// The URL as messages show it: without user information.
    static func display(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    /// A sentence for a transport error.
    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout: return "the connection timed out"
            case .readTimeout, .deadlineExceeded: return "the server did not answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .redirectLimitReached, .redirectCycleDetected: return "too many redirects"
            default: return "\(error)"
            }
        }
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode))
        }
        let text = "\(error)"
        if text.contains("Connection refused") { return "connection refused" }
        return text
    }
}
