import ArgumentParser
import AsyncHTTPClient
import BirthdaySystem
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

extension NetworkHelperCommand {
    /// `birthdays-network post`: one HTTP `POST` for an ntfy or Gotify
    /// channel (`PushChannel`). The request (a `PushRequest`, whose headers
    /// may hold a token) comes as JSON on standard input, never in the
    /// arguments or the environment; one `PushReply` is printed.
    ///
    /// - The whole request, connecting and reading included, has `--deadline`
    ///   seconds; past it the reply says `timedOut`.
    /// - Redirects are not followed: a 3xx is the answer (a token must not
    ///   follow a redirect to another server).
    /// - The answer's body is read up to 4 KiB and the rest dropped.
    /// - Nothing is logged: the request holds the token and the reminder's text.
    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send one HTTP POST read as JSON from standard input, and print the answer as JSON (ntfy, Gotify)."
        )

        @Option(help: "The deadline of the whole request, in seconds.") var deadline: Double = 10

        func run() async throws {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            guard let request = try? JSONDecoder().decode(PushRequest.self, from: input) else {
                NetworkHelperCommand.print(PushReply(error: "the request could not be read"))
                return
            }
            let seconds = deadline > 0 && deadline <= 600 ? deadline : 10
            NetworkHelperCommand.print(await HTTPPost.send(request, deadline: .milliseconds(Int64(seconds * 1000))))
        }
    }

    /// Prints `value` as JSON and a newline (see ``reply(_:_:)``).
    static func print(_ value: some Encodable) {
        var bytes = [UInt8]((try? JSONEncoder().encode(value)) ?? Data("{}".utf8))
        bytes.append(UInt8(ascii: "\n"))
        writeAll(bytes)
    }
}

/// Sends a ``PushRequest`` with AsyncHTTPClient.
enum HTTPPost {
    /// How much of an answer's body is kept.
    static let bodyLimit = 4096

    static func send(_ request: PushRequest, deadline: Duration) async -> PushReply {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // A refused connection fails at once: the daemon retries with its own backoff.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        let reply: PushReply
        do {
            reply = try await withThrowingTaskGroup(of: PushReply.self) { group in
                group.addTask { try await exchange(request, client: client, deadline: .now() + .nanoseconds(nanoseconds)) }
                group.addTask {
                    // The backstop: reading the body, too, must end by the deadline.
                    try await Task.sleep(for: deadline)
                    return PushReply(timedOut: true)
                }
                let first = try await group.next() ?? PushReply(error: "no answer")
                group.cancelAll()
                return first
            }
        } catch {
            reply = reason(error)
        }
        try? await client.shutdown()
        return reply
    }

    private static func exchange(_ request: PushRequest, client: HTTPClient, deadline: NIODeadline) async throws -> PushReply {
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(string: request.body))
        let response = try await client.execute(http, deadline: deadline)
        var body: [UInt8] = []
        for try await chunk in response.body {
            body += chunk.readableBytesView.prefix(bodyLimit - body.count)
            if body.count >= bodyLimit { break }
        }
        return PushReply(
            status: Int(response.status.code),
            retryAfter: response.headers.first(name: "Retry-After"),
            body: String(decoding: body, as: UTF8.self)
        )
    }

    /// The reply for a request that got no answer.
    static func reason(_ error: any Error) -> PushReply {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return PushReply(timedOut: true)
            case .connectTimeout, .tlsHandshakeTimeout: return PushReply(error: "the connection timed out")
            case .remoteConnectionClosed: return PushReply(error: "the server closed the connection")
            case .invalidURL, .emptyHost: return PushReply(error: "the URL is not one to send to")
            default: return PushReply(error: "\(error)")
            }
        }
        if let error = error as? IOError { return PushReply(error: String(cString: strerror(error.errnoCode))) }
        let text = "\(error)"
        if text.contains("Connection refused") { return PushReply(error: "connection refused") }
        return PushReply(error: text)
    }
}
